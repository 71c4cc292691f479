"""Graded measures of trec_eval 10.0 (ndcg family) and the extras trec_eval lacks.

``ndcg``, ``dcg``, ``ideal_dcg``, ``Rndcg`` and ``ndcg_rel`` accept trec_eval's gain
remapping (``ndcg.1=0.5,2=2``): a level not listed keeps its grade as gain. The ideal
ranking is built from every judged document of the topic. ``ndcg_cut`` always uses the
raw grade as gain (as trec_eval's m_ndcg_cut.c does).
"""

from __future__ import annotations

import numpy as np

from ..cparse import c_atol
from .batch import NONPOOL, PAD, UNJUDGED, Batch
from .trec import _safe_div


def _gain_table(counts: np.ndarray, remap: dict[int, float]) -> tuple[dict[int, float], list[tuple[float, int]]]:
    """Return {grade: gain} and the ideal (gain, count) list sorted by decreasing gain."""
    gains = {int(k): float(v) for k, v in remap.items()}
    ideal = []
    for lvl, n in enumerate(counts.tolist()):
        g = gains.setdefault(lvl, float(lvl))
        if n:
            ideal.append((g, n))
    ideal.sort(key=lambda x: -x[0])
    return gains, ideal


def _gain_matrix(b: Batch, remap: dict[int, float]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Return the gain of every ranked document (T, D) and each topic's ideal gains, highest first.

    Computed once per batch and gain mapping (ndcg, ndcg_rel and Rndcg share it); the arrays
    are shared, so callers must not change them.
    """
    key = ("gains", tuple(sorted(remap.items())))
    if key in b._memo:
        return b._memo[key]
    if not remap:  # the grades are the gains
        G = np.where(b.rel > 0, b.rel, 0).astype(np.float64)
        matrix, lengths = b.ideal_grades
        ideals = [matrix[t, :n] for t, n in enumerate(lengths.tolist())]
    else:
        G, ideals = _remapped_gain_matrix(b, remap)
    b._memo[key] = G, ideals
    return G, ideals


def _remapped_gain_matrix(b: Batch, remap: dict[int, float]) -> tuple[np.ndarray, list[np.ndarray]]:
    T = len(b.qids)
    G = np.zeros(b.rel.shape)
    ideals = []
    for t in range(T):
        gains, ideal = _gain_table(b.level_counts[t], remap)
        row = b.rel[t]
        g = np.zeros(len(row))
        for lvl, val in gains.items():
            g[row == lvl] = val
        G[t] = g
        parts = [np.full(n, gv) for gv, n in ideal if gv > 0]
        ig = np.concatenate(parts) if parts else np.zeros(0)
        ideals.append(ig)
    return G, ideals


_DISC = np.zeros(0)


def _disc(n: int) -> np.ndarray:
    """Return 1/log2(rank+1) for ranks 1..n (a view of one array grown on demand)."""
    global _DISC
    if len(_DISC) < n:
        _DISC = 1.0 / np.log2(np.arange(2, max(n, 2 * len(_DISC)) + 2, dtype=np.float64))
    return _DISC[:n]


def _dcg_ideal(b: Batch, params) -> tuple[np.ndarray, np.ndarray]:
    remap = dict(params or {})
    G, ideals = _gain_matrix(b, remap)
    dcg = (G * b.discount).sum(axis=1) if b.depth else np.zeros(len(b.qids))
    idcg = np.array([(ig * _disc(len(ig))).sum() for ig in ideals]) if ideals else np.zeros(0)
    return dcg, idcg


def ndcg(b: Batch, params):
    dcg, idcg = _dcg_ideal(b, params)
    return [("ndcg", _safe_div(dcg, np.where(idcg > 0, idcg, 0)))]


def dcg(b: Batch, params):
    return [("dcg", _dcg_ideal(b, params)[0])]


def ideal_dcg(b: Batch, params):
    return [("ideal_dcg", _dcg_ideal(b, params)[1])]


def ndcg_cut(b: Batch, params):
    T = len(b.qids)
    G = _gain_matrix(b, {})[0]
    wg = G * b.discount if b.depth else G
    cum = np.cumsum(wg, axis=1) if b.depth else np.zeros((T, 0))
    ideal, _ = b.ideal_grades
    W = ideal.shape[1]
    # zero padding past a topic's ideal length keeps its ideal DCG at every deeper cutoff
    icum = np.cumsum(ideal * _disc(W), axis=1) if W else np.zeros((T, 1))
    out = []
    for k in params:
        d = cum[:, min(k, b.depth) - 1] if b.depth else np.zeros(T)
        i = icum[:, min(k, max(W, 1)) - 1]
        out.append((f"ndcg_cut_{k}", _safe_div(d, i)))
    return out


def _ideal_list(b: Batch, t: int, remap) -> tuple[dict[int, float], list[float]]:
    gains, ideal = _gain_table(b.level_counts[t], dict(remap or {}))
    lst = []
    for g, n in ideal:
        if g > 0:
            lst.extend([g] * n)
    return gains, lst


def rndcg(b: Batch, params):
    """trec_eval's experimental Rndcg: nDCG averaged at each change of ideal gain level, all topics at once.

    At each rank c where the ideal gain changes (down to 0 after the last ideal document) the
    ratio DCG/ideal DCG of the ranks before c is taken; a ranking longer than the ideal plus
    one adds the ratio of its whole DCG. No ratio at all while the topic has relevant
    documents (``-l 0`` with only grade 0) is 0/0 in trec_eval: NaN, printed ``-nan``.
    Ratios are summed rank by rank (cumsum). ``rndcg_loop`` is m_Rndcg.c step by step, kept
    as the reference the tests compare with.
    """
    remap = dict(params or {})
    G, ideals = _gain_matrix(b, remap)
    T, D = G.shape
    lengths = np.array([len(i) for i in ideals], dtype=np.int64)
    W = int(lengths.max(initial=0))
    out = np.zeros(T)
    scored = b.num_rel > 0
    out[scored & (lengths == 0)] = np.nan
    if not W:
        return [("Rndcg", out)]
    ideal = np.zeros((T, W))
    for t, ig in enumerate(ideals):
        ideal[t, :len(ig)] = ig
    logs = np.log2(np.arange(2, max(D, W) + 2, dtype=np.float64))
    cum = np.cumsum(G / logs[:D], axis=1) if D else np.zeros((T, 1))
    icum = np.cumsum(ideal / logs[:W], axis=1)
    j = np.arange(W)
    last = lengths[:, None] - 1
    change = (j == last) | ((j < last) & np.append(ideal[:, 1:] != ideal[:, :-1], np.zeros((T, 1), bool), axis=1))
    n = b.num_ret
    at = np.minimum(j, np.maximum(n, 1)[:, None] - 1) if D else np.zeros((T, W), dtype=np.int64)
    before = np.where(n[:, None] > 0, np.take_along_axis(cum, at, axis=1), 0.0)
    ratios = np.divide(before, icum, out=np.zeros((T, W)), where=change)
    total = np.cumsum(ratios, axis=1)[:, -1]
    count = change.sum(axis=1)
    longer = n > lengths + 1
    rows = np.flatnonzero(longer & scored & (lengths > 0))
    total[rows] += cum[rows, n[rows] - 1] / icum[rows, lengths[rows] - 1]
    count = count + longer
    ok = scored & (lengths > 0)
    out[ok] = total[ok] / count[ok]
    return [("Rndcg", out)]


def rndcg_loop(b: Batch, params):
    """trec_eval's experimental Rndcg: ndcg averaged at each change of ideal gain level (m_Rndcg.c's loop)."""
    out = np.zeros(len(b.qids))
    for t in range(len(b.qids)):
        if b.num_rel[t] == 0:
            continue
        gains, ideal = _ideal_list(b, t, params)
        row = b.rel[t, : int(b.num_ret[t])].tolist()
        nret = len(row)

        def ideal_at(i: int, ideal: list[float] = ideal) -> float:
            return ideal[i] if i < len(ideal) else 0.0

        res = ideal_d = s = 0.0
        changes = 0
        old = ig = ideal_at(0)
        i = 0
        while i < nret and ig > 0:
            g = gains.get(row[i], 0.0)
            ig = ideal_at(i)
            if ig != old:
                if ideal_d > 0:
                    s += res / ideal_d
                    changes += 1
                old = ig
            if g != 0:
                res += g / np.log2(i + 2)
            if ig > 0:
                ideal_d += ig / np.log2(i + 2)
            i += 1
        if i < nret:
            while i < nret:
                g = gains.get(row[i], 0.0)
                if g != 0:
                    res += g / np.log2(i + 2)
                i += 1
            if ideal_d > 0:
                s += res / ideal_d
                changes += 1
        while ig > 0:
            ig = ideal_at(i)
            if ig != old:
                if ideal_d > 0:
                    s += res / ideal_d
                    changes += 1
                old = ig
            if ig > 0:
                ideal_d += ig / np.log2(i + 2)
            i += 1
        out[t] = s / changes if changes else np.nan
    return [("Rndcg", out)]


def ndcg_rel(b: Batch, params):
    """trec_eval's experimental ndcg_rel: nDCG averaged over the ranks of relevant documents, vectorised.

    At each retrieved document of positive gain, DCG/ideal DCG so far; each relevant document
    not retrieved adds the final DCG over the whole ideal DCG; the sum is divided by the number
    of positive ideal gains. ``ndcg_rel_loop`` is m_ndcg_rel.c step by step (the tests' reference).
    """
    remap = dict(params or {})
    G, ideals = _gain_matrix(b, remap)
    T, D = G.shape
    out = np.zeros(T)
    if not T:
        return [("ndcg_rel", out)]
    width = max(D, max((len(i) for i in ideals), default=0))
    logs = np.log2(np.arange(2, width + 2, dtype=np.float64))
    IG = np.zeros((T, width))
    for t, ig in enumerate(ideals):
        IG[t, :len(ig)] = ig
    icum = np.cumsum(IG / logs, axis=1)
    cum = np.cumsum(G / logs[:D], axis=1) if D else np.zeros((T, 0))
    positive = G > 0
    ratio = np.divide(cum, icum[:, :D], out=np.zeros((T, D)), where=positive)
    s = ratio.sum(axis=1)
    L = np.array([len(i) for i in ideals], dtype=np.int64)
    final = cum[np.arange(T), np.maximum(b.num_ret, 1) - 1] if D else np.zeros(T)
    final = np.where(b.num_ret > 0, final, 0.0)
    ideal_total = icum[:, -1] if width else np.zeros(T)
    s = s + _safe_div((L - positive.sum(axis=1)) * final, ideal_total)
    has = (L > 0) & (s > 0)
    out[has] = s[has] / L[has]
    return [("ndcg_rel", out)]


def ndcg_rel_loop(b: Batch, params):
    """trec_eval's experimental ndcg_rel: ndcg averaged over the ranks of relevant documents (m_ndcg_rel.c's loop)."""
    out = np.zeros(len(b.qids))
    for t in range(len(b.qids)):
        gains, ideal = _ideal_list(b, t, params)
        if not ideal:
            continue
        row = b.rel[t, : int(b.num_ret[t])].tolist()
        res = ideal_d = s = 0.0
        n_rel_ret = 0
        for i in range(len(row)):
            g = gains.get(row[i], 0.0)
            if g != 0:
                res += g / np.log2(i + 2)
            if i < len(ideal):
                ideal_d += ideal[i] / np.log2(i + 2)
            if g > 0:
                s += res / ideal_d
                n_rel_ret += 1
        for i in range(len(row), len(ideal)):
            ideal_d += ideal[i] / np.log2(i + 2)
        s += (len(ideal) - n_rel_ret) * res / ideal_d
        out[t] = s / len(ideal) if s > 0 else 0.0
    return [("ndcg_rel", out)]


def judged_at(b: Batch, params):
    """Fraction of the top k that appears in the qrels (any grade); divides by k."""
    if not b.depth:
        return [(f"judged_{k}", np.zeros(len(b.qids))) for k in params]
    cum = np.cumsum((b.rel >= 0) | (b.rel == -2), axis=1)
    return [(f"judged_{k}", cum[:, min(k, b.depth) - 1] / float(k)) for k in params]


def _persistence(params) -> float:
    p = 0.9  # trec_eval's default
    for key, value in params or ():
        if key == "p":
            p = float(value)
    return p


def judged_ret_at(b: Batch, params):
    """Fraction of the top k present in the qrels over min(k, retrieved): ir_measures' Judged@k (0 with nothing retrieved)."""
    if not b.depth:
        return [(f"judged_ret_{k}", np.zeros(len(b.qids))) for k in params]
    cum = np.cumsum((b.rel >= 0) | (b.rel == -2), axis=1)
    out = []
    for k in params:
        top = np.minimum(b.num_ret, k)
        hits = cum[np.arange(len(b.qids)), np.clip(top - 1, 0, None)]
        out.append((f"judged_ret_{k}", _safe_div(np.where(top > 0, hits, 0), top)))
    return out


