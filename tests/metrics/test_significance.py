"""Paired significance tests: agreement with scipy and statsmodels, exact enumeration, seeds, Holm's correction."""

import doctest
import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from metrics import significance
from metrics.significance import (
    TestResult,
    bootstrap_test,
    cohens_d_paired,
    compare_all,
    holm_adjust,
    paired_differences,
    paired_t_test,
    paired_test,
    randomization_test,
    sign_test,
    wilcoxon_test,
)


def _runs(rng, n, *, shift=0.0, decimals=None):
    """Two runs' per-topic scores in [0, 1]; rounding creates tied topics (zero differences)."""
    x = rng.uniform(0, 1, n)
    y = np.clip(x + shift + rng.normal(0, 0.15, n), 0, 1)
    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    qids = [f"q{i:03d}" for i in range(n)]
    return dict(zip(qids, x.tolist())), dict(zip(qids, y.tolist())), x, y


def _cases(count=40, seed=7):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(5, 80))
        yield _runs(rng, n, shift=float(rng.uniform(-0.1, 0.1)), decimals=int(rng.choice([1, 2, 6])))


def test_module_doctests_pass():
    result = doctest.testmod(significance, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_pairs_topics_by_qid_and_ignores_topics_only_one_run_scored():
    d = paired_differences({"q2": 0.5, "q1": 0.9, "q9": 0.1}, {"q1": 0.4, "q2": 0.5, "q7": 1.0})
    assert d.tolist() == pytest.approx([0.5, 0.0])
    assert paired_t_test({"q2": 0.5, "q1": 0.9, "q9": 0.1}, {"q1": 0.4, "q2": 0.5}).n == 2


@pytest.mark.parametrize("test", sorted(significance.TESTS))
def test_every_test_refuses_fewer_than_two_common_topics(test):
    with pytest.raises(ValueError, match="at least 2 topics"):
        paired_test({"q1": 0.5, "q2": 0.1}, {"q1": 0.4, "q3": 0.2}, test=test)


def test_non_finite_scores_are_refused():
    with pytest.raises(ValueError, match="finite"):
        paired_t_test({"q1": float("nan"), "q2": 0.1}, {"q1": 0.4, "q2": 0.2})


def test_unknown_test_name_is_refused():
    with pytest.raises(ValueError, match="unknown test"):
        paired_test({"q1": 0.5, "q2": 0.1}, {"q1": 0.4, "q2": 0.2}, test="anova")


def test_t_test_agrees_with_scipy_ttest_rel():
    for a, b, x, y in _cases():
        if np.std(x - y) == 0:
            continue
        ours = paired_t_test(a, b)
        ref = stats.ttest_rel(x, y)
        ci = ref.confidence_interval(0.95)
        assert ours.method == "t-test" and ours.n == len(x)
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-9, abs=1e-12)
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-12)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((float(ci.low), float(ci.high)), rel=1e-9, abs=1e-12)
        assert ours.mean_difference == pytest.approx(float(np.mean(x - y)))


def test_t_test_without_spread_in_the_differences_is_defined():
    same = paired_t_test({"q1": 0.5, "q2": 0.25}, {"q1": 0.5, "q2": 0.25})
    assert (same.statistic, same.p_value, same.effect_size) == (0.0, 1.0, 0.0)
    shifted = paired_t_test({"q1": 0.75, "q2": 0.5}, {"q1": 0.5, "q2": 0.25})
    assert shifted.statistic == math.inf and shifted.p_value == 0.0 and shifted.effect_size == math.inf


def test_cohens_d_is_mean_difference_over_sample_sd_of_differences():
    for a, b, x, y in _cases(count=10):
        d = x - y
        if np.std(d) == 0:
            continue
        expected = np.mean(d) / np.std(d, ddof=1)
        assert cohens_d_paired(a, b) == pytest.approx(expected)
        assert paired_t_test(a, b).effect_size == pytest.approx(expected)
        # For paired data, t = d * sqrt(n): ties Cohen's d to the t statistic.
        assert paired_t_test(a, b).statistic == pytest.approx(expected * math.sqrt(len(d)))


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_agrees_with_scipy_including_tied_topics(zero_method):
    checked = 0
    for a, b, x, y in _cases(seed=11):
        if not np.any(x - y):
            continue
        ours = wilcoxon_test(a, b, zero_method=zero_method)
        ref = stats.wilcoxon(x, y, zero_method=zero_method)
        assert ours.statistic == pytest.approx(float(ref.statistic))
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-12)
        checked += 1
    assert checked > 30


