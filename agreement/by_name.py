"""One statistic chosen by name: over a whole table, for every pair of raters, per group of items.

The dashboard, the API, model calibration and preference results name the statistic they
want (a key of :data:`STATISTICS`); this module picks the function in
:mod:`agreement.coefficients`, collapses grades to binary when asked, and lays the results out
as a rater × rater matrix (:func:`pairwise_matrix`) or per group such as a topic
(:func:`per_group`).

Which κ is shown matters: Cohen's κ (``"cohen"``) uses each assessor's own marginals and
equals scikit-learn; the lecture notes' κ pools the marginals and is Scott's π (``"scott"``).

>>> judgments = [("d1", "ann", 1), ("d1", "bob", 1), ("d2", "ann", 0), ("d2", "bob", 1),
...              ("d3", "ann", 0), ("d3", "bob", 0), ("d4", "ann", 1), ("d4", "bob", 1)]
>>> round(agreement(judgments, statistic="cohen", categories=[0, 1], ci=None).value, 4)
0.5
>>> pairwise_matrix(judgments, categories=[0, 1], statistic="percent").values().tolist()
[[1.0, 0.75], [0.75, 1.0]]
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict, TypeVar

import numpy as np

from .coefficients import (
    NO_OVERLAP,
    AgreementResult,
    Level,
    Weights,
    as_rating_table,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac,
    krippendorff_alpha,
    percent_agreement,
    scott_pi,
)
from .data import Judgment, RatingTable, binarize_table

CI = Literal["bootstrap", "analytic"] | None
Group = TypeVar("Group", bound=Hashable)


# --- convenience: one statistic by name, per pair, per group ----------------------------------

STATISTICS: dict[str, str] = {
    "percent": "Percent agreement (share of items with identical labels)",
    "cohen": "Cohen's κ (each assessor's own marginals; = scikit-learn)",
    "scott": "Scott's π (pooled marginals; the κ of the IIR lecture notes)",
    "fleiss": "Fleiss' κ (any number of assessors)",
    "krippendorff": "Krippendorff's α (nominal/ordinal/interval; tolerates missing judgments)",
    "gwet": "Gwet's AC1 / AC2 (robust to skewed prevalence)",
}
PAIR_ONLY = {"percent", "cohen", "scott"}


def agreement(judgments: Iterable[Judgment] | RatingTable, *, statistic: str, categories: Sequence[int],
              weights: Weights = None, level: Level = "nominal", ci: CI = "bootstrap",
              n_boot: int = 1000, seed: int = 0, confidence: float = 0.95,
              threshold: int | None = None) -> AgreementResult:
    """Return the named statistic (a key of STATISTICS) over judgments triples.

    Pair statistics (percent, cohen, scott) need judgments from exactly two raters; use
    :func:`pairwise_matrix` for more. ``weights`` applies to cohen, scott and gwet,
    ``level`` to krippendorff. With ``threshold`` the grades are first collapsed to
    relevant (grade ≥ threshold) / not relevant, giving the binary agreement.
    """
    table = _prepared(judgments, categories, threshold)
    scale = table.categories
    if statistic in PAIR_ONLY:
        if len(table.raters) > 2:
            raise ValueError(f"{statistic} compares two raters; use pairwise_matrix for {len(table.raters)}")
        columns = [_labels(table, j) for j in range(len(table.raters))] + [[None] * len(table.items)] * 2
        a, b = columns[0], columns[1]
        if statistic == "cohen":
            result = cohen_kappa(a, b, categories=scale, weights=weights, ci=ci, n_boot=n_boot, seed=seed,
                                 confidence=confidence)
        elif statistic == "scott":
            result = scott_pi(a, b, categories=scale, weights=weights, **_resampling(ci, n_boot, seed, confidence))
        else:
            result = percent_agreement(a, b, categories=scale, **_resampling(ci, n_boot, seed, confidence))
        return replace(result, duplicates_dropped=table.duplicates_dropped)
    if statistic == "fleiss":
        return fleiss_kappa(table, categories=scale, **_resampling(ci, n_boot, seed, confidence))
    if statistic == "krippendorff":
        return krippendorff_alpha(table, categories=scale, level=level, **_resampling(ci, n_boot, seed, confidence))
    if statistic == "gwet":
        return gwet_ac(table, categories=scale, weights=weights, **_resampling(ci, n_boot, seed, confidence))
    raise ValueError(f"unknown statistic {statistic!r} (choose from {', '.join(STATISTICS)})")


class _Resampling(TypedDict):
    ci: Literal["bootstrap"] | None
    n_boot: int
    seed: int
    confidence: float


def _resampling(ci: CI, n_boot: int, seed: int, confidence: float) -> _Resampling:
    """Return the interval options of a statistic that has only a bootstrap interval (every one but Cohen's κ)."""
    if ci == "analytic":
        raise ValueError(f"ci must be 'bootstrap' or None (an analytic interval exists for Cohen's κ only), got {ci!r}")
    return {"ci": ci, "n_boot": n_boot, "seed": seed, "confidence": confidence}


def _prepared(judgments, categories: Sequence[int], threshold: int | None) -> RatingTable:
    table = as_rating_table(judgments, categories)
    return table if threshold is None else binarize_table(table, threshold=threshold)


def _labels(table: RatingTable, column: int) -> list[int | None]:
    return [None if p < 0 else table.categories[p] for p in table.column(table.raters[column]).tolist()]


@dataclass(frozen=True)
class PairwiseMatrix:
    """Agreement of every pair of raters, with how many items each pair shares."""

    raters: tuple[Hashable, ...]
    results: Mapping[tuple[Hashable, Hashable], AgreementResult]
    items_judged: tuple[int, ...] = ()

    def values(self) -> np.ndarray:
        """Return the symmetric raters × raters matrix of values (NaN where undefined, 1 on the diagonal)."""
        k = len(self.raters)
        out = np.eye(k)
        for (a, b), result in self.results.items():
            i, j = self.raters.index(a), self.raters.index(b)
            out[i, j] = out[j, i] = np.nan if result.value is None else result.value
        return out

    def mean_agreement(self, rater: Hashable) -> float | None:
        """Return the rater's agreement with everyone else, averaged over pairs weighted by shared items.

        Undefined pairs are left out; None when the rater has no defined pair.
        """
        total = weight = 0.0
        for (a, b), result in self.results.items():
            if rater in (a, b) and result.value is not None:
                total += result.value * result.n_items
                weight += result.n_items
        return total / weight if weight else None

    def overlaps(self) -> np.ndarray:
        """Return the symmetric raters × raters matrix of shared items (diagonal: items each judged)."""
        k = len(self.raters)
        out = np.diag(np.asarray(self.items_judged or [0] * k, dtype=np.int64))
        for (a, b), result in self.results.items():
            i, j = self.raters.index(a), self.raters.index(b)
            out[i, j] = out[j, i] = result.n_items
        return out


def pairwise_matrix(judgments: Iterable[Judgment] | RatingTable, *, categories: Sequence[int],
                    statistic: str = "cohen", weights: Weights = None, level: Level = "nominal",
                    ci: CI = None, n_boot: int = 1000, seed: int = 0,
                    min_overlap: int = 1, threshold: int | None = None) -> PairwiseMatrix:
    """Return the statistic for every pair of raters sharing at least ``min_overlap`` items.

    Pairs below the overlap floor still appear, undefined with the reason, so a heatmap
    can show them greyed out rather than missing. No confidence intervals by default (a
    dashboard over 20 assessors computes 190 of them); pass ci="bootstrap" when wanted.
    ``threshold`` collapses grades to binary first, as in :func:`agreement`.
    """
    table = _prepared(judgments, categories, threshold)
    results: dict[tuple[Hashable, Hashable], AgreementResult] = {}
    shared_items = _shared_items(table)
    for i, a in enumerate(table.raters):
        for j in range(i + 1, len(table.raters)):
            b = table.raters[j]
            rows = shared_items.get((i, j), np.zeros(0, np.int64))
            overlap = int(rows.size)
            if overlap < max(min_overlap, 1):
                reason = NO_OVERLAP if overlap == 0 else f"only {overlap} shared items (minimum {min_overlap})"
                results[(a, b)] = AgreementResult(statistic=statistic, value=None, n_items=overlap,
                                                  undefined_reason=reason, n_raters=2)
                continue
            pair = table.take_items(rows).take_raters(np.array([i, j]))
            results[(a, b)] = agreement(pair, statistic=statistic, categories=table.categories, weights=weights,
                                        level=level, ci=ci, n_boot=n_boot, seed=seed, confidence=0.95)
    judged = np.bincount(table.label_rater, minlength=len(table.raters))
    return PairwiseMatrix(table.raters, results, tuple(int(x) for x in judged))


def _shared_items(table: RatingTable) -> dict[tuple[int, int], np.ndarray]:
    """Return {(rater i, rater j): rows both labelled} for i < j, only for pairs that share an item."""
    rows, cols = table.label_item, table.label_rater  # sorted by row, then rater
    out: dict[tuple[int, int], list[int]] = {}
    starts = np.searchsorted(rows, np.arange(len(table.items) + 1))
    for r in range(len(table.items)):
        raters = cols[starts[r]:starts[r + 1]].tolist()
        for x in range(len(raters)):
            for y in range(x + 1, len(raters)):
                out.setdefault((raters[x], raters[y]), []).append(r)
    return {pair: np.asarray(found, dtype=np.int64) for pair, found in out.items()}


def per_group(judgments: Iterable[Judgment], *, key: Callable[[Any], Group], categories: Sequence[int],
              statistic: str = "krippendorff", weights: Weights = None, level: Level = "nominal",
              ci: CI = None, n_boot: int = 1000, seed: int = 0,
              threshold: int | None = None) -> dict[Group, AgreementResult]:
    """Return the statistic per group of items, e.g. per topic with ``key=lambda item: item.topic``.

    ``key`` receives an item id. Groups keep first-seen order. A pair statistic (percent,
    cohen, scott) on a group judged by more than two raters comes back undefined with that
    reason rather than raising, so one busy topic cannot break a per-topic table.
    """
    groups: dict[Group, list[Judgment]] = {}
    for judgment in judgments:
        groups.setdefault(key(judgment[0]), []).append(judgment)
    out: dict[Group, AgreementResult] = {}
    for group, rows in groups.items():
        table = _prepared(rows, categories, threshold)
        if statistic in PAIR_ONLY and len(table.raters) > 2:
            out[group] = AgreementResult(
                statistic=statistic, value=None, n_items=int(((table.positions >= 0).sum(axis=1) >= 2).sum()),
                n_raters=len(table.raters), duplicates_dropped=table.duplicates_dropped,
                undefined_reason=f"{len(table.raters)} raters: {statistic} compares two (use fleiss, krippendorff or gwet)",
            )
            continue
        out[group] = agreement(table, statistic=statistic, categories=table.categories, weights=weights, level=level,
                               ci=ci, n_boot=n_boot, seed=seed)
    return out
