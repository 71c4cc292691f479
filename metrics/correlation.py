"""Rank correlation: between system rankings (tau-b, Spearman's rho, tau_ap) and between two document rankings.

System rankings are given as score mappings ``{system: score}`` (higher is better), e.g. the MAP of
each run under two qrels versions; both mappings must score the same systems. Document rankings are
sequences of docnos, best first, over the same documents (the lecture notes' Spearman and Kendall
formulas, seed 002 of Baeza-Yates & Ribeiro-Neto ch. 4).

>>> truth = {"bm25": 0.30, "rm3": 0.32, "dense": 0.41, "splade": 0.45}
>>> estimate = {"bm25": 0.20, "rm3": 0.22, "dense": 0.35, "splade": 0.31}
>>> round(kendall_tau_b(truth, estimate), 4), round(spearman_rho(truth, estimate), 4)
(0.6667, 0.8)
>>> round(tau_ap(truth, estimate), 4)    # the swap happens at the top, so tau_ap punishes it more
0.3333
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats

__all__ = [
    "discordant_ordered_pairs", "kendall_tau_b", "kendall_tau_from_discordant_pairs", "spearman_from_rank_differences",
    "spearman_rho", "squared_rank_differences", "tau_ap", "tau_ap_symmetric",
]


def _aligned(a: Mapping[str, float], b: Mapping[str, float]) -> tuple[list[str], np.ndarray, np.ndarray]:
    if set(a) != set(b):
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        raise ValueError(f"both rankings must score the same systems; only in the first: {only_a}, "
                         f"only in the second: {only_b}")
    if len(a) < 2:
        raise ValueError("a rank correlation needs at least 2 systems")
    names = sorted(a)
    x = np.array([float(a[s]) for s in names])
    y = np.array([float(b[s]) for s in names])
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("scores must be finite numbers")
    return names, x, y


def kendall_tau_b(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Return Kendall's tau-b between two system rankings (``scipy.stats.kendalltau``; ties handled by tau-b).

    nan when one ranking puts every system level (the coefficient is undefined).

    >>> kendall_tau_b({"x": 1, "y": 2, "z": 3}, {"x": 0.1, "y": 0.3, "z": 0.2})
    0.333...
    """
    _, x, y = _aligned(a, b)
    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(stats.kendalltau(x, y).statistic)


