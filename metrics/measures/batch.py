"""Turn one run and the qrels into a padded topics × ranks matrix of relevance values.

Every measure reads the same matrix, so ranking and relevance lookup happen once per run.
Values follow trec_eval's ``form_res_rels``: the grade for judged documents, ``NONPOOL``
(-1) for documents absent from the qrels, ``UNJUDGED`` (-2) for qrels entries with a
negative grade, and ``PAD`` beyond the end of a topic's ranking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat

import numpy as np

NONPOOL = -1
UNJUDGED = -2
PAD = -9


@dataclass
class TopicJudgments:
    """Precomputed per-topic facts from the qrels (independent of run and options but -l)."""

    docnos: np.ndarray  # sorted
    grades: np.ndarray  # aligned with docnos
    level_counts: np.ndarray  # level_counts[g] = #docs with grade g >= 0
    lookup: dict  # docno -> trec_eval relevance value (grade, or UNJUDGED for negative grades)


def prepare_qrels(qrels) -> dict[str, TopicJudgments]:
    """Return per-topic judgments for fast lookup; cached on the Qrels object."""
    cached = qrels._cache.get("prepared")
    if cached is not None:
        return cached
    out = {}
    for q, (d, g) in qrels.topics.items():
        nonneg = g[g >= 0]
        counts = np.bincount(nonneg) if len(nonneg) else np.zeros(0, dtype=np.int64)
        relv = np.where(g < 0, UNJUDGED, g).tolist()
        out[q] = TopicJudgments(docnos=d, grades=g, level_counts=counts, lookup=dict(zip(d.tolist(), relv)))
    qrels._cache["prepared"] = out
    return out


def rank_topic(docnos: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Return the order trec_eval ranks documents in: score desc, ties by docno desc (byte-wise)."""
    return np.lexsort((docnos, scores))[::-1]


def topic_relevance(tj: TopicJudgments | None, docnos: np.ndarray) -> np.ndarray:
    """Map ranked docnos to trec_eval relevance values (grade, NONPOOL or UNJUDGED)."""
    if tj is None or len(tj.docnos) == 0:
        return np.full(len(docnos), NONPOOL, dtype=np.int64)
    pos = np.searchsorted(tj.docnos, docnos)
    pos_c = np.minimum(pos, len(tj.docnos) - 1)
    hit = tj.docnos[pos_c] == docnos
    g = tj.grades[pos_c]
    rel = np.where(hit, np.where(g < 0, UNJUDGED, g), NONPOOL)
    return rel.astype(np.int64)


@dataclass
class Batch:
    """Relevance of one run's ranked documents for a fixed list of topics, plus qrels facts."""

    qids: list[str]
    rel: np.ndarray  # (T, D) int64, PAD after num_ret
    num_ret: np.ndarray  # (T,)
    level_counts: list[np.ndarray]  # per topic
    level: int = 1
    _memo: dict = field(default_factory=dict, repr=False)

    @property
    def depth(self) -> int:
        return self.rel.shape[1]

    @cached_property
    def isrel(self) -> np.ndarray:
        return self.rel >= self.level

    @cached_property
    def cumrel(self) -> np.ndarray:
        return np.cumsum(self.isrel, axis=1, dtype=np.int64)

    @cached_property
    def ranks(self) -> np.ndarray:
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def num_rel(self) -> np.ndarray:
        lvl = max(self.level, 0)
        return np.array([int(c[lvl:].sum()) for c in self.level_counts], dtype=np.int64)

    @cached_property
    def num_nonrel_judged(self) -> np.ndarray:
        lvl = max(self.level, 0)
        return np.array([int(c[:lvl].sum()) for c in self.level_counts], dtype=np.int64)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        if self.depth == 0:
            return np.zeros(len(self.qids), dtype=np.int64)
        return self.cumrel[:, -1]

    def rel_at(self, k: int) -> np.ndarray:
        """Return the number of relevant documents in the top k of each topic."""
        if self.depth == 0 or k <= 0:
            return np.zeros(len(self.qids), dtype=np.int64)
        return self.cumrel[:, min(k, self.depth) - 1]

    @cached_property
    def prec_at_rel(self) -> np.ndarray:
        """Precision at each rank holding a relevant document, 0 elsewhere."""
        return np.where(self.isrel, self.cumrel / self.ranks, 0.0)

    @cached_property
    def discount(self) -> np.ndarray:
        return 1.0 / np.log2(np.arange(2, self.depth + 2, dtype=np.float64))


