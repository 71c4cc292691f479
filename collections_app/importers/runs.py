"""Parse and validate TREC run files (``qid Q0 docno rank score tag``) into packed rankings.

Speed matters: a campaign uploads 5M lines. Files are read in 4 MB blocks of whole
lines. A regular block (ASCII, six single-separated fields a line, atof-readable
scores) is split into columns by ``metrics.io.run_columns``, the reader ``python -m
metrics`` uses, and the identifier rule is checked over its distinct qids and tag.
Any block with something unusual (a comment, extra fields, a second tag, an unknown
topic, a bad score, non-ASCII text) is re-read line by line, which is what names the
exact line of each problem. The whole run is then ordered as trec_eval ranks
(``runstore.trec_order``'s order) in one sort and packed per topic by
``collections_app.runstore``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from collections_app import runstore
from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.sources import Source, decode_block
from metrics.io import c_float, row_hashes, run_columns

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
    """Accumulate one file's data lines as flat numpy chunks (qids, docnos, scores, line numbers)."""

    def __init__(self, name: str, topics: dict[bytes, int], problems: ProblemList) -> None:
        self.name = name
        self.topics = topics
        self.problems = problems
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.tag: bytes | None = None
        self.tag_line = 0
        self.mixed_reported = False
        self.unknown_reported: set[bytes] = set()
        self.lines = 0

    def block(self, first: int, block: bytes) -> None:
        if not self._fast(first, block):
            self._slow(first, block)

    def _fast(self, first: int, block: bytes) -> bool:
        """Parse a regular block with ``metrics.io.run_columns``; return False to ask for the line-by-line path.

        ``run_columns`` takes only ASCII blocks without control characters other than tab and
        newline, six single-separated fields a line and atof-readable scores. On such bytes
        the identifier rule reduces to lengths (no whitespace or control characters can be
        inside a field, DEL aside) and the run tag's URL characters, checked here over the
        distinct values rather than per line. Anything else goes line by line, so every
        problem is reported exactly as that path words it.
        """
        if b"\r" in block:  # Windows line ends: a "\r" before "\n" is whitespace to bytes.split() too
            block = block.replace(b"\r\n", b"\n")
        columns = run_columns(block)
        if columns is None or b"\x7f" in block:  # DEL is a control character under the identifier rule
            return False
        scores = columns.scores
        if not np.isfinite(scores).all():
            return False
        if columns.docno_lengths.max() > MAX_DOCNO:
            return False
        tags = columns.tags()
        if self.tag is None:
            if identifier_problem(tags[0].decode(), "run tag") is not None:
                return False
            self.tag, self.tag_line = tags[0], first
        if not (tags == self.tag).all():
            return False
        qids = columns.qids
        starts = np.concatenate(([0], np.flatnonzero(qids[1:] != qids[:-1]) + 1))
        for qid in set(qids[starts].tolist()):
            if qid not in self.topics or identifier_problem(qid.decode(), "qid") is not None:
                return False
        self.chunks.append((qids, columns.docnos(), scores, first + np.arange(len(qids))))
        self.lines += len(qids)
        return True

    def _slow(self, first: int, block: bytes) -> None:
        """Read a block line by line, reporting each problem with its line number."""
        name, problems = self.name, self.problems
        qids: list[bytes] = []
        docnos: list[bytes] = []
        scores: list[float] = []
        line_numbers: list[int] = []
        line_no = first - 1
        for line in block.split(b"\n"):
            line_no += 1
            if line[:1] == b"#":  # trec_eval 10 skips comment lines; '#' elsewhere is data
                continue
            parts = line.split()
            if len(parts) < COLUMNS:  # as trec_eval 10: fields after the sixth are ignored
                if parts:
                    problems.add(name, line_no, f"expected 6 columns (qid Q0 docno rank score tag), found {len(parts)}")
                continue
            qid, _q0, docno, _rank, score_text, run_tag = parts[:COLUMNS]
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
            qids.append(qid)
            docnos.append(docno)
            scores.append(score)
            line_numbers.append(line_no)
        if qids:
            self.chunks.append((np.array(qids, dtype=bytes), np.array(docnos, dtype=bytes),
                                np.array(scores, dtype=np.float64), np.array(line_numbers, dtype=np.int64)))