def test_wilcoxon_drops_tied_topics_by_default():
    a = {"q1": 0.9, "q2": 0.8, "q3": 0.7, "q4": 0.6, "q5": 0.5, "q6": 0.4}
    b = {"q1": 0.5, "q2": 0.5, "q3": 0.6, "q4": 0.6, "q5": 0.5, "q6": 0.45}
    untied = {q: v for q, v in a.items() if q not in ("q4", "q5")}
    assert wilcoxon_test(a, b).p_value == pytest.approx(wilcoxon_test(untied, b).p_value)
    assert wilcoxon_test(a, b).n == 6


def test_wilcoxon_of_identical_runs_finds_no_difference():
    r = wilcoxon_test({"q1": 0.5, "q2": 0.25, "q3": 0.1}, {"q1": 0.5, "q2": 0.25, "q3": 0.1})
    assert (r.statistic, r.p_value) == (0.0, 1.0)


def test_sign_test_is_a_binomial_test_on_the_untied_topics():
    for a, b, x, y in _cases(seed=3):
        d = x - y
        wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
        r = sign_test(a, b)
        assert r.statistic == wins and r.n == len(d)
        expected = 1.0 if wins + losses == 0 else stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert r.p_value == pytest.approx(expected)


def test_sign_test_hand_case_and_ties_do_not_count():
    # 5 wins, 1 loss, 2 ties: p = 2 * P(X <= 1 | n=6) = 2 * 7/64.
    a = {f"q{i}": v for i, v in enumerate([0.5, 0.6, 0.7, 0.8, 0.9, 0.1, 0.3, 0.3])}
    b = {f"q{i}": v for i, v in enumerate([0.4, 0.5, 0.6, 0.7, 0.8, 0.2, 0.3, 0.3])}
    r = sign_test(a, b)
    assert r.statistic == 5 and r.p_value == pytest.approx(14 / 64)


def _brute_force_randomization_p(d):
    observed = abs(sum(d))
    hits = sum(abs(sum(s * v for s, v in zip(signs, d))) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("n", [2, 3, 5, 8, 10, 13])
def test_randomization_enumerates_every_sign_flip_when_there_are_few(n):
    rng = np.random.default_rng(n)
    a, b, x, y = _runs(rng, n, shift=0.05, decimals=2)
    r1 = randomization_test(a, b, seed=1)
    assert r1.p_value == pytest.approx(_brute_force_randomization_p((x - y).tolist()))
    assert r1.p_value * 2 ** n == pytest.approx(round(r1.p_value * 2 ** n))  # a count of assignments
    assert randomization_test(a, b, seed=99).p_value == r1.p_value          # exact: the seed plays no part


def test_sampled_randomization_estimates_the_exact_p_value():
    # 13 topics: 8192 flips are enumerated exactly; 8000 forces sampling. The sampled p has a Monte
    # Carlo sd of at most sqrt(0.25 / 8000) = 0.0056, so 0.03 is more than five sd.
    rng = np.random.default_rng(31)
    for shift in (0.0, 0.05, 0.1):
        a, b, _, _ = _runs(rng, 13, shift=shift)
        exact = randomization_test(a, b, n_permutations=8192).p_value
        assert randomization_test(a, b, n_permutations=8000, seed=2).p_value == pytest.approx(exact, abs=0.03)


def test_exact_randomization_is_the_same_whatever_the_enumeration_chunking():
    rng = np.random.default_rng(12)
    a, b, x, y = _runs(rng, 17, shift=0.05, decimals=3)  # 131072 flips: several chunks of 2M / 17 codes
    exact = randomization_test(a, b, n_permutations=2**17)
    assert exact.p_value == pytest.approx(_brute_force_randomization_p((x - y).tolist()))


def test_test_results_are_immutable():
    r = sign_test({"q1": 0.5, "q2": 0.1}, {"q1": 0.4, "q2": 0.2})
    with pytest.raises(AttributeError):
        r.p_value = 0.0


def test_randomization_hand_case():
    # Differences +1, +2, +3: only the all-plus and all-minus flips reach |sum| = 6, so p = 2/8.
    r = randomization_test({"a": 3, "b": 4, "c": 5}, {"a": 2, "b": 2, "c": 2})
    assert r.p_value == 0.25 and r.statistic == 2.0 and r.mean_difference == 2.0


@pytest.mark.parametrize("shift", [0.0, 0.01, 0.02, 0.04])
def test_randomization_p_approaches_t_test_p_on_large_normal_samples(shift):
    # With 300 topics of normal differences both tests estimate the same tail; the Monte Carlo error of
    # 20000 flips is at most 0.0035 (one sd), the remaining gap is the t approximation: 0.015 covers both.
    rng = np.random.default_rng(int(shift * 1000) + 5)
    a, b, x, y = _runs(rng, 300, shift=shift)
    rand = randomization_test(a, b, n_permutations=20_000, seed=0)
    assert rand.p_value == pytest.approx(stats.ttest_rel(x, y).pvalue, abs=0.015)


def test_sampled_randomization_is_reproducible_and_never_zero():
    rng = np.random.default_rng(42)
    a, b, _, _ = _runs(rng, 40, shift=0.3)
    r1 = randomization_test(a, b, n_permutations=2000, seed=5)
    assert r1 == randomization_test(a, b, n_permutations=2000, seed=5)
    assert r1.p_value == pytest.approx(1 / 2001)  # the observed assignment counts; nothing else reaches it


def test_randomization_refuses_no_permutations():
    with pytest.raises(ValueError):
        randomization_test({"q1": 0.5, "q2": 0.1}, {"q1": 0.4, "q2": 0.2}, n_permutations=0)


def test_bootstrap_is_reproducible_and_its_interval_holds_the_observed_mean():
    for i, (a, b, x, y) in enumerate(_cases(count=15, seed=21)):
        r = bootstrap_test(a, b, n_resamples=2000, seed=i)
        assert r == bootstrap_test(a, b, n_resamples=2000, seed=i)
        assert r.ci_low <= r.mean_difference <= r.ci_high
        assert r.mean_difference == pytest.approx(float(np.mean(x - y)))
        assert 0 < r.p_value <= 1


def test_bootstrap_interval_matches_scipy_percentile_bootstrap():
    rng = np.random.default_rng(8)
    a, b, x, y = _runs(rng, 60, shift=0.05)
    ours = bootstrap_test(a, b, n_resamples=20_000, seed=0)
    ref = stats.bootstrap((x - y,), np.mean, n_resamples=20_000, method="percentile", rng=np.random.default_rng(1))
    # Two independent Monte Carlo estimates of the same quantiles: they agree to a few thousandths.
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, abs=0.03 * width)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, abs=0.03 * width)


