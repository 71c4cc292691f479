"""Replay judging strategies on known labels and report what each budget buys (the budget planner).

Pure (no Django): the inputs are per-topic run rankings and complete (or prior) qrels. Every
strategy is reduced to, per topic, the *order* in which it would judge documents, obtained by
replaying it against the known labels (a document missing from the qrels is judged
non-relevant, as an assessor would find it). A budget of B judgments per topic then judges
the first B documents of each topic's order; depth-k pools judge the union of the runs' top k;
the sampled pool judges a stratified sample and scores runs with the ``metrics.sampling``
estimators. At every point the runs are scored (MAP, nDCG@10; unjudged = non-relevant) and
their ranking compared with the one complete qrels give (Kendall's tau-b).

Strategies are named: ``depth`` (one point per k), ``roundrobin`` (Take@N: rank 1 of every
run, then rank 2, ...), ``fused`` (reciprocal-rank fusion order), ``sample`` (stratified
sample, one point per sampling rate), and every adaptive strategy of
``collections_app.pooling.adaptive`` (move-to-front, bandits, CAL) when that package exists.
"""
from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from collections_app.pooling import strategies as static
from collections_app.pooling.sampling import stratified_sample
from metrics import evaluate_many, qrels_from_dict, run_from_dict
from metrics.correlation import kendall_tau_b
from metrics.sampling import Prel, infndcg, xinfap

STATIC = {
    "depth": "Depth-k pooling: judge the union of every run's top k (one point per k)",
    "roundrobin": "Take@N round-robin: rank 1 of every run, then rank 2, ... (fixed budgets)",
    "fused": "Reciprocal-rank fusion order (fixed budgets)",
    "sample": "Stratified sample of the top ranks, scored with xinfAP / infNDCG (one point per rate)",
}
DEFAULT_DEPTHS = (1, 2, 5, 10, 20, 50)
DEFAULT_BUDGETS = (10, 20, 50, 100, 200)
#: Sampling rates of the deep band (ranks 11..max_depth); ranks 1-10 are always judged fully.
DEFAULT_SAMPLE_RATES = (0.05, 0.1, 0.2, 0.4)


def _adaptive():
    """Return helper C1's adaptive package, or None while it does not exist yet."""
    try:
        from collections_app.pooling import adaptive
    except ImportError:
        return None
    return adaptive


def available_strategies() -> dict[str, str]:
    """Return ``{name: description}`` of every strategy the planner can replay, in display order."""
    out = dict(STATIC)
    adaptive = _adaptive()
    if adaptive is not None:
        out.update({name: desc for name, desc in adaptive.STRATEGIES.items() if name not in out})
    return out


@dataclass
class Point:
    """One budget of one strategy: what it cost, what it found, and how it scores the runs."""

    strategy: str
    setting: str                 # "k=10", "B=50", "rate=0.1"
    judgments: int               # documents judged, over all topics
    relevant: int                # relevant documents among them
    recall: float                # relevant / relevant findable in the runs' top max_depth
    tau_map: float
    tau_ndcg10: float
    map: dict[str, float] = field(default_factory=dict)
    ndcg10: dict[str, float] = field(default_factory=dict)


@dataclass
class Report:
    """All points, the discovery curves and the complete-qrels scores they are compared with."""

    points: list[Point]
    curves: dict[str, list[tuple[int, int]]]   # strategy -> [(judgments, relevant found)]
    complete_map: dict[str, float]
    complete_ndcg10: dict[str, float]
    findable_relevant: int
    topics: int
    runs: int
    seed: int

    def to_dict(self) -> dict:
        return asdict(self)


def _relevant(grade: int | None, level: int) -> bool:
    return grade is not None and grade >= level


def roundrobin_order(rankings: Mapping[str, Sequence[str]], *, depth: int) -> list[str]:
    """Return documents in Take@N order: rank 1 of every run (tags ascending), then rank 2, ...

    >>> roundrobin_order({"b": ["x", "z"], "a": ["x", "y"]}, depth=2)
    ['x', 'y', 'z']
    """
    seen: dict[str, None] = {}
    tags = sorted(rankings)
    for i in range(depth):
        for tag in tags:
            if i < len(rankings[tag]):
                seen.setdefault(rankings[tag][i], None)
    return list(seen)


def fused_order(rankings: Mapping[str, Sequence[str]], *, depth: int) -> list[str]:
    """Return the top-``depth`` documents by RRF score, ties by docno descending (the pooling rule)."""
    fused = static.fused_scores(rankings, method="rrf", depth=depth)
    by_docno = sorted(fused, key=lambda d: d.encode("utf-8"), reverse=True)
    return sorted(by_docno, key=lambda d: -fused[d])


def adaptive_order(name: str, rankings: Mapping[str, Sequence[str]], labels: Mapping[str, int], *, level: int,
                   depth: int, budget: int, seed: int, query: str = "",
                   texts: Mapping[str, str] | None = None) -> list[str]:
    """Replay an adaptive strategy for up to ``budget`` judgments, answering from ``labels``."""
    strategy = _adaptive().make_strategy(name, rankings, seed=seed, depth=depth, query=query, texts=texts)
    order: list[str] = []
    while len(order) < budget:
        docno = strategy.next()
        if docno is None:
            break
        order.append(docno)
        strategy.observe(docno, _relevant(labels.get(docno), level))
    return order