def rbp(b: Batch, params):
    """Rank-biased precision (Moffat & Zobel 2008): (1-p) * sum of gain_i p^(i-1), p from ``rbp.p=0.9``.

    Gains as trec_eval's m_rbp.c intends them: each level's gain (its grade, or a
    ``level=gain`` pair), scaled to [0, 1] by (gain - min) / (max - min) over the topic's
    levels when a gain lies outside [0, 1]. trec_eval 10.0 leaves min and max uninitialised,
    so its own values are not reproducible (see docs/metrics.md); this is the definition.
    """
    p = _persistence(params)
    remap = {int(c_atol(k)): float(v) for k, v in (params or ()) if k != "p"}
    T = len(b.qids)
    out = np.zeros(T)
    if not b.depth:
        return [("rbp", out)]
    weights = p ** np.arange(b.depth, dtype=np.float64)
    if not remap:
        return [("rbp", _rbp_grades(b, p, weights))]
    for t in range(T):
        levels = range(len(b.level_counts[t]))
        gains = {lvl: remap.get(lvl, float(lvl)) for lvl in levels}
        gains.update(remap)
        if not gains:
            continue
        lo, hi = min(gains.values()), max(gains.values())
        if lo < 0 or hi > 1:
            gains = {k: (g - lo) / (hi - lo) for k, g in gains.items()}
        n = int(b.num_ret[t])
        row = b.rel[t, :n]
        g = np.zeros(n)
        for lvl, gv in gains.items():
            if gv:
                g[row == lvl] = gv
        out[t] = (1.0 - p) * float(g @ weights[:n])
    return [("rbp", out)]