def spearman_rho(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Return Spearman's rho between two system rankings (``scipy.stats.spearmanr``: Pearson on mid-ranks).

    nan when one ranking puts every system level.

    >>> spearman_rho({"x": 1, "y": 2, "z": 3}, {"x": 0.1, "y": 0.3, "z": 0.2})
    0.5
    """
    _, x, y = _aligned(a, b)
    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(stats.spearmanr(x, y).statistic)


def _order(names: list[str], scores: np.ndarray, ties: str, which: str) -> list[str]:
    if ties not in ("error", "name"):
        raise ValueError('ties must be "error" or "name"')
    if ties == "error" and len(np.unique(scores)) < len(scores):
        raise ValueError(f"tau_ap is defined for rankings without ties, but the {which} ranking has tied scores; "
                         'pass ties="name" to break them by system name')
    # Stable sort of names (already alphabetical) by descending score: ties fall back to the name.
    return [names[i] for i in np.argsort(-scores, kind="stable")]


def tau_ap(truth: Mapping[str, float], estimate: Mapping[str, float], *, ties: str = "error") -> float:
    """Return Yilmaz, Aslam & Robertson's (SIGIR 2008) AP rank correlation of ``estimate`` against ``truth``.

    tau_ap = 2/(n-1) · Σ_{i=2..n} C(i)/(i-1) − 1, where C(i) counts the systems ranked above the i-th
    system of the estimate, in the estimate, that the truth also ranks above it. Unlike Kendall's tau,
    a swap near the top costs more than one near the bottom; it is asymmetric (see
    :func:`tau_ap_symmetric`). Tied scores make the ranking ambiguous: by default they raise
    ``ValueError``; ``ties="name"`` orders tied systems by name in both rankings.

    >>> truth = {"A": 4, "B": 3, "C": 2, "D": 1}
    >>> tau_ap(truth, {"A": 3, "B": 4, "C": 2, "D": 1})   # top two swapped: (0/1 + 2/2 + 3/3)·2/3 − 1
    0.333...
    >>> tau_ap(truth, {"A": 4, "B": 3, "C": 1, "D": 2})   # bottom two swapped: (1 + 1 + 2/3)·2/3 − 1
    0.777...
    """
    names, x, y = _aligned(truth, estimate)
    truth_rank = {s: i for i, s in enumerate(_order(names, x, ties, "truth"))}
    est = np.array([truth_rank[s] for s in _order(names, y, ties, "estimate")])
    n = len(est)
    # above[i, j] for j < i: the system at estimate rank j is above the one at rank i in the truth too.
    above = np.tril(est[None, :] < est[:, None], k=-1)
    c = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


def tau_ap_symmetric(a: Mapping[str, float], b: Mapping[str, float], *, ties: str = "error") -> float:
    """Return the mean of tau_ap in both directions, for when neither ranking is the ground truth.

    >>> round(tau_ap_symmetric({"A": 4, "B": 3, "C": 2, "D": 1}, {"A": 3, "B": 4, "C": 2, "D": 1}), 4)
    0.3333
    """
    return (tau_ap(a, b, ties=ties) + tau_ap(b, a, ties=ties)) / 2.0


def _positions(r1: Sequence[str], r2: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    if len(set(r1)) != len(r1) or len(set(r2)) != len(r2):
        raise ValueError("a ranking lists each document once")
    if set(r1) != set(r2):
        raise ValueError("both rankings must rank the same documents (the coefficient is defined only then)")
    if len(r1) < 2:
        raise ValueError("a rank correlation needs at least 2 documents")
    pos2 = {d: i + 1 for i, d in enumerate(r2)}
    return np.arange(1, len(r1) + 1), np.array([pos2[d] for d in r1])


def squared_rank_differences(r1: Sequence[str], r2: Sequence[str]) -> int:
    """Return Σ_j (s1_j − s2_j)², the squared position differences of each document in two rankings.

    Its maximum, for reversed rankings, is K(K²−1)/3.

    >>> squared_rank_differences(["a", "b", "c"], ["c", "b", "a"])
    8
    """
    s1, s2 = _positions(r1, r2)
    return int(np.sum((s1 - s2) ** 2))


def spearman_from_rank_differences(r1: Sequence[str], r2: Sequence[str]) -> float:
    """Return the lecture notes' Spearman coefficient 1 − 6·Σ(s1_j − s2_j)² / (K(K²−1)) of two document rankings.

    Equal to Spearman's rho for rankings without ties (seed 002: Σd² = 24 over 10 documents → 0.854).

    >>> r1 = ["d123", "d84", "d56", "d6", "d8", "d9", "d511", "d129", "d187", "d25"]
    >>> r2 = ["d56", "d123", "d84", "d8", "d6", "d187", "d9", "d511", "d25", "d129"]
    >>> squared_rank_differences(r1, r2), spearman_from_rank_differences(r1, r2)
    (24, 0.854...)
    """
    s1, _ = _positions(r1, r2)
    k = len(s1)
    return 1.0 - 6.0 * squared_rank_differences(r1, r2) / (k * (k * k - 1))


def discordant_ordered_pairs(r1: Sequence[str], r2: Sequence[str]) -> int:
    """Return Δ(R1, R2): the ordered pairs of each ranking ([d_k, d_l] with d_k ranked first) the other reverses.

    Both rankings contribute their K(K−1)/2 ordered pairs, so Δ counts every discordant pair twice.

    >>> discordant_ordered_pairs(["d123", "d84", "d56", "d6", "d8"], ["d56", "d123", "d84", "d8", "d6"])
    6
    """
    s1, s2 = _positions(r1, r2)
    discordant = np.sign(s1[:, None] - s1[None, :]) * np.sign(s2[:, None] - s2[None, :]) < 0
    return int(np.sum(discordant))


def kendall_tau_from_discordant_pairs(r1: Sequence[str], r2: Sequence[str]) -> float:
    """Return the lecture notes' Kendall tau 1 − 2·Δ(R1, R2) / (K(K−1)) of two document rankings.

    It is P(R1 = R2) − P(R1 ≠ R2) over the K(K−1) ordered pairs of both rankings, equal to Kendall's
    tau-a (and tau-b) for rankings of the same documents (seed 002: 6 of 20 discordant → 0.4).

    >>> kendall_tau_from_discordant_pairs(["d123", "d84", "d56", "d6", "d8"], ["d56", "d123", "d84", "d8", "d6"])
    0.4
    """
    k = len(r1)
    return 1.0 - 2.0 * discordant_ordered_pairs(r1, r2) / (k * (k - 1))
