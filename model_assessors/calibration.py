"""Can the model be trusted here? Pure functions comparing a model assessor's labels with human ones.

No Django: plain ``{item: grade}`` maps in, plain results out; the statistics themselves are the
project's public agreement functions (:mod:`agreement`), never a second copy.

- :func:`human_reference` — the humans' label of each item: the lead's adjudication where there
  is one, else the humans' majority (a tie goes to the lowest tied grade, as in the freeze rules).
- :func:`compare` — Cohen's κ (graded, linear-weighted and at the relevance threshold), percent
  agreement, with bootstrap intervals, between a model and one set of human labels.
- :func:`per_topic` — the same κ per topic.
- :func:`confusion` — the model × human confusion matrix on the collection's scale.
- :func:`hybrid_kappa` and :func:`judgments_for_target_kappa` — the budget planner: how many more
  human judgments the hybrid qrels need before they agree with (all-)human labels at a target κ.
- :func:`pairs_for_interval` — how many pairs both must judge to measure κ within ± a half-width.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy.stats import norm

from aggregation import majority_grade
from agreement import AgreementResult, Judgment, Weights, agreement, binarize_labels, confusion_matrix, per_group

Item = TypeVar("Item", bound=Hashable)  # an item id: the campaign's Item pk, or any key in examples
Labels = Mapping[Item, int]


def human_reference(human_labels: Mapping[Item, Sequence[int]], adjudicated: Labels[Item]) -> dict[Item, int]:
    """Return each item's human label: the adjudication where set, else the majority of the humans' grades.

    >>> human_reference({"a": [1, 2, 2], "b": [0, 3], "c": [1]}, {"c": 3})
    {'a': 2, 'b': 0, 'c': 3}
    """
    out = {item: majority_grade(grades) for item, grades in human_labels.items() if grades}
    out.update(adjudicated)
    return out


@dataclass(frozen=True)
class Comparison:
    """A model against one set of human labels on the items both labelled."""

    n_items: int
    kappa: AgreementResult
    kappa_linear: AgreementResult
    kappa_binary: AgreementResult
    percent: AgreementResult


def _triples(model: Labels[Item], human: Labels[Item]) -> Sequence[Judgment]:
    shared = [item for item in model if item in human]
    return [(i, "model", model[i]) for i in shared] + [(i, "human", human[i]) for i in shared]


def compare(model: Labels[Item], human: Labels[Item], *, categories: Sequence[int], threshold: int, n_boot: int = 500,
            seed: int = 0) -> Comparison:
    """Return κ (nominal, linear-weighted, binary at the threshold) and percent agreement, with intervals.

    >>> c = compare({1: 0, 2: 1, 3: 1, 4: 0}, {1: 0, 2: 1, 3: 0, 4: 0, 5: 1}, categories=[0, 1], threshold=1, n_boot=50)
    >>> c.n_items, round(c.kappa.value, 3), c.percent.value
    (4, 0.5, 0.75)
    """
    triples = _triples(model, human)

    def measured(statistic: str, *, weights: Weights = None, binary_at: int | None = None) -> AgreementResult:
        return agreement(triples, statistic=statistic, weights=weights, threshold=binary_at, categories=categories,
                         ci="bootstrap", n_boot=n_boot, seed=seed)

    return Comparison(
        n_items=len(triples) // 2,
        kappa=measured("cohen"),
        kappa_linear=measured("cohen", weights="linear"),
        kappa_binary=measured("cohen", binary_at=threshold),
        percent=measured("percent"),
    )


def per_topic(model: Labels[Item], human: Labels[Item], *, topic_of: Mapping[Item, str], categories: Sequence[int],
              threshold: int | None = None, n_boot: int = 500, seed: int = 0) -> dict[str, AgreementResult]:
    """Return Cohen's κ of the model against the human labels for each topic (binary with ``threshold``)."""
    triples = _triples(model, human)
    return dict(sorted(per_group(triples, key=lambda item: topic_of[item], categories=categories, statistic="cohen",
                                 ci="bootstrap", n_boot=n_boot, seed=seed, threshold=threshold).items()))


def confusion(model: Labels[Item], human: Labels[Item], *, categories: Sequence[int]) -> np.ndarray:
    """Return the q × q counts, rows the model's grade, columns the humans', over items both labelled.

    >>> confusion({1: 0, 2: 1, 3: 1}, {1: 0, 2: 1, 3: 0, 4: 1}, categories=[0, 1]).tolist()
    [[1, 0], [1, 1]]
    """
    shared = [item for item in model if item in human]
    return confusion_matrix([model[i] for i in shared], [human[i] for i in shared], categories=categories)


