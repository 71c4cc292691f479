"""Paired significance tests over topics between two runs, and all-pairs comparison with Holm's correction.

Every test takes two mappings ``{qid: score}`` (one per run, e.g. per-topic AP), pairs them on the
topics both have (sorted by qid, so the mapping order never matters) and reports a :class:`TestResult`.
Differences are always ``a - b``: a positive ``mean_difference`` means run ``a`` scored higher.

>>> a = {"q1": 0.50, "q2": 0.40, "q3": 0.70, "q4": 0.30}
>>> b = {"q1": 0.40, "q2": 0.35, "q3": 0.50, "q4": 0.30}
>>> r = randomization_test(a, b)
>>> r.method, r.n, round(r.mean_difference, 4), r.p_value    # 2^4 sign flips enumerated exactly
('randomization', 4, 0.0875, 0.25)
>>> sign_test(a, b).p_value                                   # 3 wins, 0 losses, 1 tie dropped
0.25
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "TESTS", "PairwiseComparison", "TestResult", "bootstrap_test", "cohens_d_paired", "compare_all", "holm_adjust",
    "paired_differences", "paired_t_test", "paired_test", "randomization_test", "sign_test", "wilcoxon_test",
]


@dataclass(frozen=True)
class TestResult:
    """Hold the outcome of one paired test between two runs (``n`` = number of topics paired)."""

    __test__ = False  # not a pytest test class, despite the name

    method: str
    statistic: float
    p_value: float
    mean_difference: float
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    effect_size: float | None = None


def paired_differences(a: Mapping[str, float], b: Mapping[str, float]) -> np.ndarray:
    """Return ``a[q] - b[q]`` over the topics both runs scored, in qid order.

    Topics present in only one run are left out: a paired test needs both scores of a topic.

    >>> paired_differences({"q1": 1.0, "q2": 0.5, "x": 9.0}, {"q2": 0.25, "q1": 0.5})
    array([0.5 , 0.25])
    >>> paired_differences({"q1": 1.0}, {"q1": 0.5})
    Traceback (most recent call last):
    ...
    ValueError: a paired test needs at least 2 topics scored by both runs, got 1
    """
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise ValueError(f"a paired test needs at least 2 topics scored by both runs, got {len(common)}")
    x = np.array([float(a[q]) for q in common], dtype=np.float64)
    y = np.array([float(b[q]) for q in common], dtype=np.float64)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("scores must be finite numbers")
    return x - y


def _cohens_d(d: np.ndarray) -> float:
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    if sd == 0.0:
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


def cohens_d_paired(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Return Cohen's d for paired data: mean difference / standard deviation of the differences (ddof=1).

    Differences with zero spread give 0.0 when they are all zero and ±inf otherwise.

    >>> cohens_d_paired({"q1": 0.3, "q2": 0.5}, {"q1": 0.1, "q2": 0.1})
    2.1213...
    """
    return _cohens_d(paired_differences(a, b))


def paired_t_test(a: Mapping[str, float], b: Mapping[str, float], *, confidence: float = 0.95) -> TestResult:
    """Run Student's paired t-test (``scipy.stats.ttest_rel``, two-sided) with a t-based CI of the mean difference.

    scipy returns nan when the differences have no spread; then all-zero differences give t = 0, p = 1
    (no evidence of a difference) and constant non-zero differences give t = ±inf, p = 0 (the limit).
    """
    d = paired_differences(a, b)
    mean = float(np.mean(d))
    effect = _cohens_d(d)
    if float(np.std(d, ddof=1)) == 0.0:
        statistic = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0.0 else 0.0
        return TestResult("t-test", statistic, p, mean, len(d), mean, mean, effect)
    res = stats.ttest_rel(d, np.zeros_like(d))
    ci = res.confidence_interval(confidence)
    return TestResult("t-test", float(res.statistic), float(res.pvalue), mean, len(d), float(ci.low), float(ci.high),
                      effect)


