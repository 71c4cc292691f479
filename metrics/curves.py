"""Vector-valued evaluation from the lecture notes: gain curves, 11-point PR curves, R-prec histograms.

These return arrays per topic plus their mean over topics (for plotting or tabulating),
not trec_eval lines. Rankings follow trec_eval (score descending, ties by docno
descending); gains are qrels grades, negative grades and unjudged documents giving 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluate import evaluate
from .io import Qrels, Run
from .measures.batch import make_batch, prepare_qrels
from .measures.variants import log2i1_discount, log2i_discount

__all__ = ["GainVectors", "PRCurve", "RPrecHistogram", "gain_vectors", "pr_curve_11pt", "rprec_histogram"]

RECALL_LEVELS = tuple(j / 10 for j in range(11))


def _topics(qrels: Qrels, run: Run, complete: bool) -> list[str]:
    qids = sorted(qrels.topics)
    return qids if complete else [q for q in qids if q in run.topics]


@dataclass
class GainVectors:
    """CG, DCG and their ideal and normalised vectors per rank (index 0 = rank 1).

    ``per_topic[qid]`` maps ``cg, dcg, icg, idcg, ncg, ndcg`` to arrays of length ``depth``.
    ``mean`` holds the averages over topics of ``cg, dcg, icg, idcg``, the seed's normalised
    curves ``ncg = mean cg / mean icg`` and ``ndcg = mean dcg / mean idcg`` (ratio of the
    averaged curves, as tabulated in seed 002), and ``mean_ncg`` / ``mean_ndcg``, the average
    of the per-topic normalised vectors (the usual nDCG averaging).
    """

    depth: int
    per_topic: dict[str, dict[str, np.ndarray]]
    mean: dict[str, np.ndarray]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


def gain_vectors(qrels: Qrels, run: Run, *, depth: int | None = None, gain: str = "linear",
                 discount: str = "log2i", complete: bool = False) -> GainVectors:
    """Return CG/DCG/ICG/IDCG/NCG/NDCG vectors per rank for every topic and averaged.

    ``gain``: ``linear`` (the grade) or ``exponential`` (2^grade - 1). ``discount``:
    ``log2i`` (DCG[1] = G[1], DCG[i] = DCG[i-1] + G[i]/log2 i — seed 002's form) or
    ``log2i1`` (G[i]/log2(i+1), trec_eval's). ``depth`` defaults to the longest ranking;
    a shorter ranking keeps its last cumulated value. The ideal vector sorts the grades of
    all judged documents of the topic. Topics: qrels topics in the run (all qrels topics
    with ``complete=True``, missing ones as empty rankings).

    >>> from metrics.io import qrels_from_dict, run_from_dict
    >>> gv = gain_vectors(qrels_from_dict({"q": {"a": 3, "b": 2}}), run_from_dict({"q": {"b": 2.0, "a": 1.0}}))
    >>> gv.per_topic["q"]["dcg"].tolist(), gv.per_topic["q"]["idcg"].tolist()
    ([2.0, 5.0], [3.0, 5.0])
    """
    if gain not in ("linear", "exponential"):
        raise ValueError("gain must be 'linear' or 'exponential'")
    if discount not in ("log2i", "log2i1"):
        raise ValueError("discount must be 'log2i' or 'log2i1'")
    if depth is not None and depth < 1:
        raise ValueError("depth must be >= 1")
    qids = _topics(qrels, run, complete)
    batch = make_batch(prepare_qrels(qrels), run, qids)
    D = depth if depth is not None else max(1, batch.depth)
    disc = (log2i_discount if discount == "log2i" else log2i1_discount)(D)

    def to_gain(g: np.ndarray) -> np.ndarray:
        g = np.where(g > 0, g, 0).astype(np.float64)
        return np.where(g > 0, np.exp2(g) - 1.0, 0.0) if gain == "exponential" else g

    per_topic: dict[str, dict[str, np.ndarray]] = {}
    for t, q in enumerate(qids):
        g = np.zeros(D)
        row = batch.rel[t, : min(int(batch.num_ret[t]), D)]
        g[: len(row)] = to_gain(row)
        c = np.asarray(batch.level_counts[t])
        ideal_levels = np.repeat(np.arange(len(c)), c)[::-1][:D]
        ig = np.zeros(D)
        ig[: len(ideal_levels)] = to_gain(ideal_levels)
        v = {"cg": np.cumsum(g), "dcg": np.cumsum(g * disc), "icg": np.cumsum(ig), "idcg": np.cumsum(ig * disc)}
        v["ncg"] = _ratio(v["cg"], v["icg"])
        v["ndcg"] = _ratio(v["dcg"], v["idcg"])
        per_topic[q] = v
    mean: dict[str, np.ndarray] = {}
    for key in ("cg", "dcg", "icg", "idcg"):
        mean[key] = np.mean([v[key] for v in per_topic.values()], axis=0) if per_topic else np.zeros(D)
    mean["ncg"] = _ratio(mean["cg"], mean["icg"])
    mean["ndcg"] = _ratio(mean["dcg"], mean["idcg"])
    for key in ("ncg", "ndcg"):
        mean[f"mean_{key}"] = np.mean([v[key] for v in per_topic.values()], axis=0) if per_topic else np.zeros(D)
    return GainVectors(depth=D, per_topic=per_topic, mean=mean)


@dataclass
class PRCurve:
    """Interpolated precision at recall 0.0, 0.1, …, 1.0 per topic and averaged over topics."""

    recall: tuple[float, ...]
    per_topic: dict[str, np.ndarray]
    mean: np.ndarray


def pr_curve_11pt(qrels: Qrels, run: Run, *, relevance_level: int = 1, complete: bool = False) -> PRCurve:
    """Return the textbook 11-point interpolated precision-recall curve per topic and averaged.

    P_interp(r_j) = max { P(k) : recall(k) >= r_j } over the ranks k holding a relevant
    document, 0 where no rank reaches r_j (seeds 002 and 004). This differs from trec_eval's
    ``iprec_at_recall`` in 10.0, which maps r_j to lround(r_j * R) relevant documents (so with
    R = 3, 40 % needs 1 document there but 2 here). A topic without relevant documents gives
    zeros and still counts in the average.

    >>> from metrics.io import qrels_from_dict, run_from_dict
    >>> c = pr_curve_11pt(qrels_from_dict({"q": {"a": 1, "b": 1}}), run_from_dict({"q": {"a": 2.0, "x": 1.5, "b": 1.0}}))
    >>> [round(x, 3) for x in c.per_topic["q"].tolist()]
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667, 0.667, 0.667]
    """
    qids = _topics(qrels, run, complete)
    batch = make_batch(prepare_qrels(qrels), run, qids, level=relevance_level)
    per_topic: dict[str, np.ndarray] = {}
    for t, q in enumerate(qids):
        R = int(batch.num_rel[t])
        curve = np.zeros(11)
        if R and batch.depth:
            hits = np.flatnonzero(batch.isrel[t])
            n_found = np.arange(1, len(hits) + 1)
            prec = n_found / (hits + 1.0)
            for j in range(11):
                # recall n/R >= j/10, compared exactly in integers: 10 n >= j R
                ok = 10 * n_found >= j * R
                curve[j] = prec[ok].max() if ok.any() else 0.0
        per_topic[q] = curve
    mean = np.mean(list(per_topic.values()), axis=0) if per_topic else np.zeros(11)
    return PRCurve(recall=RECALL_LEVELS, per_topic=per_topic, mean=mean)


@dataclass
class RPrecHistogram:
    """Per-topic R-precision difference RP_A(q) - RP_B(q) of two runs (seed 002's precision histogram)."""

    qids: list[str]
    diff: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def a_better(self) -> int:
        return int((self.diff > 0).sum())

    @property
    def b_better(self) -> int:
        return int((self.diff < 0).sum())

    @property
    def ties(self) -> int:
        return int((self.diff == 0).sum())

    def rows(self) -> list[tuple[str, float]]:
        """Return ``(qid, RP_A - RP_B)`` pairs in topic order, ready to plot as bars."""
        return list(zip(self.qids, self.diff.tolist()))


def rprec_histogram(qrels: Qrels, run_a: Run, run_b: Run, *, relevance_level: int = 1) -> RPrecHistogram:
    """Return RP_A(q) - RP_B(q) for every qrels topic that either run retrieved for.

    A topic one run lacks scores 0 for that run (trec_eval -c). Positive bars favour A.

    >>> from metrics.io import qrels_from_dict, run_from_dict
    >>> q = qrels_from_dict({"1": {"a": 1}, "2": {"b": 1}})
    >>> h = rprec_histogram(q, run_from_dict({"1": {"a": 1.0}, "2": {"x": 1.0}}), run_from_dict({"2": {"b": 1.0}}))
    >>> h.rows(), h.a_better, h.b_better
    ([('1', 1.0), ('2', -1.0)], 1, 1)
    """
    qids = sorted(q for q in qrels.topics if q in run_a.topics or q in run_b.topics)
    sub = Qrels(topics={q: qrels.topics[q] for q in qids}, name=qrels.name)
    ra = evaluate(sub, run_a, ["Rprec"], relevance_level=relevance_level, complete=True, warn=False)
    rb = evaluate(sub, run_b, ["Rprec"], relevance_level=relevance_level, complete=True, warn=False)
    a = np.array([ra.per_topic[q]["Rprec"] for q in qids], dtype=np.float64)
    b = np.array([rb.per_topic[q]["Rprec"] for q in qids], dtype=np.float64)
    return RPrecHistogram(qids=qids, diff=a - b, a=a, b=b)
