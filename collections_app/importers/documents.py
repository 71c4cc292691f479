"""Parse document files: TREC SGML ``<DOC>`` blocks, JSONL and TSV, one document at a time."""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from collections_app.importers.errors import ProblemList
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.sources import Source, has_nul, text_problem
from collections_app.importers.topics import json_records, peek_format, take

_ELEMENT = re.compile(r"<([A-Za-z][\w-]*)[^>]*>(.*?)</\1\s*>", re.S)
_ANY_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TITLE_TAGS = ("title", "headline", "head")
_URL = URLValidator(schemes=["http", "https"])


@dataclass
class ParsedDocument:
    line: int
    docno: str
    title: str = ""
    text: str = ""
    url: str = ""
    metadata: dict = field(default_factory=dict)


def parse_documents(source: Source, *, format: str | None, problems: ProblemList) -> Iterator[ParsedDocument]:
    """Yield the documents of a file one by one (the caller checks docnos and stores them)."""
    kind, lines = peek_format(source, format)
    parser = {"trec": _trec, "tsv": _tsv, "jsonl": _jsonl}[kind]
    for document in parser(source.name, lines, problems):
        if not document.docno:
            problems.add(source.name, document.line, "document without a docno")
            continue
        reason = identifier_problem(document.docno, "docno") or _content_problem(document)
        if reason:
            problems.add(source.name, document.line, reason)
            continue
        yield document


def _content_problem(document: ParsedDocument) -> str | None:
    """Say why a document's text fields cannot be stored (NUL bytes, a URL that is not one), or None.

    PostgreSQL refuses NUL in text and JSON columns, and a URL shown as a link must be http(s).
    """
    for label, value in (("title", document.title), ("text", document.text), ("url", document.url)):
        reason = text_problem(value, label)
        if reason:
            return reason
    if has_nul(document.metadata):
        return "metadata contains a NUL character, which the database cannot store"
    if document.url:
        if len(document.url) > 2000:
            return "url is longer than 2000 characters"
        try:
            _URL(document.url)
        except ValidationError:
            return f"url {document.url[:80]!r} is not a valid http(s) URL"
    return None


def _trec(name: str, lines, problems: ProblemList) -> Iterator[ParsedDocument]:
    buffer: list[str] | None = None
    start = 0
    for line_no, line in lines:
        if buffer is None:
            at = line.upper().find("<DOC>")
            if at < 0:
                if line.strip():
                    problems.add(name, line_no, "text outside a <DOC> ... </DOC> block")
                continue
            buffer, start, line = [], line_no, line[at + 5:]
        end = line.upper().find("</DOC>")
        if end < 0:
            buffer.append(line)
            continue
        buffer.append(line[:end])
        yield _trec_document(start, "\n".join(buffer))
        buffer = None
    if buffer is not None:
        problems.add(name, start, "<DOC> block is never closed")


def _trec_document(line_no: int, body: str) -> ParsedDocument:
    document = ParsedDocument(line=line_no, docno="")
    texts: list[str] = []
    titles: list[str] = []
    for match in _ELEMENT.finditer(body):
        tag = match.group(1).lower()
        value = _ANY_TAG.sub(" ", match.group(2)).strip()
        if tag == "docno":
            document.docno = value
        elif tag in _TITLE_TAGS:
            titles.append(" ".join(value.split()))
        elif tag == "text":
            texts.append(value)
        elif tag == "url":
            document.url = value
        else:
            previous = document.metadata.get(tag)
            document.metadata[tag] = f"{previous}\n{value}" if previous else value
    document.title = " ".join(titles)
    document.text = "\n".join(texts)
    return document


def _tsv(name: str, lines, problems: ProblemList) -> Iterator[ParsedDocument]:
    for line_no, line in lines:
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) == 2:
            yield ParsedDocument(line_no, parts[0].strip(), text=parts[1])
        elif len(parts) == 3:
            yield ParsedDocument(line_no, parts[0].strip(), title=parts[1].strip(), text=parts[2])
        else:
            problems.add(name, line_no, f"expected 2 or 3 tab-separated columns (docno, [title,] text), found {len(parts)}")


def _jsonl(name: str, lines, problems: ProblemList) -> Iterator[ParsedDocument]:
    for line_no, record in json_records(name, lines, problems):
        docno = take(record, "docno", "id", "doc_id", "_id").strip()
        yield ParsedDocument(line_no, docno, title=take(record, "title").strip(),
                             text=take(record, "text", "contents", "body"), url=take(record, "url").strip(),
                             metadata=record)
