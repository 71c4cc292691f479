"""Statistics on hand-made cases and against statsmodels / a direct binomial sum."""
from __future__ import annotations

import math
import random

import pytest
from statsmodels.stats import proportion

from preferences import stats
from preferences.stats import Row


def _sign_p(wins: int, n: int) -> float:
    """Two-sided exact sign test by direct summation (p of outcomes no likelier than the observed)."""
    probs = [math.comb(n, k) / 2 ** n for k in range(n + 1)]
    return min(1.0, sum(p for p in probs if p <= probs[wins] * (1 + 1e-7)))


def test_hand_made_tally():
    t = stats.tally([1, 1, 1, 1, 1, 1, 1, 1, 0, -1])  # 8 wins, 1 tie, 1 loss
    assert (t.wins, t.ties, t.losses, t.n) == (8, 1, 1, 10)
    assert t.win_rate == pytest.approx(8 / 9)
    assert t.p_value == pytest.approx(20 / 512)  # 2 * (C(9,0)+C(9,1)) / 2^9 = 0.0390625
    assert t.ci_low < 8 / 9 < t.ci_high


def test_no_decided_comparison_gives_no_test():
    t = stats.tally([0, 0])
    assert (t.ties, t.p_value, t.win_rate) == (2, None, None)


def test_even_split_p_is_one():
    assert stats.tally([1, -1, 1, -1]).p_value == pytest.approx(1.0)


def test_against_statsmodels_and_direct_sum_on_generated_cases():
    rng = random.Random(11)
    for _ in range(200):
        outcomes = [rng.choice((-1, 0, 1, 1)) for _ in range(rng.randint(1, 60))]
        t = stats.tally(outcomes)
        n = t.wins + t.losses
        if n == 0:
            continue
        low, high = proportion.proportion_confint(t.wins, n, alpha=0.05, method="wilson")
        assert (t.ci_low, t.ci_high) == pytest.approx((low, high), abs=1e-9)
        assert t.p_value == pytest.approx(_sign_p(t.wins, n), rel=1e-9)


def test_position_bias_counts_left_answers():
    rows = [Row(i, "1", 1, 0, c) for i, c in enumerate([-1, -1, -1, 1, 0])]
    t = stats.position_bias(rows)
    assert (t.wins, t.losses, t.ties) == (3, 1, 1)


def test_by_topic_and_topic_majorities():
    rows = [Row(1, "a", 1, 1, -1), Row(1, "a", 2, -1, 1), Row(2, "b", 1, 1, 1), Row(2, "b", 2, 1, 1),
            Row(3, "c", 1, -1, 1)]
    per = stats.by_topic(rows)
    assert [(t.wins, t.ties, t.losses) for t in per.values()] == [(1, 0, 1), (2, 0, 0), (0, 0, 1)]
    assert stats.topic_majorities(rows) == [0, 1, -1]


def test_agreement_perfect_and_absent():
    rows = [Row(i, "t", a, o, 0) for i, o in enumerate([1, -1, 0, 1]) for a in (1, 2)]
    assert stats.preference_agreement(rows).value == pytest.approx(1.0)
    assert stats.preference_agreement([Row(1, "t", 1, 1, 0), Row(2, "t", 2, 1, 0)]) is None


def test_agreement_percent_on_hand_case():
    rows = [Row(1, "t", 1, 1, 0), Row(1, "t", 2, 1, 0), Row(2, "t", 1, -1, 0), Row(2, "t", 2, 0, 0)]
    assert stats.preference_agreement(rows, statistic="percent").value == pytest.approx(0.5)


def test_agreement_reports_items_raw_agreement_and_an_interval():
    rows = [Row(1, "t", 1, 1, 0), Row(1, "t", 2, 1, 0), Row(2, "t", 1, -1, 0), Row(2, "t", 2, 0, 0),
            Row(3, "t", 1, 1, 0)]
    g = stats.preference_agreement(rows)
    # pairable values (1, 1) and (-1, 0): D_o = 2/4, D_e = 10/12, α = 1 - 0.6; item 3 has one judgment only
    assert g.value == pytest.approx(0.4) and (g.n_items, g.n_raters) == (2, 2)
    assert g.raw_agreement == pytest.approx(0.5)
    assert g.ci_low is not None and g.ci_low <= g.value <= g.ci_high
