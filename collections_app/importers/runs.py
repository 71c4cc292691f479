"""Parse and validate TREC run files (``qid Q0 docno rank score tag``) into packed rankings.

Speed matters: a campaign uploads 5M lines. Files are read in large blocks, each
block is checked for UTF-8 once, lines are split with ``bytes.split`` and scores are
converted per topic by numpy; rankings are sorted in trec_eval order and packed by
``collections_app.runstore``. Only problems cost extra work.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from collections_app import runstore
from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.sources import Source, decode_block


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
    docnos: set[bytes] = field(default_factory=set)

    @property
    def num_topics(self) -> int:
        return len(self.rankings)


def parse_run(source: Source, *, topics: dict[bytes, int], problems: ProblemList,
              progress=None) -> ParsedRun | None:
    """Read one run file; add its problems to ``problems`` and return None if it had any.

    ``topics`` maps each collection qid (UTF-8 bytes) to its Topic id. Lines starting
    with ``#`` are skipped as trec_eval 10 does; ``#`` elsewhere is data. Blank lines
    are skipped.
    """
    name = source.name
    before = problems.count
    per_topic: dict[bytes, tuple[list, list, list]] = {}
    tag: bytes | None = None
    tag_line = 0
    mixed_reported = False
    unknown_reported: set[bytes] = set()
    lines = 0
    for first, block in source.read_blocks():
        decode_block(name, first, block)  # raises on bad UTF-8, naming the line
        line_no = first - 1
        for line in block.split(b"\n"):
            line_no += 1
            if not line or line[:1] == b"#":
                continue
            parts = line.split()
            if len(parts) != 6:
                if parts:
                    problems.add(name, line_no, f"expected 6 columns (qid Q0 docno rank score tag), found {len(parts)}")
                continue
            qid, _q0, docno, _rank, score, run_tag = parts
            lines += 1
            if run_tag != tag:
                if tag is None:
                    tag, tag_line = run_tag, line_no
                elif not mixed_reported:
                    mixed_reported = True
                    problems.add(name, line_no, f"tag {run_tag.decode()!r} differs from tag {tag.decode()!r} of line "
                                 f"{tag_line}; a run file holds exactly one run", code="mixed_tags")
            entry = per_topic.get(qid)
            if entry is None:
                if qid not in topics:
                    if qid not in unknown_reported:
                        unknown_reported.add(qid)
                        problems.add(name, line_no, f"unknown topic {qid.decode()!r}", code="unknown_topic")
                    continue
                entry = per_topic[qid] = ([], [], [])
            entry[0].append(docno)
            entry[1].append(score)
            entry[2].append(line_no)
        if progress is not None:
            progress(source.consumed)
    if lines == 0 and problems.count == before:
        raise fail(name, None, "the file has no run lines", code="empty_file")
    run = ParsedRun(tag=(tag or b"").decode(), source_name=name, checksum=source.checksum(), lines=lines)
    for qid, (docnos, scores, line_numbers) in per_topic.items():
        ranking = _pack_topic(name, qid, docnos, scores, line_numbers, problems)
        if ranking is not None:
            ranking.topic_id = topics[qid]
            run.rankings.append(ranking)
            run.docnos.update(docnos)
    return None if problems.count > before else run


def _pack_topic(name: str, qid: bytes, docnos: list, scores: list, line_numbers: list,
                problems: ProblemList) -> PackedRanking | None:
    """Validate one topic's lines (numeric finite scores, no repeated docno) and pack them."""
    docno_array = np.array(docnos, dtype=bytes)
    try:
        score_array = np.array(scores, dtype=bytes).astype(np.float64)
    except ValueError:
        score_array = None
    ok = True
    if score_array is None:
        ok = False
        for score, line_no in zip(scores, line_numbers):
            try:
                float(score)
            except ValueError:
                problems.add(name, line_no, f"score {score.decode()!r} is not a number", code="bad_score")
    else:
        bad = np.flatnonzero(~np.isfinite(score_array))
        for index in bad[:10]:
            ok = False
            problems.add(name, line_numbers[index], f"score {scores[index].decode()!r} is not finite", code="bad_score")
    _unique, first_index, counts = np.unique(docno_array, return_index=True, return_counts=True)
    if (counts > 1).any():
        ok = False
        first_line = {docnos[i]: line_numbers[i] for i in first_index[counts > 1]}
        seen: set[bytes] = set()
        for docno, line_no in zip(docnos, line_numbers):
            if docno in first_line:
                if docno in seen:
                    problems.add(name, line_no, f"docno {docno.decode()!r} appears again for topic {qid.decode()!r} "
                                 f"(first on line {first_line[docno]})", code="duplicate_docno")
                seen.add(docno)
    if not ok:
        return None
    order = runstore.trec_order(docno_array, score_array)
    docno_blob, score_blob = runstore.pack(docno_array[order], score_array[order])
    return PackedRanking(topic_id=0, length=len(docnos), docnos=docno_blob, scores=score_blob)
