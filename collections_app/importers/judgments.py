"""Parse per-assessor judgment files: CSV or TSV with a header row, or JSONL with the same keys.

Columns (CSV/TSV header names, JSONL keys): required ``qid``, ``docno``, ``assessor``,
``label``; optional ``timestamp`` (ISO 8601; without an offset it is read as UTC),
``seconds`` (active time on the pair, a finite number >= 0; empty means unknown),
``comment`` and ``gold`` (the expected label when the pair is a gold question). A column
outside that list is refused, as is a header that lacks a required one: a misspelt column
would otherwise be silently ignored.

Rules checked here, with no database at hand: the qid is one of ``topics``; the docno keeps
the identifier rule (``identifiers``); the label and gold are integers on the scale; a row
that repeats an earlier row of the same (qid, docno, assessor) word for word (same label,
same timestamp) is refused as a duplicate — the usual cause is a file pasted twice. Rows for
the same (qid, docno, assessor) that differ are revisions, in file order.
"""
from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.sources import Source
from collections_app.importers.topics import json_records, peek_format

REQUIRED = ("qid", "docno", "assessor", "label")
OPTIONAL = ("timestamp", "seconds", "comment", "gold")
COLUMNS = REQUIRED + OPTIONAL
FORMATS = ("csv", "tsv", "jsonl")
MAX_ASSESSOR = 200


@dataclass(slots=True)
class JudgmentRow:
    """One validated row: who labelled which pair how, when, and how long it took (None = unknown)."""

    line: int
    topic_id: int
    docno: str
    assessor: str
    grade: int
    timestamp: datetime | None
    seconds: float | None
    comment: str
    gold: int | None


def detect_judgments_format(name: str, first_line: str) -> str:
    """Guess "jsonl", "tsv" or "csv" from the file name, else from the header line."""
    lowered = name.lower().removesuffix(".gz")
    for suffix, kind in ((".jsonl", "jsonl"), (".json", "jsonl"), (".ndjson", "jsonl"), (".tsv", "tsv"),
                         (".csv", "csv")):
        if lowered.endswith(suffix):
            return kind
    if first_line.lstrip().startswith("{"):
        return "jsonl"
    return "tsv" if "\t" in first_line else "csv"


def parse_judgments(source: Source, *, topics: dict[str, int], grades: Iterable[int], problems: ProblemList,
                    format: str | None = None) -> list[JudgmentRow]:
    """Return the file's rows in file order; every problem found goes to ``problems``."""
    kind, numbered = peek_format(source, format, formats=FORMATS, detect=detect_judgments_format)
    checker = _RowChecker(source.name, topics=topics, grades=set(grades), problems=problems)
    records = _jsonl(source.name, numbered, problems) if kind == "jsonl" else _delimited(
        source.name, numbered, problems, delimiter="\t" if kind == "tsv" else ",")
    rows = [row for row in (checker.check(line, record) for line, record in records) if row is not None]
    if not rows and not problems:
        raise fail(source.name, None, "the file has no judgments", code="empty_file")
    return rows


def _header_problem(name: str, line: int, columns: list[str], problems: ProblemList) -> bool:
    """Report an unknown, repeated or missing column; return True when the header is unusable."""
    bad = False
    seen: set[str] = set()
    for column in columns:
        if column not in COLUMNS:
            problems.add(name, line, f"unknown column {column!r} (columns: {', '.join(COLUMNS)})", code="bad_header")
            bad = True
        elif column in seen:
            problems.add(name, line, f"column {column!r} appears twice", code="bad_header")
            bad = True
        seen.add(column)
    missing = [column for column in REQUIRED if column not in seen]
    if missing:
        problems.add(name, line, f"the header lacks the required column{'s' if len(missing) > 1 else ''} "
                     f"{', '.join(missing)} (a header row naming the columns is required)", code="bad_header")
        bad = True
    return bad


def _delimited(name: str, numbered, problems: ProblemList, *, delimiter: str) -> Iterator[tuple[int, dict]]:
    # csv.reader counts the lines it pulls from the iterator, which are the file's lines one for one,
    # so reader.line_num is the file line a record ends on (a quoted field may span lines).
    numbers: list[int] = [0]

    def text() -> Iterator[str]:
        for line_no, line in numbered:
            numbers[0] = line_no
            yield line

    reader = csv.reader(text(), delimiter=delimiter)
    header: list[str] | None = None
    for record in reader:
        line = numbers[0]
        if not record or (len(record) == 1 and not record[0].strip()):
            continue
        if header is None:
            header = [column.strip().lower() for column in record]
            if _header_problem(name, line, header, problems):
                return
            continue
        if len(record) != len(header):
            problems.add(name, line, f"expected {len(header)} columns as in the header, found {len(record)}")
            continue
        yield line, dict(zip(header, record, strict=True))


