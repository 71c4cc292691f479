"""Parse and validate TREC qrels files (``qid iter docno rel``)."""
from __future__ import annotations

from dataclasses import dataclass

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.sources import Source


@dataclass(frozen=True)
class QrelsLine:
    topic_id: int
    iteration: str
    docno: str
    grade: int


def parse_qrels(source: Source, *, topics: dict[str, int], problems: ProblemList,
                progress=None) -> tuple[list[QrelsLine], int]:
    """Return (entries, lines read); negative grades are kept (they count as not relevant)."""
    name = source.name
    entries: list[QrelsLine] = []
    seen: dict[tuple[str, str], int] = {}
    unknown: set[str] = set()
    lines = 0
    for line_no, line in source.text_lines():
        if not line.strip() or line.startswith("#"):
            continue
        lines += 1
        parts = line.split()
        if len(parts) != 4:
            problems.add(name, line_no, f"expected 4 columns (qid iter docno rel), found {len(parts)}")
            continue
        qid, iteration, docno, rel = parts
        try:
            grade = int(rel)
        except ValueError:
            problems.add(name, line_no, f"grade {rel!r} is not an integer", code="bad_grade")
            continue
        if len(docno) > 255:
            problems.add(name, line_no, "docno is longer than 255 characters")
            continue
        topic_id = topics.get(qid)
        if topic_id is None:
            if qid not in unknown:
                unknown.add(qid)
                problems.add(name, line_no, f"unknown topic {qid!r}", code="unknown_topic")
            continue
        first = seen.setdefault((qid, docno), line_no)
        if first != line_no:
            problems.add(name, line_no, f"topic {qid!r} judges docno {docno!r} again (first on line {first})",
                         code="duplicate_judgment")
            continue
        entries.append(QrelsLine(topic_id, iteration, docno, grade))
        if progress is not None and lines % 50_000 == 0:
            progress(source.consumed)
    if lines == 0 and not problems:
        raise fail(name, None, "the file has no qrels lines", code="empty_file")
    return entries, lines