def _rbp_grades(b: Batch, p: float, weights: np.ndarray) -> np.ndarray:
    """rbp with the grades as gains, scaled by the topic's top grade when it exceeds 1 (as ``rbp``'s loop).

    The gains of all topics are formed at once; each topic's weighted sum stays one dot
    product over its ranking, as in the loop, so the values agree to the last bit.
    """
    top = np.array([len(c) - 1 for c in b.level_counts], dtype=np.float64)  # -1: no judged grade >= 0
    G = _gain_matrix(b, {})[0]
    scale = np.where(top > 1, top, 1.0)
    scaled = np.where(top[:, None] > 1, (G - 0.0) / (scale[:, None] - 0.0), G)  # (g - lo) / (hi - lo), lo = 0
    out = np.zeros(len(top))
    for t, n in enumerate(b.num_ret.tolist()):
        if top[t] >= 0:
            out[t] = (1.0 - p) * float(scaled[t, :n] @ weights[:n])
    return out


def rbp_resid(b: Batch, params):
    """trec_eval's rbp_resid: p^num_ret + (1-p) * sum of p^(i-1) over unjudged ranks i; 0 with none unjudged."""
    p = _persistence(params)
    out = np.zeros(len(b.qids))
    if not b.depth:
        return [("rbp_resid", out)]
    weights = p ** np.arange(b.depth, dtype=np.float64)
    unjudged = (b.rel < 0) & (b.rel != PAD)
    resid = p ** b.num_ret.astype(np.float64) + (1.0 - p) * (unjudged * weights).sum(axis=1)
    return [("rbp_resid", np.where(unjudged.any(axis=1), resid, 0.0))]


