"""Adaptive judging order: strategies that pick a topic's next document from judgments so far.

Pure (no Django): ``judging.services.adaptive`` feeds campaign judgments in, and the budget
planner replays them on known qrels. See docs/pooling.md, "Adaptive judging order".

>>> s = make_strategy("mtf", {"A": ["a1", "a2"], "B": ["b1"]})
>>> s.next()
'a1'
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from .base import TopicStrategy
from .cal import ContinuousActiveLearning
from .runs import UCB1, ByRank, MaxMeanNonStationary, MoveToFront, Thompson

STRATEGIES: dict[str, str] = {
    "rank": "Static depth-k order: every run's rank 1, then rank 2, ...",
    "mtf": "Move-to-front: stay on a run while it finds relevant documents (Cormack et al. 1998)",
    "mm_ns": "Bandit over runs, Bayesian max-mean, non-stationary (Losada et al. MM-NS)",
    "ucb": "Bandit over runs, UCB1",
    "thompson": "Bandit over runs, Thompson sampling (Beta posteriors)",
    "cal": "Continuous active learning: logistic regression on TF-IDF, retrained in growing batches",
}

_CLASSES = {
    "rank": ByRank,
    "mtf": MoveToFront,
    "mm_ns": MaxMeanNonStationary,
    "ucb": UCB1,
    "thompson": Thompson,
    "cal": ContinuousActiveLearning,
}


def make_strategy(
    name: str,
    rankings: Mapping[str, Sequence[str]],
    *,
    seed: int = 0,
    depth: int | None = None,
    query: str = "",
    texts: Mapping[str, str] | None = None,
    **params,
) -> TopicStrategy:
    """Build the strategy ``name`` for one topic's run rankings (see STRATEGIES)."""
    if name not in _CLASSES:
        raise ValueError(f"unknown strategy {name!r}; expected one of {', '.join(STRATEGIES)}")
    if name == "cal":
        return ContinuousActiveLearning(rankings, seed=seed, depth=depth, query=query, texts=texts, **params)
    return _CLASSES[name](rankings, seed=seed, depth=depth, **params)


__all__ = ["STRATEGIES", "TopicStrategy", "make_strategy"]