def wilcoxon_test(a: Mapping[str, float], b: Mapping[str, float], *, zero_method: str = "wilcox") -> TestResult:
    """Run the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, two-sided) on the paired differences.

    Zero differences: with the default ``zero_method="wilcox"`` topics where both runs tie are dropped
    before ranking (Wilcoxon's original rule); ``"pratt"`` ranks them and then drops them, ``"zsplit"``
    splits their ranks between the signs. If every difference is zero there is no evidence of a
    difference: statistic 0, p = 1. The statistic is scipy's (the smaller of the signed-rank sums), and so
    is the p-value (``method="auto"``: exact for small samples; with ties or zeros among 13 topics or
    fewer scipy enumerates a permutation distribution, which takes about half a second a call).
    """
    d = paired_differences(a, b)
    mean = float(np.mean(d))
    if not np.any(d):
        return TestResult("wilcoxon", 0.0, 1.0, mean, len(d), effect_size=_cohens_d(d))
    res = stats.wilcoxon(d, zero_method=zero_method)
    return TestResult("wilcoxon", float(res.statistic), float(res.pvalue), mean, len(d), effect_size=_cohens_d(d))


def sign_test(a: Mapping[str, float], b: Mapping[str, float]) -> TestResult:
    """Run the two-sided sign test: an exact binomial test (p = 1/2) on the topics where the runs differ.

    Ties (zero differences) are dropped, as is usual for the sign test; the statistic is the number of
    topics where ``a`` wins. With no untied topic there is no evidence of a difference: p = 1.
    """
    d = paired_differences(a, b)
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    p = 1.0 if wins + losses == 0 else float(stats.binomtest(wins, wins + losses, 0.5).pvalue)
    return TestResult("sign", float(wins), p, float(np.mean(d)), len(d), effect_size=_cohens_d(d))


def _sign_flip_sums(d: np.ndarray, signs: np.ndarray) -> np.ndarray:
    return np.abs(signs @ d)


