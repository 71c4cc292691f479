"""Agreement statistics against scikit-learn, statsmodels, krippendorff and plain loops; intervals; properties."""
from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from agreement import (
    NO_OVERLAP,
    ONE_CATEGORY,
    agreement,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    gwet_ac,
    krippendorff_alpha,
    percent_agreement,
    scott_pi,
)
from tests.agreement.cases import (
    GRADES,
    matrix_to_triples,
    noisy_pair,
    triples_from_pair,
)

# --- agreement with the reference libraries on generated data ------------------------------------

@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_sklearn_on_generated_graded_labels_with_unused_grades(weights):
    rng = np.random.default_rng(11)
    scale = [0, 1, 2, 3, 4]
    for _ in range(60):
        a, b = noisy_pair(rng, int(rng.integers(5, 80)), 3, 0.5)
        a[a == 2], b[b == 2] = 4, 4  # grades 2 and 3 unused: 4 must stay two steps beyond 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(a, b, labels=scale, weights=weights)
        ours = cohen_kappa(a.tolist(), b.tolist(), categories=scale, weights=weights, ci=None)
        if np.isnan(expected):
            assert ours.value is None
        else:
            assert ours.value == pytest.approx(expected, abs=1e-12)


def test_cohen_kappa_on_missing_labels_equals_sklearn_on_the_overlap():
    rng = np.random.default_rng(5)
    for _ in range(30):
        a, b = noisy_pair(rng, 50, 4, 0.4)
        a_list = [None if rng.random() < 0.2 else int(x) for x in a]
        b_list = [None if rng.random() < 0.2 else int(x) for x in b]
        both = [i for i in range(50) if a_list[i] is not None and b_list[i] is not None]
        expected = cohen_kappa_score([a_list[i] for i in both], [b_list[i] for i in both], labels=GRADES,
                                     weights="linear")
        result = cohen_kappa(a_list, b_list, categories=GRADES, weights="linear", ci=None)
        assert result.n_items == len(both)
        assert result.value == pytest.approx(expected, abs=1e-12)


def test_fleiss_kappa_equals_statsmodels_when_every_item_has_the_same_number_of_ratings():
    rng = np.random.default_rng(21)
    for _ in range(40):
        n_raters = int(rng.integers(3, 7))
        n_items = int(rng.integers(5, 60))
        truth = rng.integers(0, 3, size=n_items)
        data = np.array([np.where(rng.random(n_items) < 0.4, rng.integers(0, 4, n_items), truth)
                         for _ in range(n_raters)]).T  # items × raters
        counts, _ = aggregate_raters(data, n_cat=4)
        triples = [(i, r, int(data[i, r])) for i in range(n_items) for r in range(n_raters)]
        result = fleiss_kappa(triples, categories=GRADES, ci=None)
        assert result.value == pytest.approx(sm_fleiss_kappa(counts, method="fleiss"), abs=1e-12)
        assert result.n_items == n_items and result.n_raters == n_raters


def test_fleiss_kappa_with_two_raters_and_full_overlap_equals_scotts_pi():
    rng = np.random.default_rng(3)
    a, b = noisy_pair(rng, 40, 3, 0.5)
    pooled = scott_pi(a.tolist(), b.tolist(), categories=[0, 1, 2], ci=None).value
    assert fleiss_kappa(triples_from_pair(a.tolist(), b.tolist()), categories=[0, 1, 2]).value == pytest.approx(pooled)


def test_fleiss_kappa_with_unequal_rating_counts_leaves_out_single_ratings():
    # d3 has one rating: it carries no agreement and must not change the value.
    base = [("d1", "a", 1), ("d1", "b", 1), ("d1", "c", 0), ("d2", "a", 0), ("d2", "b", 0)]
    with_single = base + [("d3", "a", 1)]
    assert fleiss_kappa(with_single, categories=[0, 1]).value == pytest.approx(
        fleiss_kappa(base, categories=[0, 1]).value)
    assert fleiss_kappa(with_single, categories=[0, 1]).n_items == 2


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_equals_the_krippendorff_package_with_missing_judgments(level):
    rng = np.random.default_rng(7)
    scale = [1, 2, 3, 4, 5]
    checked = 0
    for _ in range(40):
        n_raters, n_items = int(rng.integers(2, 6)), int(rng.integers(4, 40))
        truth = rng.integers(1, 5, size=n_items)  # grade 5 rarely or never used
        data = np.array([np.where(rng.random(n_items) < 0.4, rng.integers(1, 6, n_items), truth)
                         for _ in range(n_raters)], dtype=float)
        data[rng.random(data.shape) < 0.3] = np.nan
        triples = matrix_to_triples(data)
        ours = krippendorff_alpha(triples, categories=scale, level=level, ci=None)
        if ours.value is None:
            continue
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=scale)
        assert ours.value == pytest.approx(expected, abs=1e-9)
        checked += 1
    assert checked >= 30


