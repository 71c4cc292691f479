"""Mean pairwise agreement over the assessor pairs of a group of items (Light's κ and kin).

Cohen's κ, Scott's π and percent agreement compare two assessors. A topic, a day or a whole
campaign is usually judged by more, so the dashboard's "κ per topic" is the average of the
two-assessor statistic over every pair of assessors that shares at least ``min_overlap``
items of the group — Light's (1971) κ for Cohen's κ, and the same construction for the others.
Each pair's value is exactly what :func:`agreement.by_name.pairwise_matrix` gives for that pair
(Cohen's κ equals scikit-learn's ``cohen_kappa_score``); pairs whose value is undefined (one
category only) are left out of the mean.

Everything is computed from the table's labels, never from a dense items × assessors or
assessors × assessors array: the entries are (item, pair of assessors who both labelled it,
cell of their two labels), so a crowd campaign of 98,000 labels has a few hundred thousand
entries however many of its 770 workers' 293,000 possible pairs never meet. Counts are kept
only for the (group, pair) combinations that exist and reach ``min_overlap`` items.

Intervals: a cluster bootstrap over items (each group's items resampled with replacement;
a resampled item brings every pair label it holds), with the mean recomputed over the pairs
that define the estimate. The interval is the estimate ± z × the bootstrap standard error:
centred on the estimate as it is computed, so it always contains it. (Percentile intervals
of this mean are biased: pairs sharing two to five items often vanish or turn undefined in a
resample, which moves the resampled means away from the estimate, and the printed interval
could miss the value next to it.) A group with fewer than ``MIN_CI_ITEMS`` doubly judged
items, or whose resamples leave too few defined values, gets no interval but the reason.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .coefficients import ONE_CATEGORY, Level, Weights, agreement_weights, krippendorff_distances
from .data import RatingTable

PAIR_STATISTICS = ("cohen", "scott", "percent")
NO_PAIR = "no two assessors share enough items"  # fewer than min_overlap
MIN_CI_ITEMS = 10
TOO_LITTLE_OVERLAP = "too little overlap for an interval"


@dataclass(frozen=True)
class MeanPairwise:
    """One group's mean pairwise value (None when no pair is defined, with the reason)."""

    value: float | None
    n_items: int
    n_pairs: int
    reason: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    ci_reason: str | None = None


@dataclass(frozen=True)
class _Entries:
    """Every (item, group-pair, cell of the two labels) of the pairs that count, keyed for bincount.

    ``key`` = gp × q² + cell, where gp numbers the (group, assessor pair) combinations kept;
    ``gp_group``, ``gp_a``, ``gp_b`` say which group and which two raters (table columns) each is.
    """

    item: np.ndarray
    key: np.ndarray
    gp_group: np.ndarray
    gp_a: np.ndarray
    gp_b: np.ndarray


