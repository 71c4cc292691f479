"""A plain, loop-per-document reimplementation of core trec_eval measures, for cross-checks."""

from __future__ import annotations

import math


def ranked(run_topic: dict[str, float]) -> list[str]:
    """Rank docnos by score desc, ties by docno desc (byte-wise)."""
    return [d for d, _ in sorted(run_topic.items(), key=lambda x: (x[1], x[0].encode()), reverse=True)]


def measures(qrels_topic: dict[str, int], run_topic: dict[str, float], level: int = 1) -> dict[str, float]:
    docs = ranked(run_topic)
    rels = [qrels_topic.get(d) for d in docs]
    R = sum(1 for g in qrels_topic.values() if g >= level)
    N = sum(1 for g in qrels_topic.values() if 0 <= g < level)
    out = {}
    hits, ap, rr = 0, 0.0, 0.0
    for i, g in enumerate(rels, 1):
        if g is not None and g >= level:
            hits += 1
            ap += hits / i
            if rr == 0.0:
                rr = 1.0 / i
    out["map"] = ap / R if R else 0.0
    out["recip_rank"] = rr
    for k in (5, 10, 20):
        top = rels[:k]
        h = sum(1 for g in top if g is not None and g >= level)
        out[f"P_{k}"] = h / k
        out[f"recall_{k}"] = h / R if R else 0.0
        dcg = sum(g / math.log2(i + 1) for i, g in enumerate(top, 1) if g is not None and g > 0)
        ideal = sorted((g for g in qrels_topic.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
        out[f"ndcg_cut_{k}"] = dcg / idcg if idcg else 0.0
    out["Rprec"] = sum(1 for g in rels[:R] if g is not None and g >= level) / R if R else 0.0
    nonrel_seen, bp = 0, 0.0
    for g in rels:
        if g is None or g < 0:
            continue
        if g < level:
            nonrel_seen += 1
        elif nonrel_seen:
            bp += 1 - min(nonrel_seen, R) / min(N, R)
        else:
            bp += 1
    out["bpref"] = bp / R if R else 0.0
    return out
