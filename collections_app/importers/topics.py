"""Parse topic files: TREC SGML ``<top>`` blocks, TSV and JSONL."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.sources import Source, detect_format, has_nul, text_problem

FORMATS = ("trec", "tsv", "jsonl")
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)[^>]*>")
_PREFIXES = {"num": re.compile(r"^\s*Number:\s*", re.I), "title": re.compile(r"^\s*Topic:\s*", re.I),
             "desc": re.compile(r"^\s*Description:\s*", re.I), "narr": re.compile(r"^\s*Narrative:\s*", re.I)}
_FIELDS = {"num": "qid", "title": "title", "desc": "description", "narr": "narrative",
           "description": "description", "narrative": "narrative", "query": "title"}


@dataclass
class ParsedTopic:
    line: int
    qid: str
    title: str
    description: str = ""
    narrative: str = ""
    metadata: dict = field(default_factory=dict)


def peek_format(source: Source, format: str | None, *, formats: Sequence[str] = FORMATS,
                detect: Callable[[str, str], str] | None = None) -> tuple[str, Iterator[tuple[int, str]]]:
    """Return the format (given, or detected from the name and first non-blank line) and the file's numbered lines.

    No line is consumed. ``formats`` and ``detect`` default to the topic files'; the other
    importers pass their own. Refuses an unknown format and a file with nothing but blank lines.
    """
    lines = source.text_lines()
    if format is not None and format not in formats:
        raise fail(source.name, None, f"unknown format {format!r} (choose from {', '.join(formats)})", code="bad_format")
    head: list[tuple[int, str]] = []
    for item in lines:
        head.append(item)
        if item[1].strip():
            break
    if not any(text.strip() for _, text in head):
        raise fail(source.name, None, "the file is empty", code="empty_file")
    return format or (detect or detect_format)(source.name, head[-1][1]), chain(head, lines)


def parse_topics(source: Source, *, format: str | None, problems: ProblemList) -> list[ParsedTopic]:
    """Return the topics of a file; duplicate qids and missing titles are problems."""
    kind, lines = peek_format(source, format)
    parser = {"trec": _trec, "tsv": _tsv, "jsonl": _jsonl}[kind]
    topics: list[ParsedTopic] = []
    seen: dict[str, int] = {}
    for topic in parser(source.name, lines, problems):
        if not topic.qid:
            problems.add(source.name, topic.line, "topic without a number/qid")
            continue
        reason = identifier_problem(topic.qid, "qid") or _text_fields_problem(topic)
        if reason:
            problems.add(source.name, topic.line, reason)
            continue
        if topic.qid in seen:
            problems.add(source.name, topic.line, f"topic {topic.qid!r} appears again (first on line {seen[topic.qid]})",
                         code="duplicate_topic")
            continue
        if not topic.title:
            problems.add(source.name, topic.line, f"topic {topic.qid!r} has no title")
        seen[topic.qid] = topic.line
        topics.append(topic)
    if not topics and not problems:
        raise fail(source.name, None, "the file has no topics", code="empty_file")
    return topics


def _text_fields_problem(topic: ParsedTopic) -> str | None:
    """Say why a topic's text cannot be stored (a NUL character), or return None."""
    for label in ("title", "description", "narrative"):
        reason = text_problem(getattr(topic, label), label)
        if reason:
            return reason
    if has_nul(topic.metadata):
        return "metadata contains a NUL character, which the database cannot store"
    return None


def _trec(name: str, lines, problems: ProblemList) -> Iterator[ParsedTopic]:
    buffer: list[str] | None = None
    start = 0
    for line_no, line in lines:
        lowered = line.lower()
        if buffer is None:
            at = lowered.find("<top>")
            if at < 0:
                if line.strip():
                    problems.add(name, line_no, "text outside a <top> ... </top> block")
                continue
            buffer, start, line = [], line_no, line[at + 5:]
            lowered = line.lower()
        end = lowered.find("</top>")
        if end < 0:
            buffer.append(line)
            continue
        buffer.append(line[:end])
        yield _trec_topic(start, "\n".join(buffer))
        buffer = None
    if buffer is not None:
        problems.add(name, start, "<top> block is never closed")


def _trec_topic(line_no: int, text: str) -> ParsedTopic:
    fields: dict[str, str] = {}
    matches = [m for m in _TAG.finditer(text) if not m.group(1)]
    for index, match in enumerate(matches):
        tag = match.group(2).lower()
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        value = _TAG.sub(" ", text[match.end():end])
        if tag in _PREFIXES:
            value = _PREFIXES[tag].sub("", value, count=1)
        value = " ".join(value.split())
        fields[tag] = f"{fields[tag]} {value}".strip() if tag in fields else value
    topic = ParsedTopic(line=line_no, qid="", title="")
    for tag, value in fields.items():
        target = _FIELDS.get(tag)
        if target and not getattr(topic, target):
            setattr(topic, target, value)
        else:
            topic.metadata[tag] = value
    return topic


def _tsv(name: str, lines, problems: ProblemList) -> Iterator[ParsedTopic]:
    """TSV topics; blank lines and lines starting with ``#`` (comments, headers) are skipped."""
    for line_no, line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if not 2 <= len(parts) <= 4:
            problems.add(name, line_no, f"expected 2 to 4 tab-separated columns (qid, title, description, narrative), "
                         f"found {len(parts)}")
            continue
        parts += [""] * (4 - len(parts))
        yield ParsedTopic(line_no, parts[0].strip(), parts[1].strip(), parts[2].strip(), parts[3].strip())


def json_records(name: str, lines, problems: ProblemList) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank JSONL line; record a problem for any other line."""
    for line_no, line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            problems.add(name, line_no, f"invalid JSON ({exc.args[0].split(':')[0]})")
            continue
        if not isinstance(record, dict):
            problems.add(name, line_no, "expected a JSON object")
            continue
        yield line_no, record


def _jsonl(name: str, lines, problems: ProblemList) -> Iterator[ParsedTopic]:
    for line_no, record in json_records(name, lines, problems):
        qid = take(record, "qid", "query_id", "id")
        title = take(record, "title", "query", "text")
        yield ParsedTopic(line_no, qid.strip(), title.strip(), take(record, "description"), take(record, "narrative"), record)


def take(record: dict, *keys: str) -> str:
    """Pop the first of ``keys`` present in a JSON record and return it as text ("" if none)."""
    for key in keys:
        if key in record:
            value = record.pop(key)
            return "" if value is None else str(value)
    return ""