def unj_at(b: Batch, params):
    """trec_eval's unj_k: documents in the top k absent from the qrels or with a negative grade, divided by k."""
    if not b.depth:
        return [(f"unj_{k}", np.zeros(len(b.qids))) for k in params]
    cum = np.cumsum((b.rel == NONPOOL) | (b.rel == UNJUDGED), axis=1)
    return [(f"unj_{k}", cum[:, min(k, b.depth) - 1] / float(k)) for k in params]


def bin_g(b: Batch, _p=None):
    """trec_eval's experimental binG: mean over relevant docs of 1/log2(2 + non-relevant before it).

    Every retrieved document below the relevance level (judged non-relevant or not in the
    qrels) counts as "non-relevant before"; relevant documents not retrieved contribute 0.
    """
    out = np.zeros(len(b.qids))
    if b.depth == 0:
        return [("binG", out)]
    ranks0 = np.arange(b.depth, dtype=np.float64)
    nonrel_before = ranks0 + 1 - b.cumrel  # at a relevant doc: i - (rel_so_far - 1)
    contrib = np.where(b.isrel, 1.0 / np.log2(2.0 + np.where(b.isrel, nonrel_before, 0.0)), 0.0)
    total = contrib.sum(axis=1)
    return [("binG", np.where(b.num_rel_ret > 0, _safe_div(total, b.num_rel), 0.0))]