def test_bootstrap_p_value_separates_a_clear_difference_from_none():
    rng = np.random.default_rng(9)
    a, b, _, _ = _runs(rng, 50, shift=0.2)
    assert bootstrap_test(a, b, n_resamples=2000).p_value < 0.01
    assert bootstrap_test(a, a, n_resamples=2000).p_value == 1.0


def test_holm_agrees_with_statsmodels():
    # 20 cases: multipletests runs gc.collect() on every call, which is slow inside a large test session.
    rng = np.random.default_rng(13)
    for _ in range(20):
        m = int(rng.integers(1, 25))
        p = rng.uniform(0, 0.2, m)
        if rng.random() < 0.5:  # ties and extreme values
            p = np.round(p, 2)
            p[rng.integers(0, m)] = 1.0
        expected = multipletests(p, method="holm")[1]
        assert holm_adjust(p.tolist()) == pytest.approx(expected.tolist(), abs=1e-12)


def test_holm_refuses_values_that_are_not_p_values():
    with pytest.raises(ValueError):
        holm_adjust([0.1, float("nan")])
    with pytest.raises(ValueError):
        holm_adjust([1.5])


def _scores(rng, runs=4, topics=16):
    base = rng.uniform(0, 1, topics)
    return {f"run{r}": {f"q{i}": float(np.clip(v + 0.1 * r + rng.normal(0, 0.1), 0, 1)) for i, v in enumerate(base)}
            for r in range(runs)}


@pytest.mark.parametrize("test", sorted(significance.TESTS))
def test_compare_all_tests_every_pair_and_corrects_with_holm(test):
    scores = _scores(np.random.default_rng(4))
    results = compare_all(scores, test=test, seed=3, alpha=0.05)
    assert [(c.run_a, c.run_b) for c in results] == list(itertools.combinations(scores, 2))
    assert [c.p_holm for c in results] == holm_adjust([c.p_value for c in results])
    for c in results:
        assert isinstance(c.result, TestResult) and c.result.method == paired_test(
            scores[c.run_a], scores[c.run_b], test=test, seed=3).method
        assert c.p_value == c.result.p_value == paired_test(scores[c.run_a], scores[c.run_b], test=test, seed=3).p_value
        assert c.p_holm >= c.p_value and c.significant == (c.p_holm <= 0.05)
    assert compare_all(scores, test=test, seed=3) == results


def test_compare_all_finds_the_clear_differences_and_not_the_null_one():
    rng = np.random.default_rng(17)
    topics = [f"q{i}" for i in range(40)]
    base = rng.uniform(0.2, 0.6, 40)
    noise = rng.normal(0, 0.02, 40)
    scores = {"weak": dict(zip(topics, base)), "twin": dict(zip(topics, base + noise)),
              "strong": dict(zip(topics, base + 0.2 + noise))}
    verdict = {(c.run_a, c.run_b): c.significant for c in compare_all(scores, test="t-test")}
    assert verdict == {("weak", "twin"): False, ("weak", "strong"): True, ("twin", "strong"): True}


def test_compare_all_needs_two_runs():
    with pytest.raises(ValueError):
        compare_all({"only": {"q1": 0.5, "q2": 0.4}})
