"""Vote-counting aggregators: the plain majority and the vote weighted by accuracy on gold items."""
from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import Literal

import numpy as np

from agreement.data import Judgment, dedupe_judgments

from .result import Aggregate, TieRule, aggregate_result, prepare_votes, vote_table


def majority_grade(grades: Sequence[int]) -> int:
    """Return the most frequent grade of one item; a tie goes to the lowest tied grade.

    The rule :func:`majority_vote` applies with its default ``tie_rule="lowest"``, for one
    item's grades at hand (the qrels freeze's majority rule, calibration's human reference).

    >>> majority_grade([1, 2, 2]), majority_grade([0, 3]), majority_grade([3, 1, 3, 1, 2])
    (2, 0, 1)
    """
    if not grades:
        raise ValueError("majority_grade needs at least one grade")
    counts = Counter(grades)
    top = max(counts.values())
    return min(g for g, n in counts.items() if n == top)


def majority_vote(judgments: Iterable[Judgment], *, categories: Sequence[int], exclude: Collection[Hashable] = (),
                  tie_rule: TieRule = "lowest", seed: int = 0, collapse_share: float = 0.95) -> Aggregate:
    """Return the most frequent label per item; confidence is that label's share of the votes.

    Ties go to the lowest grade by default — the conservative choice for relevance (crowd-kit's
    MajorityVote does not do this: it keeps whichever tied label comes first in its input);
    "highest", "none" (leave unlabelled) and "random" (seeded) are the alternatives. Every tie
    is counted and flagged on its item.

    >>> agg = majority_vote([("d1", "w1", 1), ("d1", "w2", 1), ("d1", "w3", 0)], categories=[0, 1])
    >>> agg.labels["d1"].label, round(agg.labels["d1"].confidence, 3)
    (1, 0.667)
    """
    votes = prepare_votes(judgments, categories, exclude)
    table = vote_table(votes)
    return aggregate_result("majority_vote", votes, table, tie_rule=tie_rule, seed=seed, collapse_share=collapse_share,
                   n_votes=table.sum(axis=1))


def gold_accuracy(judgments: Iterable[Judgment], *, gold: Mapping[Hashable, int],
                  exclude: Collection[Hashable] = ()) -> dict[Hashable, tuple[int, int]]:
    """Return (correct, answered) on gold items per worker (last judgment per item counts).

    >>> gold_accuracy([("g1", "w1", 1), ("g2", "w1", 0), ("d1", "w1", 1)], gold={"g1": 1, "g2": 1})
    {'w1': (1, 2)}
    """
    kept, _ = dedupe_judgments(judgments)
    excluded = frozenset(exclude)
    scores: dict[Hashable, tuple[int, int]] = {}
    for item, worker, label in kept:
        if item in gold and worker not in excluded:
            correct, answered = scores.get(worker, (0, 0))
            scores[worker] = (correct + int(label == gold[item]), answered + 1)
    return scores


def gold_weighted_vote(judgments: Iterable[Judgment], *, gold: Mapping[Hashable, int], categories: Sequence[int],
                       exclude: Collection[Hashable] = (), weighting: Literal["log_odds", "accuracy"] = "log_odds",
                       min_gold: int = 1, tie_rule: TieRule = "lowest", seed: int = 0,
                       collapse_share: float = 0.95) -> Aggregate:
    """Return a vote weighted by each worker's smoothed accuracy on gold items.

    Accuracy a = (correct + 1) / (answered + 2) (add-one smoothing, so one lucky gold
    answer does not give a worker unbounded weight). Weight: "log_odds" uses
    max(0, log((q − 1)·a / (1 − a))) — the optimal weight when a worker errs uniformly over
    the other q − 1 labels, 0 for a worker at chance; "accuracy" uses a itself. Workers with
    fewer than ``min_gold`` gold answers get the mean weight of those with enough (weight 1
    when nobody has), so they still vote. Confidence is the chosen label's weighted share;
    ties follow ``tie_rule`` as in :func:`majority_vote`.
    """
    if weighting not in ("log_odds", "accuracy"):
        raise ValueError(f"weighting must be 'log_odds' or 'accuracy', got {weighting!r}")
    judgments = list(judgments)
    votes = prepare_votes(judgments, categories, exclude)
    q = len(votes.scale)
    scores = gold_accuracy(judgments, gold=gold, exclude=exclude)
    accuracy: dict[Hashable, float | None] = {}
    known: dict[Hashable, float] = {}
    for worker in votes.workers:
        correct, answered = scores.get(worker, (0, 0))
        if answered >= max(min_gold, 1):
            acc = (correct + 1) / (answered + 2)
            accuracy[worker] = acc
            known[worker] = max(0.0, float(np.log((q - 1) * acc / (1 - acc)))) if weighting == "log_odds" else acc
        else:
            accuracy[worker] = None
    fallback = float(np.mean(list(known.values()))) if known else 1.0
    weights = {worker: known.get(worker, fallback) for worker in votes.workers}
    table = vote_table(votes, np.array([weights[w] for w in votes.workers], dtype=float))
    n_votes = np.bincount(votes.item_idx, minlength=len(votes.items))
    return aggregate_result(f"gold_weighted_vote ({weighting})", votes, table, tie_rule=tie_rule, seed=seed,
                   collapse_share=collapse_share, n_votes=n_votes, worker_weights=weights, worker_accuracy=accuracy)