def _g_gains(counts: np.ndarray, params) -> list[tuple[int, float, int]]:
    """trec_eval's setup_gains: (level, gain, number judged at level), sorted by increasing gain.

    Parameter pairs come first, then every level 0..max not given a gain (gain = level). The
    sort uses trec_eval's comparator ``(int)(gain1 - gain2)``, under which gains less than 1
    apart compare equal; Python's stable sort keeps their input order (glibc's merge sort does too).
    """
    import functools

    entries: list[list] = [[int(lvl), float(g), 0] for lvl, g in (params or ())]
    for lvl, n in enumerate(np.asarray(counts).tolist()):
        for e in entries:
            if e[0] == lvl:
                e[2] = int(n)
                break
        else:
            entries.append([lvl, float(lvl), int(n)])

    def cmp(a, b_):
        return int(a[1] - b_[1])  # C truncation toward zero

    entries.sort(key=functools.cmp_to_key(cmp))
    return [tuple(e) for e in entries]


def _g_topic(row: list[int], gains: list[tuple[int, float, int]]) -> float:
    lookup: dict[int, float] = {}
    for lvl, g, _n in gains:
        lookup.setdefault(lvl, g)  # get_gain returns the first entry with that level
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    cur = len(gains) - 1
    ideal = gains[cur][1] if cur >= 0 else 0.0
    at_level = 0
    min_cost = 1.0
    i = 0
    n = len(row)
    while i < n and ideal > 0.0:
        g = lookup.get(row[i], 0.0)
        sum_results += g
        at_level += 1
        while cur >= 0 and at_level > gains[cur][2]:
            at_level = 1
            cur -= 1
            ideal = gains[cur][1] if cur >= 0 else 0.0
        if ideal > 0.0:
            sum_ideal += ideal
        sum_cost += ideal if ideal >= min_cost else min_cost
        if g != 0:
            results_g += g / np.log2(2 + sum_cost - sum_results)
        i += 1
    while i < n:
        g = lookup.get(row[i], 0.0)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            results_g += g / np.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal > 0.0:
        at_level += 1
        while cur >= 0 and at_level > gains[cur][2]:
            at_level = 1
            cur -= 1
            ideal = gains[cur][1] if cur >= 0 else 0.0
        if ideal > 0.0:
            sum_ideal += ideal
    return float(results_g / sum_ideal) if sum_ideal > 0.0 else 0.0