def parse_run(source: Source, *, topics: dict[bytes, int], problems: ProblemList,
              progress=None) -> ParsedRun | None:
    """Read one run file; add its problems to ``problems`` and return None if it had any.

    ``topics`` maps each collection qid (UTF-8 bytes) to its Topic id. Lines starting
    with ``#`` are skipped as trec_eval 10 does; ``#`` elsewhere is data. Blank lines
    are skipped, and so are fields after the sixth (trec_eval reads six).
    """
    name = source.name
    before = problems.count
    reader = _RunReader(name, topics, problems)
    for first, block in source.read_blocks():
        if first == 1 and block.startswith(b"\xef\xbb\xbf"):
            block = block[3:]  # a UTF-8 byte-order mark is not part of the first qid
        if not block.isascii():
            decode_block(name, first, block)  # raises on bad UTF-8, naming the line
        reader.block(first, block)
        if progress is not None:
            progress(source.consumed)
    if reader.lines == 0 and problems.count == before:
        raise fail(name, None, "the file has no run lines", code="empty_file")
    run = ParsedRun(tag=(reader.tag or b"").decode(), source_name=name, checksum=source.checksum(), lines=reader.lines)
    if not reader.chunks:
        return None
    qids, docnos, scores, line_numbers = (
        reader.chunks[0][i] if len(reader.chunks) == 1 else np.concatenate([chunk[i] for chunk in reader.chunks])
        for i in range(4))
    reader.chunks.clear()
    # A file with problems already fails; still name each repeated docno, as the per-topic path does.
    rankings = None if problems.count > before else _pack_run(qids, docnos, scores, topics)
    if rankings is None:  # a docno may repeat within a topic: find and name each repeat
        rankings = _pack_per_topic(name, qids, docnos, scores, line_numbers, topics, problems)
    if problems.count > before:
        return None
    run.rankings = rankings
    run.docnos = np.unique(docnos)
    return run


def _topic_index(qids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct qids (sorted) and each line's index into them; runs list a topic's lines together."""
    starts = np.concatenate(([0], np.flatnonzero(qids[1:] != qids[:-1]) + 1))
    distinct, inverse = np.unique(qids[starts], return_inverse=True)
    return distinct, np.repeat(inverse, np.diff(np.append(starts, len(qids))))


def _pack_run(qids: np.ndarray, docnos: np.ndarray, scores: np.ndarray,
              topics: dict[bytes, int]) -> list[PackedRanking] | None:
    """Sort every topic in trec_eval order and pack it; None if a docno may repeat within a topic.

    One sort for the whole run: topic, then score descending on numbers; docnos are compared
    (descending, byte-wise, as ``runstore.trec_order``) only inside groups of tied scores, which
    keeps string sorting off the common path. Repeats are screened with 64-bit hashes of
    (topic, docno); a hash match sends the run to ``_pack_per_topic``, which checks exactly.
    """
    distinct, topic = _topic_index(qids)
    width = -(-docnos.dtype.itemsize // 8) * 8
    words = np.ascontiguousarray(docnos, dtype=f"S{width}").view(np.uint64).reshape(len(docnos), width // 8)
    keys = row_hashes(words, np.full(len(docnos), width)) ^ (topic.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    keys.sort()
    if (keys[1:] == keys[:-1]).any():
        return None
    order = np.lexsort((scores, -topic))[::-1]  # topic ascending, score descending
    ranked_topic, ranked_score = topic[order], scores[order]
    tied = (ranked_topic[1:] == ranked_topic[:-1]) & (ranked_score[1:] == ranked_score[:-1])
    if tied.any():
        at = np.flatnonzero(np.concatenate((tied, [False])) | np.concatenate(([False], tied)))
        rows = order[at]
        order[at] = rows[np.lexsort((docnos[rows], scores[rows], -topic[rows]))[::-1]]
    docnos, scores = docnos[order], scores[order]
    bounds = np.cumsum(np.bincount(topic, minlength=len(distinct)))
    rankings = []
    for qid, a, b in zip(distinct.tolist(), [0, *bounds[:-1].tolist()], bounds.tolist()):
        docno_blob, score_blob = runstore.pack(docnos[a:b], scores[a:b])
        rankings.append(PackedRanking(topic_id=topics[qid], length=b - a, docnos=docno_blob, scores=score_blob))
    return rankings


def _pack_per_topic(name: str, qids: np.ndarray, docnos: np.ndarray, scores: np.ndarray, line_numbers: np.ndarray,
                    topics: dict[bytes, int], problems: ProblemList) -> list[PackedRanking]:
    """Check and pack topic by topic, naming the line of every repeated docno."""
    distinct, topic = _topic_index(qids)
    order = np.argsort(topic, kind="stable")  # file order within each topic
    parts = np.split(order, np.cumsum(np.bincount(topic, minlength=len(distinct)))[:-1])
    _, first = np.unique(topic, return_index=True)
    rankings = []
    for t in np.argsort(first).tolist():  # topics in order of first appearance, as problems were always listed
        qid, part = distinct[t], parts[t]
        ranking = _pack_topic(name, qid, docnos[part], scores[part], line_numbers[part], problems)
        if ranking is not None:
            ranking.topic_id = topics[qid]
            rankings.append(ranking)
    return rankings


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
