"""Parse a list of (topic, document) pairs to judge: ``qid docno [order]`` lines or TREC qrels lines.

Accepted per line (whitespace-separated; blank lines and lines starting with ``#`` skipped):

- ``qid docno`` — a pair; the judging order is the file's order;
- ``qid docno order`` — with an integer judging order (lower first; ties keep file order);
- ``qid iter docno rel`` — a TREC qrels line (an earlier round to re-judge): the label is ignored.

One file holds one kind of line (a third column on some lines but not others is refused, as it
usually means a mixed-up file). A pair listed twice is refused, as is an unknown topic.
"""
from __future__ import annotations

from dataclasses import dataclass

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.pair_gate import PairGate
from collections_app.importers.sources import Source

KINDS = {2: "qid docno", 3: "qid docno order", 4: "qid iter docno rel (qrels; labels ignored)"}


@dataclass(frozen=True, slots=True)
class PairLine:
    line: int
    qid: str
    docno: str
    order: int | None


def parse_pairs(source: Source, *, topics: dict[str, int], problems: ProblemList) -> list[PairLine]:
    """Return the pairs in judging order (the order column when given, else file order)."""
    name = source.name
    pairs: list[PairLine] = []
    gate = PairGate(name, topics=topics, problems=problems, again="pair {qid} {docno} appears again (first on line {first})",
                    again_code="duplicate_pair")
    width: tuple[int, int] | None = None  # (columns, first line) of the file's kind of line
    for line_no, line in source.text_lines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) not in KINDS:
            problems.add(name, line_no, f"expected 2 to 4 columns ({'; '.join(KINDS.values())}), found {len(parts)}")
            continue
        if width is None:
            width = (len(parts), line_no)
        elif len(parts) != width[0]:
            problems.add(name, line_no, f"{len(parts)} columns where line {width[1]} has {width[0]} "
                         f"({KINDS[width[0]]}); use one kind of line per file")
            continue
        order = None
        if len(parts) == 4:
            qid, _iteration, docno, _label = parts
        else:
            qid, docno = parts[0], parts[1]
            if len(parts) == 3:
                try:
                    order = int(parts[2])
                except ValueError:
                    problems.add(name, line_no, f"order {parts[2]!r} is not an integer")
                    continue
        reason = identifier_problem(docno, "docno")
        if reason:
            problems.add(name, line_no, reason)
            continue
        if not gate.admit(line_no, qid, docno):
            continue
        pairs.append(PairLine(line_no, qid, docno, order))
    if not pairs and not problems:
        raise fail(name, None, "the file lists no pairs", code="empty_file")
    if width is not None and width[0] == 3:
        pairs.sort(key=lambda pair: pair.order or 0)  # every line has an order here; stable: ties keep the file's order
    return pairs
