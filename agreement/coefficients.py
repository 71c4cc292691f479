"""The agreement statistics themselves: percent agreement, Cohen's κ, Scott's π, Fleiss' κ, Krippendorff's α, Gwet's AC1/AC2.

Every statistic returns an :class:`AgreementResult` with the value (or None plus an
``undefined_reason``), the number of items it rests on, raw agreement, chance agreement,
category prevalence and a bootstrap confidence interval — so a low κ can be read next to
the raw agreement and prevalence that explain it (the "kappa paradox").

Which κ is which matters: **Cohen's κ** uses each assessor's own marginals and equals
``sklearn.metrics.cohen_kappa_score``; the lecture notes' κ (Manning et al.) pools both
assessors' marginals and is **Scott's π**; they differ when the assessors' marginals do.

Every statistic is a function of *sums of per-item feature vectors* (a cell of the
confusion matrix, an item's category counts, an item's coincidences). The point estimate
reduces the plain sum; the bootstrap resamples items by drawing multinomial counts over the
distinct feature rows, so it costs O(distinct rows), not O(items), per replicate.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from scipy.stats import norm

from .data import (
    Judgment,
    RatingTable,
    check_categories,
    encode,
    rating_table,
)

Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal", "interval", "ratio"]
Reducer = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]

NO_OVERLAP = "no overlapping items"
ONE_CATEGORY = "only one category used"


@dataclass(frozen=True)
class AgreementResult:
    """One agreement statistic with everything needed to read it honestly."""

    statistic: str
    value: float | None
    n_items: int
    undefined_reason: str | None = None
    n_raters: int = 0
    raw_agreement: float | None = None
    chance_agreement: float | None = None
    prevalence: Mapping[int, float] = field(default_factory=dict)
    ci_low: float | None = None
    ci_high: float | None = None
    ci_method: str | None = None
    std_error: float | None = None
    duplicates_dropped: int = 0
    variant: str = ""

    @property
    def defined(self) -> bool:
        """Say whether the statistic has a value."""
        return self.value is not None


def agreement_weights(q: int, weights: Weights) -> np.ndarray:
    """Return the q × q agreement-weight matrix on scale positions (1 on the diagonal, 0 at the extremes).

    Linear: 1 - |i-j|/(q-1); quadratic: 1 - (i-j)²/(q-1)². Cohen's weighted κ with these
    equals scikit-learn's (which uses the disagreements |i-j| or (i-j)²: κ is scale-free).

    >>> agreement_weights(3, "linear").tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    """
    idx = np.arange(q)
    gap = np.abs(idx[:, None] - idx[None, :]).astype(float)
    if weights is None:
        return np.eye(q)
    if weights == "linear":
        return 1.0 - gap / (q - 1)
    if weights == "quadratic":
        return 1.0 - (gap / (q - 1)) ** 2
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


# --- the bootstrap shared by every statistic -------------------------------------------------

def _estimate(
    statistic: str,
    features: np.ndarray,
    reducer: Reducer,
    *,
    undefined_reason: str | None,
    n_items: int,
    n_raters: int,
    prevalence: Mapping[int, float],
    ci: Literal["bootstrap"] | None,
    n_boot: int,
    seed: int,
    confidence: float,
    duplicates_dropped: int,
    variant: str,
) -> AgreementResult:
    """Reduce summed features to a result, and bootstrap over items when asked."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    if ci not in ("bootstrap", None):
        raise ValueError(f"ci must be 'bootstrap' or None (an analytic interval exists for Cohen's κ only), got {ci!r}")
    undefined = AgreementResult(statistic=statistic, value=None, n_items=n_items, n_raters=n_raters,
                                prevalence=prevalence, duplicates_dropped=duplicates_dropped, variant=variant)
    if n_items == 0:
        return replace(undefined, undefined_reason=NO_OVERLAP)
    value, raw, chance = (float(x[0]) for x in reducer(features.sum(axis=0)[None, :]))
    raw_f = None if np.isnan(raw) else raw
    chance_f = None if np.isnan(chance) else chance
    if undefined_reason is not None or np.isnan(value):
        return replace(undefined, undefined_reason=undefined_reason or ONE_CATEGORY, raw_agreement=raw_f,
                       chance_agreement=chance_f)
    low: float | None = None
    high: float | None = None
    method = f"bootstrap over items ({n_boot}, seed {seed})" if ci else None
    if ci == "bootstrap":
        interval = _bootstrap(features, reducer, n_boot=n_boot, seed=seed, confidence=confidence)
        if interval is not None:
            low, high, spread = interval
            if not low <= value <= high:
                # a skewed or biased resampling distribution: the percentile interval would sit beside the
                # value it is printed with, so use the value ± z × bootstrap standard error instead
                z = float(norm.ppf(0.5 + confidence / 2))
                low, high = value - z * spread, value + z * spread
                method = f"value ± {z:.2f} bootstrap standard errors ({n_boot} resamples over items, seed {seed})"
    return replace(undefined, value=value, raw_agreement=raw_f, chance_agreement=chance_f, ci_low=low, ci_high=high,
                   ci_method=method)


