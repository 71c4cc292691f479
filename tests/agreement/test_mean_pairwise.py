"""Mean pairwise agreement (Light's κ and kin) against scikit-learn pair by pair, per group, with intervals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreement import NO_PAIR, ONE_CATEGORY, RatingTable, mean_pairwise, pairwise_matrix, scott_pi

SCALE = (0, 1, 2, 3)


def random_table(rng, *, items=60, raters=5, missing=0.5, scale=SCALE) -> RatingTable:
    truth = rng.integers(0, len(scale), size=items)
    noise = rng.integers(-1, 2, size=(items, raters)) * (rng.random((items, raters)) < 0.35)
    positions = np.clip(truth[:, None] + noise, 0, len(scale) - 1)
    positions[rng.random((items, raters)) < missing] = -1
    return RatingTable(tuple(range(items)), tuple(f"r{j}" for j in range(raters)), positions, scale)


def light_by_hand(positions, statistic, weights, min_overlap=2):
    """Average of scikit-learn's Cohen's κ (or Scott's π / percent) over pairs sharing min_overlap items."""
    values = []
    for a, b in itertools.combinations(range(positions.shape[1]), 2):
        both = (positions[:, a] >= 0) & (positions[:, b] >= 0)
        x, y = positions[both, a], positions[both, b]
        if both.sum() < min_overlap:
            continue
        if statistic == "percent":
            values.append(float(np.mean(x == y)))
        elif len(set(x) | set(y)) > 1:
            if statistic == "cohen":
                values.append(cohen_kappa_score(x, y, labels=list(range(len(SCALE))), weights=weights))
            else:
                values.append(scott_pi(list(x), list(y), categories=range(len(SCALE)), weights=weights, ci=None).value)
    return float(np.mean(values)) if values else None


@pytest.mark.parametrize("statistic, weights", [("cohen", None), ("cohen", "linear"), ("cohen", "quadratic"),
                                                ("scott", None), ("scott", "quadratic"), ("percent", None)])
@pytest.mark.parametrize("seed", range(8))
def test_equals_the_mean_of_per_pair_values_on_generated_tables(statistic, weights, seed):
    rng = np.random.default_rng(seed)
    table = random_table(rng, items=int(rng.integers(5, 80)), raters=int(rng.integers(2, 7)))
    [got] = mean_pairwise(table, statistic=statistic, weights=weights)
    expected = light_by_hand(table.positions, statistic, weights)
    if expected is None:
        assert got.value is None and got.reason
    else:
        assert got.value == pytest.approx(expected, abs=1e-12)
    assert got.n_items == int(((table.positions >= 0).sum(axis=1) >= 2).sum())


def test_each_group_equals_its_own_subtable_and_matches_pairwise_matrix():
    rng = np.random.default_rng(5)
    table = random_table(rng, items=120, raters=6, missing=0.4)
    groups = np.arange(120) % 4
    results = mean_pairwise(table, statistic="cohen", weights="linear", groups=groups)
    for g, result in enumerate(results):
        rows = np.flatnonzero(groups == g)
        sub = RatingTable(tuple(rows.tolist()), table.raters, table.positions[rows], table.categories)
        matrix = pairwise_matrix(sub, categories=SCALE, statistic="cohen", weights="linear", min_overlap=2)
        defined = [r.value for r in matrix.results.values() if r.value is not None]
        assert result.value == pytest.approx(np.mean(defined), abs=1e-12) and result.n_pairs == len(defined)


def test_light_kappa_of_a_hand_made_three_assessor_topic():
    # ann/bob agree on 3 of 4 binary labels (κ = 0.5), ann/cat always (κ = 1), bob/cat as ann/bob (κ = 0.5)
    positions = np.array([[1, 1, 1], [1, 0, 1], [0, 0, 0], [0, 0, 0]])
    table = RatingTable((1, 2, 3, 4), ("ann", "bob", "cat"), positions, (0, 1))
    [result] = mean_pairwise(table, statistic="cohen")
    assert result.value == pytest.approx((0.5 + 1.0 + 0.5) / 3) and result.n_pairs == 3 and result.n_items == 4


def test_undefined_groups_say_why():
    one_category = RatingTable((1, 2, 3), ("a", "b"), np.array([[2, 2], [2, 2], [2, 2]]), SCALE)
    [result] = mean_pairwise(one_category, statistic="cohen")
    assert result.value is None and ONE_CATEGORY in result.reason
    assert mean_pairwise(one_category, statistic="percent")[0].value == 1.0
    no_overlap = RatingTable((1, 2), ("a", "b"), np.array([[1, -1], [-1, 2]]), SCALE)
    [result] = mean_pairwise(no_overlap, statistic="cohen", n_boot=20)
    assert result.value is None and result.reason == NO_PAIR and result.n_items == 0
    one_shared = RatingTable((1, 2), ("a", "b"), np.array([[1, 2], [-1, 2]]), SCALE)
    assert mean_pairwise(one_shared, statistic="cohen")[0].reason == NO_PAIR


def test_bootstrap_interval_is_seeded_and_brackets_the_value():
    table = random_table(np.random.default_rng(3), items=200, raters=4, missing=0.3)
    [a] = mean_pairwise(table, statistic="cohen", n_boot=200, seed=1)
    [b] = mean_pairwise(table, statistic="cohen", n_boot=200, seed=1)
    [c] = mean_pairwise(table, statistic="cohen", n_boot=200, seed=2)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high) and (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.ci_low < a.value < a.ci_high and a.ci_high - a.ci_low < 0.3


def test_unknown_statistic_is_refused():
    with pytest.raises(ValueError, match="statistic must be one of"):
        mean_pairwise(random_table(np.random.default_rng(0)), statistic="fleiss")