def randomization_test(
    a: Mapping[str, float], b: Mapping[str, float], *, n_permutations: int = 10_000, seed: int | None = 0
) -> TestResult:
    """Run Fisher's paired randomization test: flip the sign of each topic's difference at random.

    Under the null hypothesis the two runs' labels are exchangeable within a topic, so each difference
    is as likely to be ``+d`` as ``-d``. The two-sided p-value is the share of sign assignments whose
    |mean difference| is at least the observed one. When ``2**n <= n_permutations`` all sign
    assignments are enumerated and p is exact; otherwise ``n_permutations`` are drawn with
    ``numpy.random.default_rng(seed)`` and p = (hits + 1) / (n_permutations + 1), counting the
    observed assignment so p is never 0. A relative tolerance of 1e-9 absorbs float rounding in the
    comparison with the observed statistic.
    """
    if n_permutations < 1:
        raise ValueError("n_permutations must be at least 1")
    d = paired_differences(a, b)
    n = len(d)
    observed = abs(float(np.sum(d)))
    threshold = observed - 1e-9 * max(observed, float(np.sum(np.abs(d))))
    chunk = max(1, 2_000_000 // n)  # sign matrices of at most ~2M entries, whatever n_permutations is
    if n < 63 and 2**n <= n_permutations:
        hits, bits = 0, np.arange(n, dtype=np.int64)
        for start in range(0, 2**n, chunk):
            codes = np.arange(start, min(start + chunk, 2**n), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> bits[None, :]) & 1)  # bit j of the code flips topic j
            hits += int(np.sum(_sign_flip_sums(d, signs) >= threshold))
        p = hits / 2**n
    else:
        rng = np.random.default_rng(seed)
        hits, left = 0, n_permutations
        while left:
            size = min(chunk, left)
            signs = rng.integers(0, 2, size=(size, n), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
            hits += int(np.sum(_sign_flip_sums(d, signs) >= threshold))
            left -= size
        p = (hits + 1) / (n_permutations + 1)
    mean = float(np.mean(d))
    return TestResult("randomization", mean, p, mean, n, effect_size=_cohens_d(d))


def bootstrap_test(
    a: Mapping[str, float], b: Mapping[str, float], *, n_resamples: int = 10_000, confidence: float = 0.95,
    seed: int | None = 0,
) -> TestResult:
    """Return a percentile bootstrap CI of the mean difference, with a shift-method bootstrap p-value.

    Topics are resampled with replacement (``numpy.random.default_rng(seed)``); the CI is the
    ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of the resampled mean differences. The
    p-value resamples the differences centred on 0 (the null) and counts means at least as far from 0
    as the observed one, two-sided: p = (hits + 1) / (n_resamples + 1).
    """
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    d = paired_differences(a, b)
    n, mean = len(d), float(np.mean(d))
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    done, chunk = 0, max(1, 2_000_000 // n)
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        means[done:done + size] = d[rng.integers(0, n, size=(size, n))].mean(axis=1)
        done += size
    # A resample of the centred differences d - mean has mean (resampled mean - mean): reuse the draws.
    observed = abs(mean) - 1e-12 * max(abs(mean), float(np.max(np.abs(d))))
    hits = int(np.sum(np.abs(means - mean) >= observed))
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    p = (hits + 1) / (n_resamples + 1)
    return TestResult("bootstrap", mean, p, mean, n, float(low), float(high), _cohens_d(d))


TESTS: dict[str, Callable[..., TestResult]] = {
    "t-test": paired_t_test,
    "wilcoxon": wilcoxon_test,
    "sign": sign_test,
    "randomization": randomization_test,
    "bootstrap": bootstrap_test,
}
_SEEDED = {"randomization", "bootstrap"}


def paired_test(a: Mapping[str, float], b: Mapping[str, float], *, test: str = "randomization", seed: int | None = 0,
                **options) -> TestResult:
    """Run the named paired test (a key of :data:`TESTS`), passing ``seed`` to the tests that sample."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if test in _SEEDED:
        options["seed"] = seed
    return TESTS[test](a, b, **options)


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Return Holm–Bonferroni adjusted p-values, in the input order.

    Sort ascending, multiply the i-th smallest (0-based) by (m - i), take the running maximum so the
    adjusted values keep the order of the raw ones, and clip at 1.

    >>> holm_adjust([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> holm_adjust([])
    []
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.size and (np.any(np.isnan(p)) or np.any(p < 0) or np.any(p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted_sorted = np.minimum(np.maximum.accumulate(p[order] * (m - np.arange(m))), 1.0)
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return [float(x) for x in adjusted]


@dataclass(frozen=True)
class PairwiseComparison:
    """Hold one pair of runs compared by :func:`compare_all`: the test result and its Holm-adjusted p-value."""

    run_a: str
    run_b: str
    result: TestResult
    p_value: float
    p_holm: float
    significant: bool


def compare_all(
    scores_by_run: Mapping[str, Mapping[str, float]], *, test: str = "randomization", seed: int | None = 0,
    alpha: float = 0.05, **options,
) -> list[PairwiseComparison]:
    """Compare every pair of runs with one paired test, correcting for the number of pairs with Holm's method.

    ``scores_by_run`` maps a run name to its per-topic scores. Pairs follow the mapping's order
    (``(r1, r2), (r1, r3), …, (r2, r3), …``); each pair is tested on its common topics with the same
    seed, so the result is reproducible. ``significant`` is ``p_holm <= alpha``.

    >>> runs = {"bm25": {"q1": 0.3, "q2": 0.4, "q3": 0.2}, "dense": {"q1": 0.5, "q2": 0.6, "q3": 0.4},
    ...         "rm3": {"q1": 0.3, "q2": 0.5, "q3": 0.2}}
    >>> [(c.run_a, c.run_b, c.p_value, c.p_holm) for c in compare_all(runs)]
    [('bm25', 'dense', 0.25, 0.75), ('bm25', 'rm3', 1.0, 1.0), ('dense', 'rm3', 0.25, 0.75)]
    """
    if len(scores_by_run) < 2:
        raise ValueError("compare_all needs at least 2 runs")
    pairs = list(itertools.combinations(scores_by_run, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results = [paired_test(scores_by_run[x], scores_by_run[y], test=test, seed=seed, **options) for x, y in pairs]
    adjusted = holm_adjust([r.p_value for r in results])
    return [
        PairwiseComparison(x, y, r, r.p_value, h, h <= alpha)
        for (x, y), r, h in zip(pairs, results, adjusted)
    ]