def _jsonl(name: str, numbered, problems: ProblemList) -> Iterator[tuple[int, dict]]:
    for line, record in json_records(name, numbered, problems):
        if _header_problem(name, line, list(record), problems):
            continue
        yield line, record


class _RowChecker:
    """Validate records one by one, remembering what duplicates need."""

    def __init__(self, name: str, *, topics: dict[str, int], grades: set[int], problems: ProblemList) -> None:
        self.name = name
        self.topics = topics
        self.grades = grades
        self.scale_text = ", ".join(str(g) for g in sorted(grades))
        self.problems = problems
        self.unknown_topics: set[str] = set()
        self.seen: dict[tuple, int] = {}
        # Docnos and assessor names already found good: files repeat them a lot.
        self.good_docnos: set[str] = set()
        self.good_assessors: set[str] = set()

    def _grade(self, line: int, value, column: str) -> int | None:
        if isinstance(value, bool):
            value = None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                value = None
        if not isinstance(value, int):
            self.problems.add(self.name, line, f"{column} {value!r} is not an integer grade", code="bad_grade")
            return None
        if value not in self.grades:
            self.problems.add(self.name, line, f"{column} {value} is not on the collection's scale ({self.scale_text})",
                              code="bad_grade")
            return None
        return value

    def check(self, line: int, record: dict) -> JudgmentRow | None:
        before = self.problems.count
        qid = _text(record.get("qid"))
        docno = _text(record.get("docno"))
        assessor = _text(record.get("assessor"))
        topic_id = self.topics.get(qid)
        if topic_id is None and qid not in self.unknown_topics:
            # Like the qrels importer: name each unknown topic once (its other rows are refused quietly).
            self.unknown_topics.add(qid)
            self.problems.add(self.name, line, f"unknown topic {qid!r}", code="unknown_topic")
        if docno not in self.good_docnos:
            reason = identifier_problem(docno, "docno")
            if reason:
                self.problems.add(self.name, line, reason)
            else:
                self.good_docnos.add(docno)
        if assessor not in self.good_assessors:
            if not assessor:
                self.problems.add(self.name, line, "empty assessor")
            elif len(assessor) > MAX_ASSESSOR or not assessor.isprintable():
                self.problems.add(self.name, line, f"assessor {assessor[:40]!r} must be at most {MAX_ASSESSOR} "
                                  "printable characters")
            else:
                self.good_assessors.add(assessor)
        grade = self._grade(line, record.get("label"), "label")
        raw_gold = record.get("gold")
        gold = None if raw_gold in (None, "") else self._grade(line, raw_gold, "gold")
        timestamp = self._timestamp(line, record.get("timestamp"))
        seconds = self._seconds(line, record.get("seconds"))
        comment = record.get("comment")
        comment = "" if comment is None else str(comment)
        if self.problems.count != before or topic_id is None or grade is None:  # a bad grade was reported
            return None
        key = (topic_id, docno, assessor, grade, timestamp)
        first = self.seen.setdefault(key, line)
        if first != line:
            self.problems.add(self.name, line, f"repeats line {first} (same pair, assessor, label and timestamp)",
                              code="duplicate_judgment")
            return None
        return JudgmentRow(line, topic_id, docno, assessor, grade, timestamp, seconds, comment, gold)

    def _timestamp(self, line: int, value) -> datetime | None:
        if value in (None, ""):
            return None
        try:
            moment = datetime.fromisoformat(str(value).strip())
        except ValueError:
            self.problems.add(self.name, line, f"timestamp {value!r} is not ISO 8601 (e.g. 2024-05-01T12:30:00Z)")
            return None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def _seconds(self, line: int, value) -> float | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if isinstance(value, bool) or not math.isfinite(seconds) or seconds < 0:
            self.problems.add(self.name, line, f"seconds {value!r} must be a finite number >= 0 (or empty: unknown)")
            return None
        return seconds


def _text(value) -> str:
    """Return a cell as stripped text; JSON numbers (qid 301) become their decimal text."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()