class _Scorer:
    """Score every run against judged subsets of the qrels, and compare with complete qrels."""

    def __init__(self, rankings: Mapping[str, Mapping[str, Sequence[str]]], qrels: Mapping[str, Mapping[str, int]],
                 level: int):
        self.level = level
        self.qrels = qrels
        by_tag: dict[str, dict[str, dict[str, float]]] = {}
        self.run_rankings: dict[str, dict[str, Sequence[str]]] = {}
        for qid, topic in rankings.items():
            for tag, docnos in topic.items():
                by_tag.setdefault(tag, {})[qid] = {d: float(len(docnos) - i) for i, d in enumerate(docnos)}
                self.run_rankings.setdefault(tag, {})[qid] = docnos
        self.tags = sorted(by_tag)
        self.runs = [run_from_dict(by_tag[tag], tag=tag) for tag in self.tags]
        self.complete_map, self.complete_ndcg = self.score({q: dict(g) for q, g in qrels.items()})

    def score(self, judged: Mapping[str, Mapping[str, int]]) -> tuple[dict[str, float], dict[str, float]]:
        # Topics are the qrels' topics: a topic with nothing judged yet scores 0 rather than vanishing.
        complete = {q: dict(judged.get(q) or {}) for q in self.qrels}
        for grades in complete.values():
            if not grades:
                grades["__none__"] = 0
        results = evaluate_many(qrels_from_dict(complete), self.runs, ["map", "ndcg_cut.10"],
                                relevance_level=self.level, complete=True, warn=False)
        return ({r.tag: r.aggregate["map"] for r in results}, {r.tag: r.aggregate["ndcg_cut_10"] for r in results})

    def estimate(self, prels: Mapping[str, Mapping[str, Prel]]) -> tuple[dict[str, float], dict[str, float]]:
        maps, ndcgs = {}, {}
        for tag in self.tags:
            ranked = self.run_rankings[tag]
            topics = list(self.qrels)
            maps[tag] = sum(xinfap(ranked.get(q, ()), prels.get(q, {}), level=self.level) for q in topics) / len(topics)
            ndcgs[tag] = sum(infndcg(ranked.get(q, ()), prels.get(q, {}), k=10) for q in topics) / len(topics)
        return maps, ndcgs

    def tau(self, maps: Mapping[str, float], ndcgs: Mapping[str, float]) -> tuple[float, float]:
        if len(self.tags) < 2:
            return math.nan, math.nan
        return kendall_tau_b(self.complete_map, maps), kendall_tau_b(self.complete_ndcg, ndcgs)


def simulate(
    rankings: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    strategies: Sequence[str] | None = None,
    depths: Sequence[int] = DEFAULT_DEPTHS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    sample_rates: Sequence[float] = DEFAULT_SAMPLE_RATES,
    max_depth: int = 100,
    level: int = 1,
    seed: int = 0,
    queries: Mapping[str, str] | None = None,
    texts: Mapping[str, str] | None = None,
    progress=None,
) -> Report:
    """Replay ``strategies`` (all available if None) and return a ``Report``.

    ``rankings`` is ``{qid: {tag: [docno, ...]}}`` (rank 1 first), ``qrels`` ``{qid: {docno: grade}}``;
    only qrels topics are simulated. Budgets are judgments per topic. Strategies only ever
    consider each run's top ``max_depth``. Same inputs and seed -> the same report.
    """
    names = _strategy_names(strategies)
    _check_settings(depths=depths, budgets=budgets, sample_rates=sample_rates, max_depth=max_depth)
    depths, budgets = sorted(set(depths)), sorted(set(budgets))
    topics = sorted(q for q in qrels if q in rankings)
    if not topics:
        raise ValueError("no topic has both rankings and qrels")
    rankings = {q: {t: list(r) for t, r in rankings[q].items()} for q in topics}
    qrels = {q: qrels[q] for q in topics}
    scorer = _Scorer(rankings, qrels, level)
    findable = sum(
        1 for q in topics for d in static.run_ranks(rankings[q], depth=max_depth) if _relevant(qrels[q].get(d), level))
    points: list[Point] = []
    curves: dict[str, list[tuple[int, int]]] = {}

    def add(name: str, setting: str, judged: dict[str, dict[str, int]], estimated=None) -> None:
        maps, ndcgs = estimated if estimated is not None else scorer.score(judged)
        relevant = sum(1 for grades in judged.values() for g in grades.values() if g >= level)
        spent = sum(len(grades) for grades in judged.values())
        tau_map, tau_ndcg = scorer.tau(maps, ndcgs)
        points.append(Point(name, setting, spent, relevant, relevant / findable if findable else math.nan,
                            tau_map, tau_ndcg, maps, ndcgs))

    for name in names:
        if progress:
            progress(name)
        if name == "depth":
            for setting, judged in _depth_pools(rankings, qrels, depths=depths, max_depth=max_depth):
                add(name, setting, judged)
            curves[name] = [(p.judgments, p.relevant) for p in points if p.strategy == name]
        elif name == "sample":
            for setting, judged, prels in _samples(rankings, qrels, rates=sample_rates, max_depth=max_depth,
                                                    seed=seed):
                add(name, setting, judged, scorer.estimate(prels))
            curves[name] = [(p.judgments, p.relevant) for p in points if p.strategy == name]
        else:
            orders = _judging_orders(name, rankings, qrels, budget=budgets[-1], max_depth=max_depth, level=level,
                                     seed=seed, queries=queries, texts=texts)
            for b in budgets:
                add(name, f"B={b}", {q: {d: qrels[q].get(d, 0) for d in orders[q][:b]} for q in topics})
            curves[name] = _discovery_curve(orders, qrels, level, budgets[-1])
    return Report(points, curves, scorer.complete_map, scorer.complete_ndcg, findable, len(topics),
                  len(scorer.tags), seed)


