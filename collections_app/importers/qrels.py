"""Parse and validate TREC qrels files (``qid iter docno rel``)."""
from __future__ import annotations

from dataclasses import dataclass

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.pair_gate import PairGate
from collections_app.importers.sources import Source

# QrelsEntry.grade is a 32-bit integer column in every database we support.
GRADE_MIN, GRADE_MAX = -(2**31), 2**31 - 1
OFF_SCALE_LINES_SHOWN = 5


@dataclass(frozen=True)
class QrelsLine:
    topic_id: int
    iteration: str
    docno: str
    grade: int


def parse_qrels(source: Source, *, topics: dict[str, int], problems: ProblemList,
                progress=None, scale: set[int] | None = None,
                allow_off_scale: bool = False) -> tuple[list[QrelsLine], int]:
    """Return (entries, lines read); negative grades are kept (they count as not relevant).

    With ``scale`` (the grades of the collection's scale), non-negative grades outside it (a 7
    on a 0–3 scale) are counted and refused with their first lines, unless ``allow_off_scale``
    says the file is meant to carry them (a finer scale than the collection's). Negative grades
    stay accepted: TREC uses them for junk and spam, and they count as not relevant anyway.
    """
    name = source.name
    entries: list[QrelsLine] = []
    gate = PairGate(name, topics=topics, problems=problems,
                    again="topic {qid!r} judges docno {docno!r} again (first on line {first})",
                    again_code="duplicate_judgment")
    off_scale: list[int] = []
    off_scale_count = 0
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
        if not GRADE_MIN <= grade <= GRADE_MAX:
            problems.add(name, line_no, f"grade {rel[:30]!r} is out of range ({GRADE_MIN} to {GRADE_MAX})",
                         code="bad_grade")
            continue
        reason = identifier_problem(qid, "qid") or identifier_problem(docno, "docno")
        if reason:
            problems.add(name, line_no, reason, code="bad_identifier")
            continue
        if scale is not None and not allow_off_scale and grade >= 0 and grade not in scale:
            off_scale_count += 1
            if len(off_scale) < OFF_SCALE_LINES_SHOWN:
                off_scale.append(line_no)
        if not gate.admit(line_no, qid, docno):
            continue
        entries.append(QrelsLine(topics[qid], iteration, docno, grade))
        if progress is not None and lines % 50_000 == 0:
            progress(source.consumed)
    if lines == 0 and not problems:
        raise fail(name, None, "the file has no qrels lines", code="empty_file")
    if off_scale_count:
        grades = ", ".join(str(grade) for grade in sorted(scale or ()))
        problems.add(name, off_scale[0],
                     f"{off_scale_count} judgment(s) have grades outside the collection's scale ({grades}), "
                     f"first on line(s) {', '.join(map(str, off_scale))}; import them anyway with "
                     "--allow-off-scale (command) or 'Accept grades outside the scale' (form)",
                     code="off_scale_grade")
    return entries, lines