def label_pairs(table: RatingTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (first, second, item): indices into the table's labels of every two raters labelling one item.

    ``first`` has the lower rater column. Sparse: the work is Σ over items of (labels choose 2).
    """
    rows = table.label_item  # sorted by item, then rater
    firsts, seconds = [], []
    per_item = np.bincount(rows, minlength=1) if rows.size else np.zeros(1, np.int64)
    for gap in range(1, int(per_item.max(initial=0))):
        same = np.flatnonzero(rows[gap:] == rows[:-gap])
        firsts.append(same)
        seconds.append(same + gap)
    if not firsts:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    return first, second, rows[first]


def _entries(table: RatingTable, q: int, groups: np.ndarray, min_overlap: int) -> _Entries:
    first, second, item = label_pairs(table)
    n_raters = max(len(table.raters), 1)
    a, b = table.label_rater[first], table.label_rater[second]
    code = groups[item].astype(np.int64) * n_raters * n_raters + a * n_raters + b
    combos, gp, shared = np.unique(code, return_inverse=True, return_counts=True)
    kept = shared >= max(min_overlap, 1)
    renumber = np.cumsum(kept) - 1
    keep = kept[gp]
    gp = renumber[gp[keep]]
    combos = combos[kept]
    cell = table.label_position[first[keep]] * q + table.label_position[second[keep]]
    pair = combos % (n_raters * n_raters)
    return _Entries(item[keep], gp * (q * q) + cell, combos // (n_raters * n_raters), pair // n_raters,
                    pair % n_raters)


def _pair_values(counts: np.ndarray, statistic: str, weights: Weights, min_overlap: int) -> np.ndarray:
    """Return the (..., pairs) array of pair values from (..., pairs, q, q) counts; NaN where undefined.

    Every reduction is an ``einsum`` over the flattened (cells, q, q) counts: the bootstrap calls
    this hundreds of times on tens of thousands of tiny q × q tables, where ``sum`` over the
    trailing axes is several times slower and multi-threaded BLAS products spend more time in
    thread hand-offs than in arithmetic on a busy machine.
    """
    q = counts.shape[-1]
    shape = counts.shape[:-2]
    flat = np.ascontiguousarray(counts.reshape(-1, q, q), dtype=float)
    n = np.einsum("nij->n", flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        if statistic == "percent":
            value = np.einsum("nii->n", flat) / n
            return np.where(n >= min_overlap, value, np.nan).reshape(shape)
        w = agreement_weights(q, weights)
        observed = np.einsum("nij,ij->n", flat, w) / n
        first, second = np.einsum("nij->ni", flat), np.einsum("nij->nj", flat)
        used = np.einsum("ni->n", ((first + second) > 0).astype(float))
        rows, cols = first / n[:, None], second / n[:, None]
        if statistic == "scott":
            rows = cols = (rows + cols) / 2
        chance = np.einsum("nj,nj->n", rows if weights is None else np.einsum("ni,ij->nj", rows, w), cols)
        value = (observed - chance) / (1 - chance)
    return np.where((n >= min_overlap) & (used > 1), value, np.nan).reshape(shape)


def _group_means(values: np.ndarray, gp_group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Return each group's mean of its defined pair values and how many pairs were defined."""
    defined = ~np.isnan(values)
    n = np.bincount(gp_group[defined], minlength=n_groups)
    total = np.bincount(gp_group[defined], weights=values[defined], minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan), n


def mean_pairwise(table: RatingTable, *, statistic: str, weights: Weights = None, groups: np.ndarray | None = None,
                  n_groups: int | None = None, min_overlap: int = 2, n_boot: int = 0, seed: int = 0,
                  confidence: float = 0.95) -> list[MeanPairwise]:
    """Return the mean pairwise ``statistic`` for each group of table rows (one group when ``groups`` is None).

    ``groups[i]`` is the group index (0..n_groups-1) of table row i. With ``n_boot`` > 0 each group
    with at least MIN_CI_ITEMS doubly judged items also gets an interval (see the module docstring).

    Three assessors: ann and bob agree on 2 of 3 shared items, each of them with cy on 1 of 2,
    so the mean percent agreement is (2/3 + 1/2 + 1/2) / 3 = 5/9.

    >>> from agreement.data import rating_table
    >>> table = rating_table([("d1", "ann", 1), ("d1", "bob", 1), ("d1", "cy", 0), ("d2", "ann", 0),
    ...                       ("d2", "bob", 0), ("d2", "cy", 0), ("d3", "ann", 1), ("d3", "bob", 0)],
    ...                      categories=[0, 1])
    >>> [(round(m.value, 4), m.n_items, m.n_pairs) for m in mean_pairwise(table, statistic="percent", min_overlap=1)]
    [(0.5556, 3, 3)]
    """
    if statistic not in PAIR_STATISTICS:
        raise ValueError(f"statistic must be one of {PAIR_STATISTICS}, got {statistic!r}")
    q = len(table.categories)
    n_rows = len(table.items)
    groups = np.zeros(n_rows, np.int64) if groups is None else np.asarray(groups, np.int64)
    n_groups = int(groups.max(initial=-1)) + 1 if n_groups is None else n_groups
    doubly = table.labels_per_item() >= 2
    n_items = np.bincount(groups[doubly], minlength=n_groups)
    entries = _entries(table, q, groups, min_overlap)
    n_gp = entries.gp_group.size

    def values(item_weights=None) -> np.ndarray:
        w = None if item_weights is None else item_weights[entries.item]
        counts = np.bincount(entries.key, weights=w, minlength=n_gp * q * q).astype(float, copy=False)
        return _pair_values(counts.reshape(n_gp, q, q), statistic, weights, min_overlap)

    pair_values = values()
    means, defined = _group_means(pair_values, entries.gp_group, n_groups)
    has_pairs = np.bincount(entries.gp_group, minlength=n_groups) > 0
    low = high = np.full(n_groups, np.nan)
    if n_boot and n_gp:
        low, high = _bootstrap(values, pair_values, entries.gp_group, means, groups, doubly, n_groups, n_boot, seed,
                               confidence)
        floor = 0.0 if statistic == "percent" else -1.0  # the statistic's range: the interval stays inside it
        low, high = np.maximum(low, floor), np.minimum(high, 1.0)
    out = []
    for g in range(n_groups):
        if defined[g]:
            if not n_boot:
                out.append(MeanPairwise(float(means[g]), int(n_items[g]), int(defined[g])))
            elif n_items[g] < MIN_CI_ITEMS or np.isnan(low[g]):
                out.append(MeanPairwise(float(means[g]), int(n_items[g]), int(defined[g]),
                                        ci_reason=f"{TOO_LITTLE_OVERLAP} ({int(n_items[g])} items judged twice)"))
            else:
                out.append(MeanPairwise(float(means[g]), int(n_items[g]), int(defined[g]), None, float(low[g]),
                                        float(high[g])))
        else:
            reason = f"{ONE_CATEGORY} by every pair" if has_pairs[g] else NO_PAIR
            out.append(MeanPairwise(None, int(n_items[g]), 0, reason))
    return out


def _bootstrap(values, estimate_pairs, gp_group, means, groups, doubly, n_groups, n_boot, seed,
               confidence) -> tuple[np.ndarray, np.ndarray]:
    """Return estimate ± z·SE per group, SE from a stratified cluster bootstrap over items (NaN: no interval).

    One draw per resample covers every group: each doubly judged row picks a row of its own
    group uniformly (``start + ⌊u · size⌋`` in the rows sorted by group), so the work does not
    grow with the number of groups. Each resample's mean is taken over the pairs that define the
    estimate (a pair undefined in a resample is left out of that resample's mean only).
    """
    rng = np.random.default_rng(seed)
    rows = np.flatnonzero(doubly)
    rows = rows[np.argsort(groups[rows], kind="stable")]
    sizes = np.bincount(groups[rows], minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    row_start, row_size = starts[groups[rows]], sizes[groups[rows]]
    counted = ~np.isnan(estimate_pairs)
    draws = np.full((n_boot, n_groups), np.nan)
    for b in range(n_boot):
        picked = rows[row_start + (rng.random(rows.size) * row_size).astype(np.int64)]
        resampled = values(np.bincount(picked, minlength=doubly.size).astype(float))
        draws[b] = _group_means(np.where(counted, resampled, np.nan), gp_group, n_groups)[0]
    z = float(norm.ppf(0.5 + confidence / 2))
    finite = np.isfinite(draws)
    enough = finite.sum(axis=0) >= max(10, n_boot // 2)
    with np.errstate(invalid="ignore"):
        spread = np.nanstd(np.where(finite, draws, np.nan), axis=0, ddof=1)
    low = np.where(enough, means - z * spread, np.nan)
    high = np.where(enough, means + z * spread, np.nan)
    return low, high


# --- every pair of assessors that shares an item, for heatmaps and "agreement with the others" ----------

PAIRWISE_STATISTICS = (*PAIR_STATISTICS, "fleiss", "krippendorff", "gwet")


@dataclass(frozen=True)
class PairValues:
    """One statistic for every pair of raters (table columns ``a`` < ``b``) sharing at least one item.

    ``value`` is NaN where the pair shares fewer than ``min_overlap`` items or the statistic is
    undefined; ``n_items`` is how many items the pair shares. Pairs that share nothing are absent.
    """

    a: np.ndarray
    b: np.ndarray
    n_items: np.ndarray
    value: np.ndarray

    def mean_with_others(self, n_raters: int) -> np.ndarray:
        """Return each rater's agreement with everyone else: its defined pair values averaged, weighted by
        shared items (NaN for a rater with no defined pair). The sparse form of
        :meth:`agreement.by_name.PairwiseMatrix.mean_agreement`.

        >>> pairs = PairValues(a=np.array([0, 0, 1]), b=np.array([1, 2, 2]), n_items=np.array([10, 30, 5]),
        ...                    value=np.array([1.0, 0.0, np.nan]))
        >>> pairs.mean_with_others(4).tolist()  # rater 0: (1.0 × 10 + 0.0 × 30) / 40; rater 3 shares nothing
        [0.25, 1.0, 0.0, nan]
        """
        defined = ~np.isnan(self.value)
        a, b = self.a[defined], self.b[defined]
        weight = self.n_items[defined].astype(float)
        weighted = self.value[defined] * weight
        total = np.bincount(a, weights=weighted, minlength=n_raters) + np.bincount(b, weights=weighted,
                                                                                   minlength=n_raters)
        weights = np.bincount(a, weights=weight, minlength=n_raters) + np.bincount(b, weights=weight,
                                                                                   minlength=n_raters)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(weights > 0, total / np.maximum(weights, 1e-12), np.nan)


def pair_values(table: RatingTable, *, statistic: str, weights: Weights = None, level: Level = "nominal",
                min_overlap: int = 2) -> PairValues:
    """Return the statistic of every pair of raters that shares an item, computed on their shared items.

    Each value equals :func:`agreement.by_name.pairwise_matrix`'s for that pair (the library
    function on the two raters' shared items). On two raters who both labelled every item,
    Fleiss' κ is Scott's π, Gwet's AC1/AC2 uses the pooled marginals and Krippendorff's α
    reads its coincidence matrix straight off the confusion table, so every statistic is a
    vectorised function of the pairs' q × q tables.

    >>> from agreement.data import rating_table
    >>> table = rating_table([("d1", "ann", 1), ("d1", "bob", 1), ("d1", "cy", 0), ("d2", "ann", 0),
    ...                       ("d2", "bob", 0), ("d2", "cy", 0), ("d3", "ann", 1), ("d3", "bob", 0)],
    ...                      categories=[0, 1])
    >>> pairs = pair_values(table, statistic="percent", min_overlap=1)
    >>> [(table.raters[a], table.raters[b], int(n), round(float(v), 4))
    ...  for a, b, n, v in zip(pairs.a, pairs.b, pairs.n_items, pairs.value)]
    [('ann', 'bob', 3, 0.6667), ('ann', 'cy', 2, 0.5), ('bob', 'cy', 2, 0.5)]
    """
    if statistic not in PAIRWISE_STATISTICS:
        raise ValueError(f"statistic must be one of {PAIRWISE_STATISTICS}, got {statistic!r}")
    q = len(table.categories)
    entries = _entries(table, q, np.zeros(len(table.items), np.int64), 1)
    n_gp = entries.gp_group.size
    counts = np.bincount(entries.key, minlength=n_gp * q * q).astype(float).reshape(n_gp, q, q)
    n = counts.sum(axis=(1, 2))
    if statistic in PAIR_STATISTICS:
        value = _pair_values(counts, statistic, weights, min_overlap)
    elif statistic == "fleiss":
        value = _pair_values(counts, "scott", None, min_overlap)
    else:
        value = _many_rater_pair_values(counts, statistic, weights, level, table.categories, min_overlap)
    return PairValues(entries.gp_a, entries.gp_b, n.astype(np.int64), value)


def _many_rater_pair_values(counts, statistic, weights, level, categories, min_overlap) -> np.ndarray:
    q = counts.shape[-1]
    n = counts.sum(axis=(1, 2))
    used = ((counts.sum(axis=1) + counts.sum(axis=2)) > 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if statistic == "gwet":
            w = agreement_weights(q, weights)
            pa = (counts * w).sum(axis=(1, 2)) / n
            pi = (counts.sum(axis=1) + counts.sum(axis=2)) / (2 * n[:, None])
            chance = w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1)
            value = (pa - chance) / (1 - chance)
        else:  # krippendorff: each item's two values coincide once each way
            o = counts + np.transpose(counts, (0, 2, 1))
            n_c = o.sum(axis=2)
            total = n_c.sum(axis=1)
            e = (n_c[:, :, None] * n_c[:, None, :] - np.eye(q)[None] * n_c[:, :, None]) / np.maximum(total - 1, 1)[
                :, None, None]
            d = krippendorff_distances(level, np.asarray(categories, dtype=float), n_c)
            value = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    return np.where((n >= min_overlap) & (used > 1) & np.isfinite(value), value, np.nan)