def _strategy_names(strategies: Sequence[str] | None) -> list[str]:
    """Return the strategies to replay (all available ones for None); ValueError names an unknown one."""
    known = available_strategies()
    names = list(known) if strategies is None else list(strategies)
    for name in names:
        if name not in known:
            raise ValueError(f"unknown strategy {name!r}; known: {', '.join(known)}")
    return names


def _check_settings(*, depths: Sequence[int], budgets: Sequence[int], sample_rates: Sequence[float],
                    max_depth: int) -> None:
    if max_depth < 1 or any(k < 1 for k in depths) or any(b < 1 for b in budgets):
        raise ValueError("depths, budgets and max_depth must be at least 1")
    if any(not 0 < r <= 1 for r in sample_rates):
        raise ValueError("sampling rates must be in (0, 1]")


def _depth_pools(rankings, qrels, *, depths: Sequence[int], max_depth: int):
    """Yield (setting, judged labels) of a depth-k pool for each k (unlabelled documents judged 0)."""
    for k in depths:
        yield f"k={k}", {q: {d: qrels[q].get(d, 0) for d in static.depth_pool(ranked, depth=min(k, max_depth))}
                         for q, ranked in rankings.items()}


def _samples(rankings, qrels, *, rates: Sequence[float], max_depth: int, seed: int):
    """Yield (setting, judged labels, prels) of a stratified sample for each sampling rate of the deep band.

    Ranks 1-10 are always judged fully; the prels carry every drawn document's stratum and
    inclusion probability (-1 for a document drawn but not sampled) for the estimators.
    """
    for rate in rates:
        strata = ((10, 1.0), (max_depth, rate)) if max_depth > 10 else ((max_depth, rate),)
        prels, judged = {}, {}
        for q, ranked in rankings.items():
            drawn = stratified_sample(ranked, strata=strata, seed=seed, topic=q)
            prels[q] = {d: Prel(qrels[q].get(d, 0) if s.sampled else -1, s.stratum, s.prob) for d, s in drawn.items()}
            judged[q] = {d: qrels[q].get(d, 0) for d, s in drawn.items() if s.sampled}
        yield f"rate={rate:g}", judged, prels


def _judging_orders(name: str, rankings, qrels, *, budget: int, max_depth: int, level: int, seed: int,
                    queries: Mapping[str, str] | None, texts: Mapping[str, str] | None) -> dict[str, list[str]]:
    """Return, per topic, the first ``budget`` documents a fixed-budget or adaptive strategy would judge."""
    orders = {}
    for q, ranked in rankings.items():
        if name == "roundrobin":
            orders[q] = roundrobin_order(ranked, depth=max_depth)[:budget]
        elif name == "fused":
            orders[q] = fused_order(ranked, depth=max_depth)[:budget]
        else:
            topic_seed = random.Random(f"{seed}:{q}").randrange(2**31)
            orders[q] = adaptive_order(name, ranked, qrels[q], level=level, depth=max_depth, budget=budget,
                                       seed=topic_seed, query=(queries or {}).get(q, ""), texts=texts)
    return orders


def _discovery_curve(orders: Mapping[str, Sequence[str]], qrels, level: int, limit: int) -> list[tuple[int, int]]:
    """Return (judgments, relevant found) after b judgments per topic, for b = 1..limit."""
    curve: list[tuple[int, int]] = []
    spent = found = 0
    for b in range(limit):
        for q, order in orders.items():
            if b < len(order):
                spent += 1
                found += _relevant(qrels[q].get(order[b]), level)
        if not curve or curve[-1][0] != spent:
            curve.append((spent, found))
    return curve


def judgments_to_reach(report: Report, strategy: str, fraction: float) -> Point | None:
    """Return the cheapest point of ``strategy`` whose recall reaches ``fraction`` (None if none does)."""
    reached = [p for p in report.points if p.strategy == strategy and p.recall >= fraction]
    return min(reached, key=lambda p: p.judgments, default=None)
