"""Rank correlation: the lecture notes' examples, agreement with scipy, and Yilmaz's tau_ap by hand."""

import doctest

import numpy as np
import pytest
from scipy import stats

from metrics import correlation
from metrics.correlation import (
    discordant_ordered_pairs,
    kendall_tau_b,
    kendall_tau_from_discordant_pairs,
    spearman_from_rank_differences,
    spearman_rho,
    squared_rank_differences,
    tau_ap,
    tau_ap_symmetric,
)

# Seed 002 (Baeza-Yates & Ribeiro-Neto, ch. 4): ten documents, positions s1 = 1..10 in R1 and s2 in R2.
SEED_R1 = ["d123", "d84", "d56", "d6", "d8", "d9", "d511", "d129", "d187", "d25"]
SEED_S2 = [2, 3, 1, 5, 4, 7, 8, 10, 6, 9]
SEED_R2 = [d for _, d in sorted(zip(SEED_S2, SEED_R1))]


def test_module_doctests_pass():
    result = doctest.testmod(correlation, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_seed_spearman_example_sums_24_squared_differences_and_gives_0_854():
    assert SEED_R2 == ["d56", "d123", "d84", "d8", "d6", "d187", "d9", "d511", "d25", "d129"]
    assert squared_rank_differences(SEED_R1, SEED_R2) == 24
    rho = spearman_from_rank_differences(SEED_R1, SEED_R2)
    assert rho == pytest.approx(1 - 144 / 990)
    assert int(rho * 1000) / 1000 == 0.854  # the notes truncate 0.8545… to three decimals


def test_seed_spearman_maximum_of_squared_differences_is_330_for_ten_reversed_documents():
    assert squared_rank_differences(SEED_R1, SEED_R1[::-1]) == 10 * (10**2 - 1) // 3 == 330
    assert spearman_from_rank_differences(SEED_R1, SEED_R1[::-1]) == pytest.approx(-1.0)
    assert spearman_from_rank_differences(SEED_R1, SEED_R1) == 1.0


def test_seed_kendall_example_has_6_discordant_of_20_ordered_pairs_and_tau_0_4():
    top1, top2 = SEED_R1[:5], [d for d in SEED_R2 if d in SEED_R1[:5]]
    assert top2 == ["d56", "d123", "d84", "d8", "d6"]
    assert discordant_ordered_pairs(top1, top2) == 6
    assert kendall_tau_from_discordant_pairs(top1, top2) == pytest.approx(0.4)
    assert kendall_tau_from_discordant_pairs(top1, top1[::-1]) == pytest.approx(-1.0)


def test_document_ranking_formulas_equal_scipy_for_permutations():
    rng = np.random.default_rng(2)
    for _ in range(100):
        k = int(rng.integers(2, 40))
        r1 = [f"d{i}" for i in rng.permutation(k)]
        r2 = [r1[i] for i in rng.permutation(k)]
        pos2 = [r2.index(d) for d in r1]
        assert spearman_from_rank_differences(r1, r2) == pytest.approx(stats.spearmanr(range(k), pos2).statistic)
        assert kendall_tau_from_discordant_pairs(r1, r2) == pytest.approx(stats.kendalltau(range(k), pos2).statistic)


def test_document_rankings_must_rank_the_same_documents_once():
    with pytest.raises(ValueError, match="same documents"):
        spearman_from_rank_differences(["a", "b"], ["a", "c"])
    with pytest.raises(ValueError, match="once"):
        kendall_tau_from_discordant_pairs(["a", "b", "a"], ["a", "b", "b"])
    with pytest.raises(ValueError, match="at least 2"):
        spearman_from_rank_differences(["a"], ["a"])


def _system_scores(rng, n, *, decimals):
    names = [f"sys{i}" for i in range(n)]
    x = np.round(rng.uniform(0, 1, n), decimals)
    y = np.round(x + rng.normal(0, 0.3, n), decimals)
    return dict(zip(names, x.tolist())), dict(zip(names, y.tolist())), x, y


def test_kendall_tau_b_and_spearman_rho_equal_scipy_also_with_ties():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(150):
        a, b, x, y = _system_scores(rng, int(rng.integers(3, 60)), decimals=int(rng.choice([1, 2, 8])))
        if len(set(x)) == 1 or len(set(y)) == 1:
            continue
        assert kendall_tau_b(a, b) == pytest.approx(stats.kendalltau(x, y).statistic)
        assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(x, y).statistic)
        checked += 1
    assert checked > 100


def test_system_correlations_ignore_mapping_order():
    a = {"x": 0.1, "y": 0.5, "z": 0.3, "w": 0.2}
    b = {"w": 0.4, "z": 0.1, "y": 0.6, "x": 0.2}
    assert kendall_tau_b(a, b) == kendall_tau_b(dict(reversed(a.items())), b)
    assert tau_ap(a, b) == tau_ap(dict(sorted(a.items())), dict(sorted(b.items())))