def test_gwet_ac1_for_two_raters_matches_the_two_rater_formula():
    rng = np.random.default_rng(9)
    for _ in range(20):
        a, b = noisy_pair(rng, 60, 3, 0.5)
        p = confusion_matrix(a.tolist(), b.tolist(), categories=[0, 1, 2]) / 60
        pi = (p.sum(0) + p.sum(1)) / 2
        chance = (pi * (1 - pi)).sum() / 2
        expected = (np.trace(p) - chance) / (1 - chance)
        assert gwet_ac(triples_from_pair(a.tolist(), b.tolist()), categories=[0, 1, 2]).value == pytest.approx(expected)


def test_gwet_ac2_weights_partial_credit_for_near_misses():
    a, b = [0, 1, 2, 3, 0, 3], [1, 2, 3, 3, 0, 2]
    triples = triples_from_pair(a, b)
    ac1 = gwet_ac(triples, categories=GRADES)
    ac2 = gwet_ac(triples, categories=GRADES, weights="quadratic")
    assert ac2.statistic == "gwet_ac2" and ac1.statistic == "gwet_ac1"
    assert ac2.raw_agreement > ac1.raw_agreement
    assert ac2.value > ac1.value


# --- confidence intervals ------------------------------------------------------------------------

def test_bootstrap_interval_is_reproducible_with_a_seed_and_contains_the_estimate():
    rng = np.random.default_rng(1)
    a, b = noisy_pair(rng, 120, 4, 0.4)
    triples = triples_from_pair(a.tolist(), b.tolist())
    results = [
        cohen_kappa(a.tolist(), b.tolist(), categories=GRADES, weights="linear", seed=4),
        scott_pi(a.tolist(), b.tolist(), categories=GRADES, seed=4),
        percent_agreement(a.tolist(), b.tolist(), categories=GRADES, seed=4),
        fleiss_kappa(triples, categories=GRADES, seed=4),
        krippendorff_alpha(triples, categories=GRADES, level="ordinal", seed=4),
        gwet_ac(triples, categories=GRADES, seed=4),
    ]
    for result in results:
        assert result.ci_low < result.value < result.ci_high, result.statistic
        assert result.ci_high - result.ci_low < 0.4
    again = cohen_kappa(a.tolist(), b.tolist(), categories=GRADES, weights="linear", seed=4)
    other = cohen_kappa(a.tolist(), b.tolist(), categories=GRADES, weights="linear", seed=5)
    assert (again.ci_low, again.ci_high) == (results[0].ci_low, results[0].ci_high)
    assert (other.ci_low, other.ci_high) != (again.ci_low, again.ci_high)


def test_bootstrap_interval_matches_a_plain_resampling_loop():
    rng = np.random.default_rng(2)
    a, b = noisy_pair(rng, 80, 2, 0.5)
    fast = cohen_kappa(a.tolist(), b.tolist(), categories=[0, 1], n_boot=2000, seed=0)
    loop = []
    for _ in range(2000):
        idx = rng.integers(0, 80, size=80)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loop.append(cohen_kappa_score(a[idx], b[idx], labels=[0, 1]))
    low, high = np.nanpercentile(loop, [2.5, 97.5])
    assert fast.ci_low == pytest.approx(low, abs=0.05)
    assert fast.ci_high == pytest.approx(high, abs=0.05)


def test_ci_can_be_switched_off():
    result = cohen_kappa([0, 1, 1], [0, 1, 0], categories=[0, 1], ci=None)
    assert result.ci_low is None and result.ci_method is None and result.value is not None


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_standard_error_equals_statsmodels(weights):
    from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

    rng = np.random.default_rng(17)
    for _ in range(20):
        a, b = noisy_pair(rng, int(rng.integers(20, 120)), 4, 0.5)
        table = confusion_matrix(a.tolist(), b.tolist(), categories=GRADES)
        ours = cohen_kappa(a.tolist(), b.tolist(), categories=GRADES, weights=weights, ci="analytic")
        theirs = sm_cohens_kappa(table, wt=weights) if weights else sm_cohens_kappa(table)
        assert ours.value == pytest.approx(theirs.kappa, abs=1e-12)
        assert ours.std_error == pytest.approx(theirs.std_kappa, rel=1e-9)
        assert ours.ci_low == pytest.approx(theirs.kappa_low, rel=1e-9)
        assert ours.ci_high == pytest.approx(theirs.kappa_upp, rel=1e-9)
        assert ours.ci_method.startswith("analytic")


def test_analytic_interval_is_offered_only_for_cohens_kappa():
    with pytest.raises(ValueError, match="Cohen"):
        scott_pi([0, 1, 1], [0, 1, 0], categories=[0, 1], ci="analytic")
    with pytest.raises(ValueError, match="Cohen"):
        agreement([(1, "a", 0), (1, "b", 1)], statistic="fleiss", categories=[0, 1], ci="analytic")


