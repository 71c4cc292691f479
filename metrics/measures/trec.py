"""trec_eval 10.0 measures, each computed for all topics of a batch at once.

Every function takes a ``Batch`` and the measure's parameters and returns a list of
``(output_name, per_topic_values)`` in trec_eval's print order. Semantics follow the
trec_eval 10.0 C sources (m_*.c); comments name the non-obvious choices.
"""

from __future__ import annotations

import math

import numpy as np

from .batch import Batch


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


def fmt_cut(v: float) -> str:
    """Format a real-valued cutoff the way trec_eval names it (``%3.2f``)."""
    return f"{v:3.2f}"


def num_ret(b: Batch, _p=None):
    return [("num_ret", b.num_ret.astype(np.float64))]


def num_rel(b: Batch, _p=None):
    return [("num_rel", b.num_rel.astype(np.float64))]


def num_rel_ret(b: Batch, _p=None):
    return [("num_rel_ret", b.num_rel_ret.astype(np.float64))]


def num_q(b: Batch, _p=None):
    return [("num_q", np.ones(len(b.qids)))]


def ap(b: Batch, _p=None) -> np.ndarray:
    if b.depth == 0:
        return np.zeros(len(b.qids))
    return _safe_div(b.prec_at_rel.sum(axis=1), b.num_rel)


def map_(b: Batch, _p=None):
    return [("map", ap(b))]


def gm_map(b: Batch, _p=None):
    return [("gm_map", ap(b))]


def rel_at_each(b: Batch, ks: np.ndarray) -> np.ndarray:
    """Return, per topic t, the number of relevant documents in its top ks[t] (0 where ks[t] <= 0)."""
    ks = np.asarray(ks, dtype=np.int64)
    if b.depth == 0:
        return np.zeros(len(ks))
    idx = np.clip(np.minimum(ks, b.depth) - 1, 0, None)
    hits = b.cumrel[np.arange(len(ks)), idx]
    return np.where(ks > 0, hits, 0)


def rprec(b: Batch, _p=None):
    r = b.num_rel
    return [("Rprec", _safe_div(rel_at_each(b, r), r))]


def bpref_values(b: Batch) -> np.ndarray:
    """trec_eval's bpref: unjudged documents are skipped; negative grades are unjudged (once per batch: gm_bpref too)."""
    if "bpref" not in b._memo:
        b._memo["bpref"] = _bpref(b)
    return b._memo["bpref"]


def _bpref(b: Batch) -> np.ndarray:
    if b.depth == 0:
        return np.zeros(len(b.qids))
    nonrel = (b.rel >= 0) & (b.rel < b.level)
    nonrel_before = np.cumsum(nonrel, axis=1)
    R = b.num_rel[:, None]
    N = b.num_nonrel_judged[:, None]
    denom = np.minimum(N, R).astype(np.float64)
    frac = np.divide(np.minimum(nonrel_before, R), denom, out=np.zeros(nonrel_before.shape), where=denom > 0)
    contrib = np.where(nonrel_before > 0, 1.0 - frac, 1.0)
    total = np.where(b.isrel, contrib, 0.0).sum(axis=1)
    return _safe_div(total, b.num_rel)


def bpref(b: Batch, _p=None):
    return [("bpref", bpref_values(b))]


def gm_bpref(b: Batch, _p=None):
    return [("gm_bpref", bpref_values(b))]


def recip_rank(b: Batch, _p=None):
    if b.depth == 0:
        return [("recip_rank", np.zeros(len(b.qids)))]
    anyrel = b.isrel.any(axis=1)
    first = np.argmax(b.isrel, axis=1)
    return [("recip_rank", np.where(anyrel, 1.0 / (first + 1), 0.0))]


def _interpolated(b: Batch) -> np.ndarray:
    """Interpolated precision at each relevant rank: max precision at any rank at or below it."""
    p = b.prec_at_rel
    return np.maximum.accumulate(p[:, ::-1], axis=1)[:, ::-1]


def _iprec_values(b: Batch, percents, cutoff=None) -> list[np.ndarray]:
    """Interpolated precision at each recall point (iprec_at_recall and 11pt_avg share one computation per batch)."""
    key = ("iprec", tuple(percents))
    if cutoff is not None:
        return _iprec(b, percents, cutoff)
    if key not in b._memo:
        b._memo[key] = _iprec(b, percents, None)
    return b._memo[key]


