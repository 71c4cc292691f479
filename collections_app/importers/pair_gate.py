"""Which (topic, document) lines of a pairs, qrels or ir_datasets import get through: known topics, each pair once.

Every importer of pairs reports the same two problems the same way: a topic the collection
lacks is reported on its first line only (a file meant for another collection would otherwise
list every line), and a pair seen before is reported with the line it first stood on.
"""
from __future__ import annotations

from collections.abc import Container

from collections_app.importers.errors import ProblemList


class PairGate:
    """Admit a (qid, docno) line once, for a known topic; record a problem for any other.

    ``again`` words a repeated pair, with ``{qid}``, ``{docno}`` and ``{first}`` (the first
    line or record number) filled in; ``again_code`` is its problem code.
    """

    def __init__(self, name: str, *, topics: Container[str], problems: ProblemList, again: str,
                 again_code: str) -> None:
        self.name, self.topics, self.problems = name, topics, problems
        self.again, self.again_code = again, again_code
        self.seen: dict[tuple[str, str], int] = {}
        self.unknown: set[str] = set()

    def admit(self, number: int, qid: str, docno: str) -> bool:
        """Return True if the line at ``number`` may be kept; otherwise its problem is recorded (if new)."""
        if qid not in self.topics:
            if qid not in self.unknown:
                self.unknown.add(qid)
                self.problems.add(self.name, number, f"unknown topic {qid!r}", code="unknown_topic")
            return False
        first = self.seen.setdefault((qid, docno), number)
        if first != number:
            self.problems.add(self.name, number, self.again.format(qid=qid, docno=docno, first=first),
                              code=self.again_code)
            return False
        return True