def _g_vector(row: np.ndarray, gains: list[tuple[int, float, int]]) -> float:
    """m_G.c's value of one topic without its per-rank loop (``_g_topic`` is the loop, for the tests).

    The ideal gain of rank i walks the levels from the last of the sorted list down, each
    repeated as often as it is judged; the walk stops after the first rank whose ideal gain is
    not positive. Cost per rank is max(ideal gain, 1), 1 after the walk stops.
    """
    if not gains or gains[-1][1] <= 0.0:
        return 0.0
    lookup: dict[int, float] = {}
    for lvl, gain, _n in gains:
        lookup.setdefault(lvl, gain)
    seq = np.concatenate([np.full(n, g) for _lvl, g, n in reversed(gains) if n > 0] or [np.zeros(0)])
    stop = np.flatnonzero(seq <= 0.0)
    if len(stop):
        seq = seq[:stop[0]]
    sum_ideal = float(sum(seq.tolist()))
    n = len(row)
    if sum_ideal <= 0.0 or n == 0:
        return 0.0
    cost = np.ones(n)
    k = min(len(seq), n)
    cost[:k] = np.maximum(seq[:k], 1.0)
    g = np.zeros(n)
    for lvl, gv in lookup.items():
        if gv != 0:
            g[row == lvl] = gv
    nz = g != 0
    denom = np.log2(2.0 + np.cumsum(cost) - np.cumsum(g))
    return float(sum((g[nz] / denom[nz]).tolist())) / sum_ideal


def g_measure(b: Batch, params):
    """trec_eval's experimental G (normalised gain): gain / log2(2 + ideal cost - results gain so far).

    Follows m_G.c step by step (including its sort of gains and its cost floor of 1 per rank);
    gains are remappable as ``G.1=3.5,2=9``. The relevance level ``-l`` does not apply.
    """
    if not params:
        return [("G", _g_grades(b))]
    out = np.zeros(len(b.qids))
    for t in range(len(b.qids)):
        gains = _g_gains(b.level_counts[t], params)
        out[t] = _g_vector(b.rel[t, : int(b.num_ret[t])], gains)
    return [("G", out)]


def _g_grades(b: Batch) -> np.ndarray:
    """G with the grades as gains, all topics at once (``_g_vector``'s arithmetic, element for element).

    With integer gains m_G.c's sort is a plain ascending sort, so the ideal gain sequence is
    the ideal ranking's grades, highest first; a rank's cost is max(ideal gain, 1), and 1
    past the ideal ranking. Sums run rank by rank (cumsum), as the loop adds them.
    """
    T, D = b.rel.shape
    out = np.zeros(T)
    if not D:
        return out
    G = _gain_matrix(b, {})[0]
    ideal, _ = b.ideal_grades
    W = ideal.shape[1]
    cost = np.ones((T, D))
    cost[:, :min(W, D)] = np.maximum(ideal[:, :D], 1.0)
    denom = np.log2(2.0 + np.cumsum(cost, axis=1) - np.cumsum(G, axis=1))
    ranked = np.arange(D) < b.num_ret[:, None]
    contrib = np.divide(G, denom, out=np.zeros((T, D)), where=(G != 0) & ranked)
    total = np.cumsum(contrib, axis=1)[:, -1]
    sum_ideal = np.cumsum(ideal, axis=1)[:, -1] if W else np.zeros(T)
    np.divide(total, sum_ideal, out=out, where=sum_ideal > 0.0)
    return out