def _iprec(b: Batch, percents, cutoff) -> list[np.ndarray]:
    # trec_eval 10: cutoff in relevant documents is lround(pct * R) (9.x: (long)(pct*R + 0.9)).
    T = len(b.qids)
    out = [np.zeros(T) for _ in percents]
    if b.depth == 0:
        return out
    interp = _interpolated(b)
    nrr = b.num_rel_ret
    R = b.num_rel
    # Value when the cutoff is 0 relevant docs (or R == 0): interpolated precision at the
    # first relevant doc, or num_rel_ret/num_ret when nothing relevant was retrieved.
    first = np.argmax(b.isrel, axis=1)
    base = np.where(nrr > 0, interp[np.arange(T), first], _safe_div(nrr, b.num_ret))
    for j, pct in enumerate(percents):
        if cutoff is None:
            cut = _lround_array(pct * R.astype(np.float64))
        else:
            cut = np.array([cutoff(pct * r) for r in R.tolist()], dtype=np.int64)
        vals = np.zeros(T)
        zero = cut <= 0
        vals[zero] = base[zero]
        ok = (cut > 0) & (cut <= nrr)
        if ok.any():
            idx = np.argmax(b.cumrel >= cut[:, None], axis=1)
            vals[ok] = interp[np.arange(T), idx][ok]
        out[j] = vals
    return out


def _lround(x: float) -> int:
    """C lround: round half away from zero."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _lround_array(x: np.ndarray) -> np.ndarray:
    """``_lround`` of every element (the same floating-point steps)."""
    return np.where(x >= 0, np.floor(x + 0.5), -np.floor(-x + 0.5)).astype(np.int64)


def iprec_at_recall(b: Batch, params):
    vals = _iprec_values(b, params)
    return [(f"iprec_at_recall_{fmt_cut(p)}", v) for p, v in zip(params, vals)]


def p_at(b: Batch, params):
    return [(f"P_{k}", b.rel_at(k) / float(k)) for k in params]


def relstring(b: Batch, params):
    n = int(params[0]) if params else 10
    out = []
    for i in range(len(b.qids)):
        row = b.rel[i, : min(n, int(b.num_ret[i]))].tolist()
        out.append("".join(">" if r > 9 else str(r) if r >= 0 else "-" if r == -1 else "." if r == -2 else "<"
                           for r in row))
    return [("relstring", out)]


def recall_at(b: Batch, params):
    return [(f"recall_{k}", _safe_div(b.rel_at(k), b.num_rel)) for k in params]


INFAP_EPSILON = 0.00001


def infap(b: Batch, _p=None):
    """Inferred AP (Yilmaz & Aslam) as m_infap.c, over the whole batch at once; negative grades are pooled-but-unjudged.

    At the relevant document of rank j+1 (0-based j > 0): 1/(j+1) + j/(j+1) * (judged above / j)
    * (relevant above + eps) / (judged above but unjudged-marked + 2 eps); documents absent
    from the qrels only take up ranks. ``infap_loop`` is the C loop (the tests' reference).
    """
    T = len(b.qids)
    if not b.depth:
        return [("infAP", np.zeros(T))]
    r = b.rel
    rel = (r >= b.level) & (r >= 0)
    nonrel = (r >= 0) & (r < b.level)
    unj = r == -2
    rel_before: np.ndarray = np.cumsum(rel, axis=1) - rel
    nonrel_before: np.ndarray = np.cumsum(nonrel, axis=1) - nonrel
    judged_before = rel_before + nonrel_before + np.cumsum(unj, axis=1) - unj
    j = np.arange(b.depth, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * (judged_before / j)
                * ((rel_before + INFAP_EPSILON) / (rel_before + nonrel_before + 2 * INFAP_EPSILON)))
    term[:, 0] = 1.0
    s = np.where(rel, term, 0.0).sum(axis=1)
    nr = b.num_rel
    return [("infAP", np.where(nr > 0, s / np.where(nr > 0, nr, 1), s))]


def infap_loop(b: Batch, _p=None):
    """Inferred AP (Yilmaz & Aslam); negative qrels grades mark pooled-but-unjudged docs (m_infap.c's loop)."""
    T = len(b.qids)
    vals = np.zeros(T)
    for t in range(T):
        row = b.rel[t, : int(b.num_ret[t])].tolist()
        nonrel = rel = unj = 0
        s = 0.0
        for j, r in enumerate(row):
            if r == -1:
                continue
            if r == -2:
                unj += 1
                continue
            if 0 <= r < b.level:
                nonrel += 1
            else:
                rel += 1
                if j == 0:
                    s += 1.0
                else:
                    fj = float(j)
                    s += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unj) / fj) * (
                        (rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON))
        nr = int(b.num_rel[t])
        vals[t] = s / nr if nr else s
    return [("infAP", vals)]