def test_a_ranking_with_every_system_level_has_no_correlation():
    assert np.isnan(kendall_tau_b({"x": 1, "y": 1}, {"x": 1, "y": 2}))
    assert np.isnan(spearman_rho({"x": 1, "y": 2}, {"x": 3, "y": 3}))


def test_rankings_must_score_the_same_systems():
    with pytest.raises(ValueError, match="only in the first: \\['z'\\]"):
        kendall_tau_b({"x": 1, "y": 2, "z": 3}, {"x": 1, "y": 2})
    with pytest.raises(ValueError, match="at least 2 systems"):
        tau_ap({"x": 1}, {"x": 2})
    with pytest.raises(ValueError, match="finite"):
        spearman_rho({"x": 1, "y": float("inf")}, {"x": 1, "y": 2})


TRUTH4 = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}


def test_tau_ap_is_one_for_identical_and_minus_one_for_reversed_rankings():
    rng = np.random.default_rng(3)
    for n in (2, 3, 7, 30):
        truth = {f"s{i}": float(v) for i, v in enumerate(rng.permutation(n))}
        assert tau_ap(truth, truth) == pytest.approx(1.0)
        assert tau_ap(truth, {s: -v for s, v in truth.items()}) == pytest.approx(-1.0)


@pytest.mark.parametrize(("estimate", "expected"), [
    # Estimate order, then C(2)/1 + C(3)/2 + C(4)/3 by hand; tau_ap = 2/3 · sum − 1.
    ({"B": 4, "A": 3, "C": 2, "D": 1}, 1 / 3),     # B A C D: 0/1 + 2/2 + 3/3 = 2
    ({"A": 4, "B": 3, "D": 2, "C": 1}, 7 / 9),     # A B D C: 1/1 + 2/2 + 2/3
    ({"A": 4, "C": 3, "B": 2, "D": 1}, 2 / 3),     # A C B D: 1/1 + 1/2 + 3/3
    ({"D": 4, "A": 3, "B": 2, "C": 1}, -2 / 9),    # D A B C: 0/1 + 1/2 + 2/3
])
def test_tau_ap_hand_checked_on_four_systems(estimate, expected):
    assert tau_ap(TRUTH4, estimate) == pytest.approx(expected)


def test_tau_ap_punishes_a_swap_at_the_top_more_than_kendall_does_and_one_at_the_bottom_less():
    top_swap = {"B": 4, "A": 3, "C": 2, "D": 1}
    bottom_swap = {"A": 4, "B": 3, "D": 2, "C": 1}
    assert kendall_tau_b(TRUTH4, top_swap) == pytest.approx(kendall_tau_b(TRUTH4, bottom_swap)) == pytest.approx(2 / 3)
    assert tau_ap(TRUTH4, top_swap) < 2 / 3 < tau_ap(TRUTH4, bottom_swap)


def _tau_ap_by_definition(truth, estimate):
    est = sorted(estimate, key=lambda s: -estimate[s])
    n = len(est)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if truth[est[j]] > truth[est[i]])
        total += c / i
    return 2 / (n - 1) * total - 1


def test_tau_ap_matches_the_definition_on_random_rankings_and_stays_in_bounds():
    rng = np.random.default_rng(8)
    for _ in range(200):
        n = int(rng.integers(2, 25))
        names = [f"s{i}" for i in range(n)]
        truth = dict(zip(names, rng.permutation(n).tolist()))
        estimate = dict(zip(names, rng.permutation(n).tolist()))
        value = tau_ap(truth, estimate)
        assert value == pytest.approx(_tau_ap_by_definition(truth, estimate))
        assert -1 - 1e-12 <= value <= 1 + 1e-12
        if n == 2:
            assert value == pytest.approx(kendall_tau_b(truth, estimate))


def test_tau_ap_symmetric_is_the_mean_of_both_directions():
    rng = np.random.default_rng(9)
    names = [f"s{i}" for i in range(12)]
    a = dict(zip(names, rng.permutation(12).tolist()))
    b = dict(zip(names, rng.permutation(12).tolist()))
    assert tau_ap(a, b) != pytest.approx(tau_ap(b, a))  # asymmetric in general
    assert tau_ap_symmetric(a, b) == pytest.approx((tau_ap(a, b) + tau_ap(b, a)) / 2)
    assert tau_ap_symmetric(a, b) == pytest.approx(tau_ap_symmetric(b, a))


def test_tau_ap_refuses_ties_unless_asked_to_break_them_by_name():
    tied = {"A": 4, "B": 3, "C": 3, "D": 1}
    with pytest.raises(ValueError, match="ties"):
        tau_ap(TRUTH4, tied)
    with pytest.raises(ValueError, match="truth"):
        tau_ap(tied, TRUTH4)
    # Broken by name, B comes before C: the same order as the truth.
    assert tau_ap(TRUTH4, tied, ties="name") == pytest.approx(1.0)
    with pytest.raises(ValueError):
        tau_ap(TRUTH4, TRUTH4, ties="average")
