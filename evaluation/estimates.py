"""Estimated measures of runs from a sampled pool's prels: infAP, xinfAP and infNDCG@10.

When a campaign judged a stratified sample of its pool, plain MAP and nDCG@10 count every
pooled document the sample did not draw as non-relevant and come out biased. The estimators
of ``metrics.sampling`` weight each judged document by its inclusion probability instead:

- ``infAP``: trec_eval's infAP (Yilmaz & Aslam 2006), which assumes one uniform sample of the pool;
- ``xinfAP``: the stratified estimate of AP (Yilmaz, Kanoulas & Aslam 2008) -- the one to read for MAP;
- ``infNDCG_cut_10``: estimated nDCG@10 (Horvitz-Thompson DCG over the estimated ideal DCG).

Averaging follows the leaderboard's rule (trec_eval without ``-c``): a run is averaged over the
sampled topics with at least one judged document that it retrieved for. Pure functions, no Django.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from metrics.sampling import Prel, infap, infndcg, xinfap

# (name in scores, column heading, the plain measure it estimates)
ESTIMATE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("infAP", "infAP", "map"),
    ("xinfAP", "xinfAP", "map"),
    ("infNDCG_cut_10", "infNDCG@10", "ndcg_cut_10"),
)
ESTIMATE_NAMES = tuple(name for name, _, _ in ESTIMATE_COLUMNS)


@dataclass
class RunEstimate:
    """One run's estimates: means over its topics, and the value on every topic."""

    tag: str
    scores: dict[str, float]
    per_topic: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def num_topics(self) -> int:
        return len(self.per_topic)


@dataclass
class SampleEstimates:
    """The estimates of every run from one sampled campaign's labels, with the size of the sample."""

    topics: int  # topics of the pool
    pooled: int  # pooled documents (drawn or not)
    sampled: int  # documents the sample drew
    judged: int  # drawn documents with a label
    runs: dict[str, RunEstimate] = field(default_factory=dict)

    @property
    def judged_topics(self) -> int:
        return max((r.num_topics for r in self.runs.values()), default=0)


def estimation_topics(prels: Mapping[str, Mapping[str, Prel]]) -> list[str]:
    """Return the prels topics with at least one judged document, in sorted order."""
    return sorted(q for q, docs in prels.items() if any(p.judged for p in docs.values()))


def topic_estimates(ranking: Sequence[str], prels: Mapping[str, Prel], *, level: int) -> dict[str, float]:
    """Return infAP, xinfAP and infNDCG@10 of one ranking (rank 1 first) on one topic."""
    return {
        "infAP": infap(ranking, prels, level=level),
        "xinfAP": xinfap(ranking, prels, level=level),
        "infNDCG_cut_10": infndcg(ranking, prels, k=10),
    }


def estimate_runs(rankings: Mapping[str, Mapping[str, Sequence[str]]], prels: Mapping[str, Mapping[str, Prel]], *,
                  level: int) -> dict[str, RunEstimate]:
    """Return ``{tag: RunEstimate}`` for runs given as ``{tag: {qid: [docno, ...]}}`` in trec_eval order.

    A run with no estimation topic gets 0.0 for every estimate (as the leaderboard shows a run
    that retrieved nothing judged).
    """
    topics = estimation_topics(prels)
    out: dict[str, RunEstimate] = {}
    for tag, by_topic in rankings.items():
        per_topic = {q: topic_estimates(by_topic[q], prels[q], level=level) for q in topics if by_topic.get(q)}
        n = len(per_topic)
        scores = {name: (sum(v[name] for v in per_topic.values()) / n if n else 0.0) for name in ESTIMATE_NAMES}
        out[tag] = RunEstimate(tag, scores, per_topic)
    return out