# --- plain, obviously-correct loops for the many-rater statistics with missing judgments ---------

def plain_gwet(data, scale, weights):
    """Gwet (2014) AC1/AC2 by loops over a raters × items matrix with NaN gaps."""
    q = len(scale)
    w = np.eye(q) if weights is None else np.array(
        [[1 - (abs(k - m) / (q - 1)) ** (1 if weights == "linear" else 2) for m in range(q)] for k in range(q)])
    per_item = []
    for column in data.T:
        given = [scale.index(int(v)) for v in column if not np.isnan(v)]
        if given:
            per_item.append([given.count(k) for k in range(q)])
    pa_terms, pi = [], np.zeros(q)
    for r in per_item:
        r_i = sum(r)
        pi += np.array(r) / r_i / len(per_item)
        if r_i >= 2:
            pa_terms.append(sum(r[k] * (sum(w[k, m] * r[m] for m in range(q)) - 1) for k in range(q)) / (r_i * (r_i - 1)))
    pa = np.mean(pa_terms)
    pe = w.sum() / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    return (pa - pe) / (1 - pe)


def plain_fleiss(data, scale):
    """Fleiss' κ by loops, over items with at least two ratings, ratings pooled for the marginals."""
    rows = []
    for column in data.T:
        given = [scale.index(int(v)) for v in column if not np.isnan(v)]
        if len(given) >= 2:
            rows.append([given.count(k) for k in range(len(scale))])
    p_i = [sum(c * (c - 1) for c in r) / (sum(r) * (sum(r) - 1)) for r in rows]
    totals = np.sum(rows, axis=0)
    pe = sum((t / totals.sum()) ** 2 for t in totals)
    return (np.mean(p_i) - pe) / (1 - pe)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_gwet_ac_with_missing_judgments_equals_a_plain_loop(weights):
    rng = np.random.default_rng(13)
    checked = 0
    for _ in range(25):
        n_raters, n_items = int(rng.integers(2, 6)), int(rng.integers(5, 40))
        truth = rng.integers(0, 3, size=n_items)
        data = np.array([np.where(rng.random(n_items) < 0.4, rng.integers(0, 4, n_items), truth)
                         for _ in range(n_raters)], dtype=float)
        data[rng.random(data.shape) < 0.3] = np.nan
        ours = gwet_ac(matrix_to_triples(data), categories=GRADES, weights=weights, ci=None)
        if ours.value is not None:
            assert ours.value == pytest.approx(plain_gwet(data, GRADES, weights), abs=1e-12)
            checked += 1
    assert checked >= 20


def test_fleiss_kappa_with_unequal_counts_equals_a_plain_loop():
    rng = np.random.default_rng(14)
    checked = 0
    for _ in range(25):
        n_raters, n_items = int(rng.integers(3, 7)), int(rng.integers(5, 40))
        truth = rng.integers(0, 4, size=n_items)
        data = np.array([np.where(rng.random(n_items) < 0.4, rng.integers(0, 4, n_items), truth)
                         for _ in range(n_raters)], dtype=float)
        data[rng.random(data.shape) < 0.35] = np.nan
        ours = fleiss_kappa(matrix_to_triples(data), categories=GRADES, ci=None)
        if ours.value is not None:
            assert ours.value == pytest.approx(plain_fleiss(data, GRADES), abs=1e-12)
            checked += 1
    assert checked >= 20


# --- properties ----------------------------------------------------------------------------------

@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from([None, "linear", "quadratic"]))
@settings(max_examples=150, deadline=None)
def test_cohen_kappa_is_symmetric_bounded_and_never_silently_one(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    forward = cohen_kappa(a, b, categories=GRADES, weights=weights, ci=None)
    backward = cohen_kappa(b, a, categories=GRADES, weights=weights, ci=None)
    assert forward.value == backward.value or forward.value == pytest.approx(backward.value)
    if len(set(a) | set(b)) == 1:
        assert forward.value is None and forward.undefined_reason == ONE_CATEGORY
    else:
        assert -1 - 1e-9 <= forward.value <= 1 + 1e-9
        assert (forward.value == pytest.approx(1.0)) == (a == b)


@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from("abcd"), st.integers(0, 3)), max_size=60),
       st.sampled_from(["fleiss", "krippendorff", "gwet"]))
@settings(max_examples=150, deadline=None)
def test_many_rater_statistics_never_crash_and_explain_undefined_values(judgments, statistic):
    result = agreement(judgments, statistic=statistic, categories=GRADES, n_boot=50)
    if result.value is None:
        assert result.undefined_reason in (NO_OVERLAP, ONE_CATEGORY)
    else:
        assert result.value <= 1 + 1e-9 and result.n_items >= 1
        assert result.ci_low is None or result.ci_low <= result.ci_high
