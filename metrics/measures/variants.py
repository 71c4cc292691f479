"""Textbook variants of trec_eval measures, under names that say how they differ (not in all_trec).

Each function takes a ``Batch`` and its parameters and returns ``(output_name, values)``
pairs like the trec_eval measures. Gains are the qrels grades (negative grades and
documents absent from the qrels give 0); the ideal ranking is built from every judged
document of the topic, as trec_eval does. See docs/metrics.md for the formulas.
"""

from __future__ import annotations

import numpy as np

from .batch import Batch
from .trec import _safe_div


def _grades(b: Batch) -> np.ndarray:
    """Linear gain per ranked document: the grade if positive, else 0 (PAD cells give 0)."""
    return np.where(b.rel > 0, b.rel, 0).astype(np.float64)


def _ideal_grades(b: Batch, t: int) -> np.ndarray:
    """Positive grades of topic t's judged documents, highest first."""
    c = np.asarray(b.level_counts[t])
    levels = np.repeat(np.arange(len(c)), c)[::-1]
    return levels[levels > 0].astype(np.float64)


def log2i_discount(n: int) -> np.ndarray:
    """Järvelin & Kekäläinen's discount with base 2: 1 at rank 1, 1/log2(i) from rank 2.

    >>> [round(x, 4) for x in log2i_discount(3).tolist()]
    [1.0, 1.0, 0.6309]
    """
    ranks = np.arange(1, n + 1, dtype=np.float64)
    return np.where(ranks < 2, 1.0, 1.0 / np.log2(np.maximum(ranks, 2.0)))


def log2i1_discount(n: int) -> np.ndarray:
    """trec_eval's (and Burges') discount 1/log2(i + 1)."""
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def _cut_sums(gains: np.ndarray, disc: np.ndarray, ks) -> list[np.ndarray]:
    """Per topic, the sum of gains*discount over the top k, for each k."""
    T, D = gains.shape
    if D == 0:
        return [np.zeros(T) for _ in ks]
    cum = np.cumsum(gains * disc[None, :D], axis=1)
    return [cum[:, min(k, D) - 1] for k in ks]


def _ideal_cut_sums(b: Batch, ks, gain_fn, disc_fn) -> list[np.ndarray]:
    out = [np.zeros(len(b.qids)) for _ in ks]
    for t in range(len(b.qids)):
        ig = gain_fn(_ideal_grades(b, t))
        if not len(ig):
            continue
        cum = np.cumsum(ig * disc_fn(len(ig)))
        for j, k in enumerate(ks):
            out[j][t] = cum[min(k, len(cum)) - 1]
    return out


def _linear(g: np.ndarray) -> np.ndarray:
    return g


def _exponential(g: np.ndarray) -> np.ndarray:
    return np.where(g > 0, np.exp2(g) - 1.0, 0.0)


def recall_capped(b: Batch, params):
    """Recall@k over min(R, k): relevant in the top k / min(#relevant, k) (seed 000).

    trec_eval's ``recall_k`` divides by R, so it cannot reach 1 when R > k; this form can.
    Numerically it equals trec_eval's ``relative_P_k``.
    """
    return [(f"recall_capped_{k}", _safe_div(b.rel_at(k), np.minimum(b.num_rel, k))) for k in params]


def ndcg_exp_cut(b: Batch, params):
    """nDCG@k with exponential gain 2^rel - 1 and discount 1/log2(i+1) (Burges et al.; seed 000)."""
    ks = list(params)
    dcg = _cut_sums(_exponential(_grades(b)), log2i1_discount(b.depth), ks)
    idcg = _ideal_cut_sums(b, ks, _exponential, log2i1_discount)
    return [(f"ndcg_exp_cut_{k}", _safe_div(d, i)) for k, d, i in zip(ks, dcg, idcg)]


def cg_cut(b: Batch, params):
    """Cumulated gain CG@k: the sum of the grades of the top k (no discount)."""
    ks = list(params)
    return [(f"cg_cut_{k}", v) for k, v in zip(ks, _cut_sums(_grades(b), np.ones(b.depth), ks))]


def ncg_cut(b: Batch, params):
    """Normalised cumulated gain CG@k / ICG@k (ideal CG over all judged documents)."""
    ks = list(params)
    cg = _cut_sums(_grades(b), np.ones(b.depth), ks)
    icg = _ideal_cut_sums(b, ks, _linear, lambda n: np.ones(n))
    return [(f"ncg_cut_{k}", _safe_div(c, i)) for k, c, i in zip(ks, cg, icg)]


def dcg_log2i_cut(b: Batch, params):
    """DCG@k in the form rel_1 + sum_{i>=2} rel_i / log2 i (Järvelin & Kekäläinen, base 2; seeds 001-004)."""
    ks = list(params)
    return [(f"dcg_log2i_cut_{k}", v) for k, v in zip(ks, _cut_sums(_grades(b), log2i_discount(b.depth), ks))]


def idcg_log2i_cut(b: Batch, params):
    """Ideal DCG@k in the rel_1 + sum rel_i / log2 i form (grades of all judged docs, best first)."""
    ks = list(params)
    return [(f"idcg_log2i_cut_{k}", v) for k, v in zip(ks, _ideal_cut_sums(b, ks, _linear, log2i_discount))]


def ndcg_log2i_cut(b: Batch, params):
    """nDCG@k in the rel_1 + sum rel_i / log2 i form: DCG@k / IDCG@k."""
    ks = list(params)
    dcg = _cut_sums(_grades(b), log2i_discount(b.depth), ks)
    idcg = _ideal_cut_sums(b, ks, _linear, log2i_discount)
    return [(f"ndcg_log2i_cut_{k}", _safe_div(d, i)) for k, d, i in zip(ks, dcg, idcg)]


def recip_rank_cut(b: Batch, params):
    """Reciprocal rank with threshold S_h: 1/rank of the first relevant doc if rank <= S_h, else 0 (seed 002)."""
    T = len(b.qids)
    if b.depth == 0:
        return [(f"recip_rank_cut_{k}", np.zeros(T)) for k in params]
    anyrel = b.isrel.any(axis=1)
    first = np.argmax(b.isrel, axis=1) + 1
    return [(f"recip_rank_cut_{k}", np.where(anyrel & (first <= k), 1.0 / first, 0.0)) for k in params]


def _f_beta(p: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    b2 = beta * beta
    return _safe_div((1 + b2) * p * r, b2 * p + r)


def _cut_beta_name(prefix: str, k: int, beta: float) -> str:
    return f"{prefix}_{k}" if beta == 1.0 else f"{prefix}_{k}_beta{beta:g}"


def f_cut(b: Batch, params):
    """F_beta@k = (1+beta^2) P@k R@k / (beta^2 P@k + R@k), P@k dividing by k, R@k by #relevant."""
    out = []
    for k, beta in params:
        p = b.rel_at(k) / float(k)
        r = _safe_div(b.rel_at(k), b.num_rel)
        out.append((_cut_beta_name("F_cut", k, beta), _f_beta(p, r, beta)))
    return out


def e_cut(b: Batch, params):
    """van Rijsbergen's E@k = 1 - F_beta@k (lower is better; seed 002's E(j) with b = beta)."""
    return [(name.replace("F_cut", "E_cut", 1), 1.0 - v) for name, v in f_cut(b, params)]


def e_set(b: Batch, params):
    """E on the retrieved set: 1 - trec_eval's set_F with the same parameter x, (x+1)PR/(xP+R) (x is not squared)."""
    from .trec import set_f

    return [("E_set", 1.0 - set_f(b, params)[0][1])]