def make_batch(qrels_prepared: dict[str, TopicJudgments], run, qids: list[str], *, level: int = 1,
               max_docs: int | None = None, judged_only: bool = False) -> Batch:
    """Rank every topic of ``run`` listed in ``qids`` and look up relevance values.

    All topics are ranked in one sort (topic, then score descending); only topics with tied
    scores are re-ranked with the docno tie-break. Topics in ``qids`` that the run lacks get
    an empty ranking (used by ``-c``).
    """
    T = len(qids)
    rel_parts, score_parts, lens, doc_parts = [], [], [], []
    for q in qids:
        span = run.index.get(q)
        if span is None:
            lens.append(0)
            continue
        a, b = span
        docs = run.docnos[a:b]
        tj = qrels_prepared.get(q)
        if tj is None:
            rel_parts.append(np.full(b - a, NONPOOL, dtype=np.int64))
        else:
            rel_parts.append(np.fromiter(map(tj.lookup.get, docs, repeat(NONPOOL, b - a)), dtype=np.int64,
                                         count=b - a))
        score_parts.append(run.scores[a:b])
        doc_parts.append(docs)
        lens.append(b - a)
    lens_a = np.array(lens, dtype=np.int64)
    if lens_a.sum() == 0:
        return Batch(qids=list(qids), rel=np.full((T, 0), PAD, dtype=np.int64), num_ret=np.zeros(T, dtype=np.int64),
                     level_counts=_counts(qrels_prepared, qids), level=level)
    rel = np.concatenate(rel_parts)
    scores = np.concatenate(score_parts)
    tidx = np.repeat(np.arange(T), lens_a)
    order = np.lexsort((-scores, tidx))
    ss, st = scores[order], tidx[order]
    tie = (ss[1:] == ss[:-1]) & (st[1:] == st[:-1])
    starts = np.concatenate(([0], np.cumsum(lens_a)[:-1]))
    if tie.any():
        docs_flat = [d for part in doc_parts for d in part]
        for t in np.unique(st[1:][tie]).tolist():
            a, b = int(starts[t]), int(starts[t] + lens_a[t])
            seg = order[a:b]
            dn = np.array([docs_flat[i] for i in seg.tolist()])
            order[a:b] = seg[rank_topic(dn, scores[seg])]
    rel_sorted = rel[order]
    rank = np.arange(len(order)) - starts[st]
    if max_docs is not None:
        keep = rank < max_docs
        rel_sorted, st, rank = rel_sorted[keep], st[keep], rank[keep]
    if judged_only:
        keep = rel_sorted >= 0
        rel_sorted, st = rel_sorted[keep], st[keep]
        counts = np.bincount(st, minlength=T)
        new_starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rank = np.arange(len(st)) - new_starts[st]
    num_ret = np.bincount(st, minlength=T).astype(np.int64)
    depth = int(num_ret.max()) if T else 0
    mat = np.full((T, depth), PAD, dtype=np.int64)
    mat[st, rank] = rel_sorted
    return Batch(qids=list(qids), rel=mat, num_ret=num_ret, level_counts=_counts(qrels_prepared, qids), level=level)


def _counts(prepared: dict[str, TopicJudgments], qids: list[str]) -> list[np.ndarray]:
    empty = np.zeros(0, dtype=np.int64)
    return [prepared[q].level_counts if q in prepared else empty for q in qids]