def _bootstrap(features: np.ndarray, reducer: Reducer, *, n_boot: int, seed: int,
               confidence: float) -> tuple[float, float, float] | None:
    """Return the percentile interval and the standard deviation of the statistic over item resamples
    (undefined replicates skipped; None when every replicate is undefined)."""
    if n_boot < 1:
        raise ValueError("n_boot must be positive")
    rows, counts = np.unique(features, axis=0, return_counts=True)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=n_boot)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = reducer(draws @ rows)[0]
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high), float(values.std(ddof=1)) if values.size > 1 else 0.0


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 1e-12, num / np.where(den > 1e-12, den, 1), np.nan)


def _prevalence(counts: np.ndarray, scale: tuple[int, ...]) -> dict[int, float]:
    total = counts.sum()
    return {} if total == 0 else {grade: float(c / total) for grade, c in zip(scale, counts)}


# --- two raters: percent agreement, Cohen's κ, Scott's π --------------------------------------

def _pair_features(a: Sequence[int | None], b: Sequence[int | None], scale: tuple[int, ...]) -> np.ndarray:
    if len(a) != len(b):
        raise ValueError(f"label sequences differ in length ({len(a)} vs {len(b)})")
    pa, pb = encode(a, scale), encode(b, scale)
    both = (pa >= 0) & (pb >= 0)
    q = len(scale)
    return np.eye(q * q, dtype=np.int64)[pa[both] * q + pb[both]]