def _kappa_of_joint(joint: np.ndarray) -> float:
    observed = float(np.trace(joint))
    chance = float(joint.sum(axis=1) @ joint.sum(axis=0))
    return 1.0 if chance >= 1.0 else (observed - chance) / (1.0 - chance)


def hybrid_kappa(table: np.ndarray, *, human_share: float) -> float:
    """Return the expected κ of hybrid labels against human labels when humans judge ``human_share`` of the pairs.

    ``table`` is the model × human confusion matrix observed where both judged. Pairs humans
    judge agree by definition (the hybrid takes the human label there); on the rest the model
    keeps its observed confusion. Assumes the human-judged pairs are a random share: ordering
    human work by model uncertainty fixes more errors per judgment, so the real κ is at least this.

    >>> round(hybrid_kappa(np.array([[40, 10], [10, 40]]), human_share=0.0), 3)
    0.6
    >>> round(hybrid_kappa(np.array([[40, 10], [10, 40]]), human_share=0.5), 3)
    0.8
    """
    counts = np.asarray(table, dtype=float)
    if counts.sum() <= 0:
        raise ValueError("the confusion table is empty")
    if not 0.0 <= human_share <= 1.0:
        raise ValueError(f"human_share must lie in [0, 1], got {human_share}")
    p = counts / counts.sum()
    joint = human_share * np.diag(p.sum(axis=0)) + (1.0 - human_share) * p
    return _kappa_of_joint(joint)


@dataclass(frozen=True)
class Plan:
    """The budget planner's answer for one target κ."""

    target: float
    current_kappa: float
    human_judged: int
    total_pairs: int
    more_judgments: int | None  # None: even judging every pair would not reach the target (cannot happen for ≤ 1)


def judgments_for_target_kappa(table: np.ndarray, *, total_pairs: int, human_judged: int, target: float) -> Plan:
    """Return how many more pairs humans must judge for the hybrid qrels to reach κ ≥ target.

    The hybrid κ after humans judge m pairs of ``total_pairs`` is :func:`hybrid_kappa` with share
    m / total_pairs; the answer is the smallest m ≥ ``human_judged`` that reaches the target, minus
    ``human_judged``.

    >>> judgments_for_target_kappa(np.array([[40, 10], [10, 40]]), total_pairs=1000, human_judged=100, target=0.8).more_judgments
    400
    """
    if total_pairs <= 0 or not 0 <= human_judged <= total_pairs:
        raise ValueError("need 0 ≤ human_judged ≤ total_pairs and total_pairs > 0")
    if not -1.0 <= target <= 1.0:
        raise ValueError(f"a target κ lies in [-1, 1], got {target}")
    current = hybrid_kappa(table, human_share=human_judged / total_pairs)
    needed = None
    lo, hi = human_judged, total_pairs
    if hybrid_kappa(table, human_share=1.0) >= target - 1e-12:
        while lo < hi:  # κ grows with the human share, so a bisection finds the first m that reaches it
            mid = (lo + hi) // 2
            if hybrid_kappa(table, human_share=mid / total_pairs) >= target - 1e-12:
                hi = mid
            else:
                lo = mid + 1
        needed = lo - human_judged
    return Plan(target, current, human_judged, total_pairs, needed)


def pairs_for_interval(result: AgreementResult, *, half_width: float, confidence: float = 0.95) -> int | None:
    """Return how many shared pairs measure κ within ± ``half_width`` (normal interval, the observed spread).

    Scales the analytic standard error of the observed κ: SE·√n stays about constant, so
    n = (z · SE · √n_observed / half_width)². None without a standard error.

    >>> from agreement import AgreementResult
    >>> pairs_for_interval(AgreementResult("cohen_kappa", 0.6, 100, std_error=0.1), half_width=0.1)
    385
    """
    if result.std_error is None or not result.n_items or not math.isfinite(result.std_error):
        return None
    z = float(norm.ppf(0.5 + confidence / 2))
    return math.ceil((z * result.std_error * math.sqrt(result.n_items) / half_width) ** 2)


def binary(labels: Labels[Item], *, threshold: int) -> dict[Item, int]:
    """Return labels collapsed to relevant (1) / not (0) at the threshold."""
    keys = list(labels)
    return dict(zip(keys, binarize_labels([labels[k] for k in keys], threshold=threshold), strict=True))