def rprec_mult(b: Batch, params):
    # trec_eval keeps the 9.x cutoff here: (long)(mult * R + 0.9); P at that many docs.
    out = []
    for m in params:
        cuts = np.trunc(m * b.num_rel.astype(np.float64) + 0.9).astype(np.int64)  # C's (long) truncates
        out.append((f"Rprec_mult_{fmt_cut(m)}", _safe_div(rel_at_each(b, cuts), cuts)))
    return out


def utility(b: Batch, params):
    if len(params) != 4:
        raise ValueError(f"utility takes 4 coefficients a,b,c,d; got {len(params)}")
    a, bb, c, d = params
    rr, ret, rel = b.num_rel_ret, b.num_ret, b.num_rel
    val = a * rr + bb * (ret - rr) + c * (rel - rr) + d * (b.num_docs + rr - ret - rel)  # as m_utility.c, -N num_docs
    # a qrels topic missing from the run (-c): trec_eval resets utility to 0 by name
    missing = b.missing if b.missing is not None else np.zeros(len(val), dtype=bool)
    return [("utility", np.where(missing, 0.0, val.astype(np.float64)))]


def eleven_pt_avg(b: Batch, params):
    vals = _iprec_values(b, params)
    return [("11pt_avg", np.mean(vals, axis=0) if vals else np.zeros(len(b.qids)))]


def relative_p(b: Batch, params):
    out = []
    for k in params:
        den = np.minimum(b.num_rel, k)
        out.append((f"relative_P_{k}", _safe_div(b.rel_at(k), den)))
    return out


def success(b: Batch, params):
    return [(f"success_{k}", (b.rel_at(k) > 0).astype(np.float64)) for k in params]


def map_cut(b: Batch, params):
    out = []
    for k in params:
        if b.depth == 0:
            out.append((f"map_cut_{k}", np.zeros(len(b.qids))))
            continue
        s = b.prec_at_rel[:, : min(k, b.depth)].sum(axis=1)
        out.append((f"map_cut_{k}", _safe_div(s, b.num_rel)))
    return out


def set_p(b: Batch, _p=None):
    return [("set_P", _safe_div(b.num_rel_ret, b.num_ret))]


def set_relative_p(b: Batch, _p=None):
    return [("set_relative_P", _safe_div(b.num_rel_ret, np.minimum(b.num_ret, b.num_rel)))]


def set_recall(b: Batch, _p=None):
    return [("set_recall", _safe_div(b.num_rel_ret, b.num_rel))]


def set_map(b: Batch, _p=None):
    # rr*rr/(ret*rel) as m_set_map.c computes it; P*R rounds differently in the last digit
    rr = b.num_rel_ret.astype(np.float64)
    return [("set_map", _safe_div(rr * rr, b.num_ret.astype(np.float64) * b.num_rel))]


def set_f(b: Batch, params):
    """trec_eval's set_F: (x+1)PR/(xP+R) with the parameter x as given (default 1), not squared as beta."""
    x = float(params[0]) if params else 1.0
    p = _safe_div(b.num_rel_ret, b.num_ret)
    r = _safe_div(b.num_rel_ret, b.num_rel)
    return [("set_F", _safe_div((x + 1) * p * r, x * p + r))]


def num_nonrel_judged_ret(b: Batch, _p=None):
    v = ((b.rel >= 0) & (b.rel < b.level)).sum(axis=1).astype(np.float64)
    return [("num_nonrel_judged_ret", v)]