def _pair_reducer(scale_size: int, weights: Weights, marginals: str) -> Reducer:
    w = agreement_weights(scale_size, weights)

    def reduce(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q = scale_size
        table = sums.reshape(-1, q, q).astype(float)
        n = table.sum(axis=(1, 2))
        p = table / np.where(n > 0, n, 1)[:, None, None]
        rows, cols = p.sum(axis=2), p.sum(axis=1)
        observed = (p * w).sum(axis=(1, 2))
        raw = np.trace(p, axis1=1, axis2=2)
        if marginals == "own":  # Cohen: each rater's own marginals
            chance = np.einsum("bi,ij,bj->b", rows, w, cols)
        else:  # Scott: the marginals pooled over both raters
            pooled = (rows + cols) / 2
            chance = np.einsum("bi,ij,bj->b", pooled, w, pooled)
        return _safe_div(observed - chance, 1 - chance), raw, chance

    return reduce


def _pair_statistic(statistic: str, a, b, *, categories, weights: Weights, marginals: str, ci, n_boot, seed,
                    confidence) -> AgreementResult:
    scale = check_categories(categories)
    features = _pair_features(a, b, scale)
    q = len(scale)
    cells = features.sum(axis=0).reshape(q, q)
    used = np.flatnonzero(cells.sum(axis=0) + cells.sum(axis=1))
    reason = ONE_CATEGORY if len(features) and len(used) == 1 else None
    analytic = ci == "analytic" and marginals == "own"
    result = _estimate(statistic, features, _pair_reducer(q, weights, marginals), undefined_reason=reason,
                       n_items=len(features), n_raters=2, prevalence=_prevalence(cells.sum(0) + cells.sum(1), scale),
                       ci=None if analytic else ci, n_boot=n_boot, seed=seed, confidence=confidence,
                       duplicates_dropped=0, variant=weights or "unweighted")
    if marginals != "own" or result.value is None:
        return result
    se = cohen_standard_error(cells, kappa=result.value, weights=weights)
    if not analytic:
        return replace(result, std_error=se)
    z = float(norm.ppf(0.5 + confidence / 2))
    return replace(result, std_error=se, ci_low=result.value - z * se, ci_high=result.value + z * se,
                   ci_method="analytic (Fleiss, Cohen & Everitt 1969 standard error)")


def cohen_standard_error(table: np.ndarray, *, kappa: float, weights: Weights = None) -> float:
    """Return the large-sample standard error of Cohen's (weighted) κ under the alternative.

    Fleiss, Cohen & Everitt (1969), with agreement weights w and p the cell proportions:
    Var = [Σ_ij p_ij (w_ij − (w̄_i· + w̄_·j)(1 − κ))² − (κ − P_e(1 − κ))²] / (n (1 − P_e)²),
    w̄_i· = Σ_j p_·j w_ij, w̄_·j = Σ_i p_i· w_ij. Matches statsmodels' ``cohens_kappa(...).std_kappa``.
    """
    counts = np.asarray(table, dtype=float)
    n = counts.sum()
    p = counts / n
    w = agreement_weights(counts.shape[0], weights)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    w_row, w_col = w @ cols, rows @ w
    chance = float(rows @ w @ cols)
    spread = (p * (w - (w_row[:, None] + w_col[None, :]) * (1 - kappa)) ** 2).sum()
    variance = (spread - (kappa - chance * (1 - kappa)) ** 2) / (n * (1 - chance) ** 2)
    return float(np.sqrt(max(variance, 0.0)))


def percent_agreement(a: Sequence[int | None], b: Sequence[int | None], *, categories: Sequence[int],
                      ci: Literal["bootstrap"] | None = "bootstrap", n_boot: int = 1000, seed: int = 0,
                      confidence: float = 0.95) -> AgreementResult:
    """Return the share of items both raters judged on which their labels are identical.

    Labels are aligned by item; None marks an item a rater did not judge.

    >>> percent_agreement([1, 1, 0, None], [1, 0, 0, 1], categories=[0, 1], ci=None).value
    0.6666666666666666
    """
    scale = check_categories(categories)
    features = _pair_features(a, b, scale)
    q = len(scale)
    cells = features.sum(axis=0).reshape(q, q)
    diagonal = np.eye(q).reshape(-1)

    def reduce(sums):
        raw = _safe_div(sums @ diagonal, sums.sum(axis=1).astype(float))
        return raw, raw, np.full_like(raw, np.nan)

    return _estimate("percent_agreement", features, reduce, undefined_reason=None, n_items=len(features),
                     n_raters=2, prevalence=_prevalence(cells.sum(0) + cells.sum(1), scale), ci=ci, n_boot=n_boot,
                     seed=seed, confidence=confidence, duplicates_dropped=0, variant="exact match")


def cohen_kappa(a: Sequence[int | None], b: Sequence[int | None], *, categories: Sequence[int],
                weights: Weights = None, ci: Literal["bootstrap", "analytic"] | None = "bootstrap", n_boot: int = 1000,
                seed: int = 0, confidence: float = 0.95) -> AgreementResult:
    """Return Cohen's κ = (P(A) − P(E)) / (1 − P(E)) with P(E) from each rater's own marginals.

    Equals ``sklearn.metrics.cohen_kappa_score(a, b, labels=categories, weights=...)``.
    Weighted variants (linear, quadratic) measure distance by position on the whole scale,
    so an unused grade still separates its neighbours. One rater constant and the other
    varying gives κ = 0; both using one same category is undefined. ``std_error`` is always
    the analytic standard error; ``ci="analytic"`` turns it into a normal interval instead of
    the bootstrap one.

    >>> round(cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0], categories=[0, 1], ci=None).value, 4)
    0.5
    >>> round(cohen_kappa([0, 1, 2, 2], [0, 2, 2, 1], categories=[0, 1, 2], weights="quadratic", ci=None).value, 4)
    0.6364
    """
    return _pair_statistic("cohen_kappa", a, b, categories=categories, weights=weights, marginals="own", ci=ci,
                           n_boot=n_boot, seed=seed, confidence=confidence)


def scott_pi(a: Sequence[int | None], b: Sequence[int | None], *, categories: Sequence[int],
             weights: Weights = None, ci: Literal["bootstrap"] | None = "bootstrap", n_boot: int = 1000,
             seed: int = 0, confidence: float = 0.95) -> AgreementResult:
    """Return Scott's π: κ with P(E) from the marginals pooled over both raters.

    This is the κ of the lecture notes (Manning et al., IIR §8.5: P(E) = P(R)² + P(NR)²),
    named for what it is so it is never confused with Cohen's κ.

    >>> round(scott_pi([1, 1, 0, 0], [1, 0, 0, 0], categories=[0, 1], ci=None).value, 4)
    0.4667
    """
    return _pair_statistic("scott_pi", a, b, categories=categories, weights=weights, marginals="pooled", ci=ci,
                           n_boot=n_boot, seed=seed, confidence=confidence)


# --- many raters: Fleiss' κ, Krippendorff's α, Gwet's AC1/AC2 ---------------------------------

def as_rating_table(judgments: Iterable[Judgment] | RatingTable, categories: Sequence[int]) -> RatingTable:
    """Return judgments as a rating table (a table passes through if it is on the same scale)."""
    if isinstance(judgments, RatingTable):
        if tuple(judgments.categories) != tuple(categories):
            raise ValueError("the rating table was built on a different scale")
        return judgments
    return rating_table(judgments, categories=categories)


def _multi_common(table: RatingTable, counts: np.ndarray) -> dict:
    paired = counts.sum(axis=1) >= 2
    used = np.flatnonzero(counts[paired].sum(axis=0))
    return dict(
        undefined_reason=ONE_CATEGORY if paired.any() and len(used) == 1 else None,
        n_items=int(paired.sum()),
        n_raters=int(np.unique(table.label_rater[paired[table.label_item]]).size),
        prevalence=_prevalence(counts[paired].sum(axis=0), table.categories),
        duplicates_dropped=table.duplicates_dropped,
    )


def fleiss_kappa(judgments: Iterable[Judgment] | RatingTable, *, categories: Sequence[int],
                 ci: Literal["bootstrap"] | None = "bootstrap", n_boot: int = 1000, seed: int = 0,
                 confidence: float = 0.95) -> AgreementResult:
    """Return Fleiss' κ over items judged by at least two raters, however many raters each item has.

    Per item i with n_i ≥ 2 ratings: P_i = Σ_j n_ij(n_ij − 1) / (n_i(n_i − 1)); P̄ = mean P_i;
    p_j = share of all those ratings in category j; P_e = Σ p_j²; κ = (P̄ − P_e)/(1 − P_e).
    With the same number of ratings on every item this is exactly Fleiss (1971) and
    ``statsmodels.stats.inter_rater.fleiss_kappa``; items with a single rating carry no
    agreement and are left out.

    Three raters on three items, (1, 1, 1), (0, 0, 0), (1, 1, 0): P̄ = (1 + 1 + 1/3) / 3 = 7/9,
    P_e = (5/9)² + (4/9)² = 41/81, κ = (63 − 41) / (81 − 41) = 0.55.

    >>> votes = {"i1": (1, 1, 1), "i2": (0, 0, 0), "i3": (1, 1, 0)}
    >>> fleiss_kappa([(i, r, g) for i, gs in votes.items() for r, g in zip("abc", gs)], categories=[0, 1],
    ...              ci=None).value
    0.55
    """
    table = as_rating_table(judgments, categories)
    counts = table.counts()
    counts = counts[counts.sum(axis=1) >= 2]
    n_i = counts.sum(axis=1)
    p_i = (counts * (counts - 1)).sum(axis=1) / np.maximum(n_i * (n_i - 1), 1)
    features = np.column_stack([p_i, np.ones(len(counts)), counts]).astype(float)

    def reduce(sums):
        p_bar = _safe_div(sums[:, 0], sums[:, 1])
        cats = sums[:, 2:]
        p_j = cats / np.maximum(cats.sum(axis=1, keepdims=True), 1e-12)
        chance = (p_j ** 2).sum(axis=1)
        return _safe_div(p_bar - chance, 1 - chance), p_bar, chance

    return _estimate("fleiss_kappa", features, reduce, **_multi_common(table, table.counts()), ci=ci,
                     n_boot=n_boot, seed=seed, confidence=confidence, variant="unweighted")


def krippendorff_distances(level: Level, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """Return δ² between categories (batch × q × q); ordinal distances depend on the marginals n_c."""
    q = len(values)
    if level == "nominal":
        d = 1.0 - np.eye(q)
    elif level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
    elif level == "ratio":
        total = values[:, None] + values[None, :]
        d = np.where(total != 0, (values[:, None] - values[None, :]) / np.where(total != 0, total, 1), 0.0) ** 2
    elif level == "ordinal":
        cum = np.concatenate([np.zeros((n_c.shape[0], 1)), np.cumsum(n_c, axis=1)], axis=1)
        lo = np.minimum(np.arange(q)[:, None], np.arange(q)[None, :])
        hi = np.maximum(np.arange(q)[:, None], np.arange(q)[None, :])
        between = cum[:, hi + 1] - cum[:, lo]
        return (between - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
    else:
        raise ValueError(f"level must be nominal, ordinal, interval or ratio, got {level!r}")
    return np.broadcast_to(d, (n_c.shape[0], q, q))


def krippendorff_alpha(judgments: Iterable[Judgment] | RatingTable, *, categories: Sequence[int],
                       level: Level = "nominal", ci: Literal["bootstrap"] | None = "bootstrap", n_boot: int = 1000,
                       seed: int = 0, confidence: float = 0.95) -> AgreementResult:
    """Return Krippendorff's α = 1 − D_o/D_e from the coincidence matrix; missing judgments are fine.

    Equals ``krippendorff.alpha(..., level_of_measurement=level, value_domain=categories)``.
    Interval and ratio distances use the grade values; ordinal distances use the ranks
    (through the coincidence marginals). Raw agreement is the share of matching pairable
    values (the coincidence matrix's diagonal). Items judged once are not pairable.

    >>> judgments = [("d1", "a", 1), ("d1", "b", 1), ("d2", "a", 0), ("d2", "b", 0), ("d3", "a", 1),
    ...              ("d3", "b", 0), ("d4", "a", 1)]  # d4 judged once: not pairable
    >>> result = krippendorff_alpha(judgments, categories=[0, 1], ci=None)
    >>> round(result.value, 4), result.n_items  # 1 − D_o/D_e = 1 − (2/6) / (18/30) = 4/9
    (0.4444, 3)
    """
    table = as_rating_table(judgments, categories)
    counts = table.counts()
    counts = counts[counts.sum(axis=1) >= 2].astype(float)
    q = len(table.categories)
    m_u = counts.sum(axis=1)
    coincide = (counts[:, :, None] * counts[:, None, :] - np.eye(q)[None] * counts[:, :, None])
    coincide /= np.maximum(m_u - 1, 1)[:, None, None]
    features = coincide.reshape(len(counts), q * q)
    values = np.asarray(table.categories, dtype=float)

    def reduce(sums):
        o = sums.reshape(-1, q, q)
        n_c = o.sum(axis=2)
        n = n_c.sum(axis=1)
        e = (n_c[:, :, None] * n_c[:, None, :] - np.eye(q)[None] * n_c[:, :, None]) / np.maximum(n - 1, 1)[:, None, None]
        d = krippendorff_distances(level, values, n_c)
        observed, expected = (o * d).sum(axis=(1, 2)), (e * d).sum(axis=(1, 2))
        alpha = 1 - _safe_div(observed, expected)
        nn = np.maximum(n, 1e-12)
        return alpha, np.trace(o, axis1=1, axis2=2) / nn, np.trace(e, axis1=1, axis2=2) / nn

    return _estimate("krippendorff_alpha", features, reduce, **_multi_common(table, table.counts()), ci=ci,
                     n_boot=n_boot, seed=seed, confidence=confidence, variant=level)


def gwet_ac(judgments: Iterable[Judgment] | RatingTable, *, categories: Sequence[int], weights: Weights = None,
            ci: Literal["bootstrap"] | None = "bootstrap", n_boot: int = 1000, seed: int = 0,
            confidence: float = 0.95) -> AgreementResult:
    """Return Gwet's AC1 (weights=None) or AC2 (linear/quadratic weights), robust to skewed prevalence.

    Following Gwet (2014) with missing ratings: P_a averages, over items with r_i ≥ 2,
    Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1)) with r*_ik = Σ_l w_kl r_il; π_k is the mean over
    all judged items of r_ik / r_i; P_e = T_w / (q(q − 1)) · Σ_k π_k (1 − π_k), T_w = Σ w_kl.
    Weights are on scale positions (as for weighted κ). When only one category is used
    AC1 would be a vacuous 1.0; it is reported undefined instead.

    Two raters, labels (1, 1), (1, 0), (0, 0), (0, 0): P_a = 3/4, π_1 = (1 + 1/2) / 4 = 3/8,
    P_e = 2 · 3/8 · 5/8 = 15/32, AC1 = (3/4 − 15/32) / (1 − 15/32) = 9/17.

    >>> labels = [("i1", 1, 1), ("i2", 1, 0), ("i3", 0, 0), ("i4", 0, 0)]
    >>> judgments = [(i, "a", x) for i, x, _ in labels] + [(i, "b", y) for i, _, y in labels]
    >>> round(gwet_ac(judgments, categories=[0, 1], ci=None).value, 4)
    0.5294
    """
    table = as_rating_table(judgments, categories)
    counts = table.counts().astype(float)
    counts = counts[counts.sum(axis=1) >= 1]
    q = len(table.categories)
    w = agreement_weights(q, weights)
    r_i = counts.sum(axis=1)
    paired = (r_i >= 2).astype(float)
    weighted = counts @ w.T
    pa_i = (counts * (weighted - 1)).sum(axis=1) / np.maximum(r_i * (r_i - 1), 1) * paired
    shares = counts / np.maximum(r_i, 1)[:, None]
    features = np.column_stack([pa_i, paired, shares, np.ones(len(counts))])
    t_w = w.sum()

    def reduce(sums):
        pa = _safe_div(sums[:, 0], sums[:, 1])
        pi = sums[:, 2:2 + q] / np.maximum(sums[:, -1:], 1e-12)
        chance = t_w / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1)
        return _safe_div(pa - chance, 1 - chance), pa, chance

    statistic = "gwet_ac1" if weights is None else "gwet_ac2"
    common = _multi_common(table, table.counts())
    if common["n_items"] == 0:
        features = features[:0]
    return _estimate(statistic, features, reduce, **common, ci=ci, n_boot=n_boot, seed=seed,
                     confidence=confidence, variant=weights or "unweighted")
