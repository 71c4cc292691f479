"""Parse and validate TREC run files (``qid Q0 docno rank score tag``) into packed rankings.

Speed matters: a campaign uploads 5M lines. Files are read in 4 MB blocks of whole
lines. A block is checked for UTF-8 once; then, if every line has exactly six columns
(counted with numpy over the raw bytes), one ``bytes.split`` and a few numpy calls
parse the whole block. Any block with something unusual (a comment, a wrong column
count, a second tag, an unknown topic, a bad score) is re-read line by line, which
is what names the exact line of each problem. Rankings are sorted in trec_eval order
and packed by ``collections_app.runstore``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from collections_app import runstore
from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.sources import Source, decode_block
from metrics.io import c_float, scores_as_c_reads_them

COLUMNS = 6
MAX_DOCNO = 255  # PoolPair.docno and QrelsEntry.docno hold at most this many characters


@dataclass
class PackedRanking:
    topic_id: int
    length: int
    docnos: bytes
    scores: bytes


@dataclass
class ParsedRun:
    """One validated run file, ready to store."""

    tag: str
    source_name: str
    checksum: str
    lines: int
    rankings: list[PackedRanking] = field(default_factory=list)
    docnos: np.ndarray = field(default_factory=lambda: np.array([], dtype=bytes))  # distinct, any order

    @property
    def num_topics(self) -> int:
        return len(self.rankings)


class _RunReader:
    """Accumulate one file's lines per topic as numpy chunks (docnos, scores, line numbers)."""

    def __init__(self, name: str, topics: dict[bytes, int], problems: ProblemList) -> None:
        self.name = name
        self.topics = topics
        self.problems = problems
        self.chunks: dict[bytes, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self.tag: bytes | None = None
        self.tag_line = 0
        self.mixed_reported = False
        self.unknown_reported: set[bytes] = set()
        self.lines = 0

    def block(self, first: int, block: bytes) -> None:
        if not self._fast(first, block):
            self._slow(first, block)

    def _fast(self, first: int, block: bytes) -> bool:
        """Parse a block without a Python loop over lines; return False to ask for the slow path."""
        if block.startswith(b"#") or b"\n#" in block:
            return False
        raw = np.frombuffer(block, dtype=np.uint8)
        # control characters (NUL ...) and non-ASCII text, which may hold Unicode format characters:
        # the slow path checks every identifier against the one rule and names the line
        if ((raw < 9) | ((raw > 13) & (raw < 32)) | (raw >= 127)).any():
            return False
        # bytes.split() splits on exactly these: space and \t \n \v \f \r (9..13).
        space = (raw == 32) | ((raw >= 9) & (raw <= 13))
        starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
        newlines = np.flatnonzero(raw == 10)
        per_line = np.bincount(np.searchsorted(newlines, starts), minlength=len(newlines) + 1)
        if not np.all((per_line == COLUMNS) | (per_line == 0)):
            return False
        tokens = block.split()
        if len(tokens) != len(starts):  # cannot happen with the whitespace set above; stay safe
            return False
        tags = tokens[5::COLUMNS]
        if self.tag is None:
            if identifier_problem(tags[0].decode(), "run tag") is not None:
                return False
            self.tag, self.tag_line = tags[0], first + int(np.flatnonzero(per_line)[0])
        if tags.count(self.tag) != len(tags):
            return False
        scores = scores_as_c_reads_them(tokens[4::COLUMNS])  # as trec_eval's atof: no "1_000", no overflow
        if scores is None or not np.isfinite(scores).all():
            return False
        qids = np.array(tokens[0::COLUMNS], dtype=bytes)
        unique, inverse = np.unique(qids, return_inverse=True)
        if any(qid not in self.topics for qid in unique.tolist()):
            return False
        docnos = np.array(tokens[2::COLUMNS], dtype=bytes)
        if docnos.dtype.itemsize > MAX_DOCNO:
            return False
        line_numbers = first + np.flatnonzero(per_line)
        order = np.argsort(inverse, kind="stable")
        bounds = np.cumsum(np.bincount(inverse, minlength=len(unique)))[:-1]
        for qid, part in zip(unique.tolist(), np.split(order, bounds)):
            self.chunks.setdefault(qid, []).append((docnos[part], scores[part], line_numbers[part]))
        self.lines += len(qids)
        return True

    def _slow(self, first: int, block: bytes) -> None:
        """Read a block line by line, reporting each problem with its line number."""
        name, problems = self.name, self.problems
        per_topic: dict[bytes, tuple[list, list, list]] = {}
        line_no = first - 1
        for line in block.split(b"\n"):
            line_no += 1
            if line[:1] == b"#":  # trec_eval 10 skips comment lines; '#' elsewhere is data
                continue
            parts = line.split()
            if len(parts) != COLUMNS:
                if parts:
                    problems.add(name, line_no, f"expected 6 columns (qid Q0 docno rank score tag), found {len(parts)}")
                continue
            qid, _q0, docno, _rank, score_text, run_tag = parts
            self.lines += 1
            if run_tag != self.tag:
                if self.tag is None:
                    bad = identifier_problem(run_tag.decode(), "run tag")
                    if bad is not None:
                        problems.add(name, line_no, bad, code="bad_identifier")
                    self.tag, self.tag_line = run_tag, line_no
                elif not self.mixed_reported:
                    self.mixed_reported = True
                    problems.add(name, line_no, f"tag {run_tag.decode()!r} differs from tag {self.tag.decode()!r} of "
                                 f"line {self.tag_line}; a run file holds exactly one run", code="mixed_tags")
            score = c_float(score_text.decode())
            if score is None:
                problems.add(name, line_no, f"score {score_text.decode()!r} is not a number (as trec_eval's atof reads "
                             "one: ASCII digits, sign, point, exponent; no '_', no trailing text, no overflow)",
                             code="bad_score")
                continue
            if score != score or score in (float("inf"), float("-inf")):
                problems.add(name, line_no, f"score {score_text.decode()!r} is not finite", code="bad_score")
                continue
            if len(docno) > MAX_DOCNO:
                problems.add(name, line_no, f"docno is longer than {MAX_DOCNO} bytes")
                continue
            bad = identifier_problem(docno.decode(), "docno") or identifier_problem(qid.decode(), "qid")
            if bad is not None:
                problems.add(name, line_no, bad, code="bad_identifier")
                continue
            if qid not in self.topics:
                if qid not in self.unknown_reported:
                    self.unknown_reported.add(qid)
                    problems.add(name, line_no, f"unknown topic {qid.decode()!r}", code="unknown_topic")
                continue
            entry = per_topic.setdefault(qid, ([], [], []))
            entry[0].append(docno)
            entry[1].append(score)
            entry[2].append(line_no)
        for qid, (docnos, scores, line_numbers) in per_topic.items():
            self.chunks.setdefault(qid, []).append(
                (np.array(docnos, dtype=bytes), np.array(scores, dtype=np.float64), np.array(line_numbers)))


def parse_run(source: Source, *, topics: dict[bytes, int], problems: ProblemList,
              progress=None) -> ParsedRun | None:
    """Read one run file; add its problems to ``problems`` and return None if it had any.

    ``topics`` maps each collection qid (UTF-8 bytes) to its Topic id. Lines starting
    with ``#`` are skipped as trec_eval 10 does; ``#`` elsewhere is data. Blank lines
    are skipped.
    """
    name = source.name
    before = problems.count
    reader = _RunReader(name, topics, problems)
    for first, block in source.read_blocks():
        decode_block(name, first, block)  # raises on bad UTF-8, naming the line
        if first == 1 and block.startswith(b"\xef\xbb\xbf"):
            block = block[3:]  # a UTF-8 byte-order mark is not part of the first qid
        reader.block(first, block)
        if progress is not None:
            progress(source.consumed)
    if reader.lines == 0 and problems.count == before:
        raise fail(name, None, "the file has no run lines", code="empty_file")
    run = ParsedRun(tag=(reader.tag or b"").decode(), source_name=name, checksum=source.checksum(), lines=reader.lines)
    distinct: list[np.ndarray] = []
    for qid, chunks in reader.chunks.items():
        if len(chunks) == 1:
            docnos, scores, line_numbers = chunks[0]
        else:
            docnos, scores, line_numbers = (np.concatenate([chunk[i] for chunk in chunks]) for i in range(3))
        ranking = _pack_topic(name, qid, docnos, scores, line_numbers, problems)
        if ranking is not None:
            ranking.topic_id = topics[qid]
            run.rankings.append(ranking)
            distinct.append(docnos)
    if distinct:
        run.docnos = np.unique(np.concatenate(distinct))
    return None if problems.count > before else run


def _pack_topic(name: str, qid: bytes, docnos: np.ndarray, scores: np.ndarray, line_numbers: np.ndarray,
                problems: ProblemList) -> PackedRanking | None:
    """Refuse a docno repeated within the topic (naming each repeat's line), else sort and pack."""
    _unique, first_index, counts = np.unique(docnos, return_index=True, return_counts=True)
    if (counts > 1).any():
        repeated = {docnos[i]: int(line_numbers[i]) for i in first_index[counts > 1]}
        # np.unique's first index is the first in array order; report repeats in file order.
        order = np.argsort(line_numbers, kind="stable")
        seen: set[bytes] = set()
        first_line: dict[bytes, int] = {}
        for index in order.tolist():
            docno = docnos[index]
            if docno not in repeated:
                continue
            if docno in seen:
                problems.add(name, int(line_numbers[index]), f"docno {docno.decode()!r} appears again for topic "
                             f"{qid.decode()!r} (first on line {first_line[docno]})", code="duplicate_docno")
            else:
                seen.add(docno)
                first_line[docno] = int(line_numbers[index])
        return None
    order = runstore.trec_order(docnos, scores)
    docno_blob, score_blob = runstore.pack(docnos[order], scores[order])
    return PackedRanking(topic_id=0, length=len(docnos), docnos=docno_blob, scores=score_blob)
