"""Hand-made cases for the pure adaptive strategies and the stopping estimator."""
from __future__ import annotations

import random

import pytest

from collections_app.pooling.adaptive import STRATEGIES, make_strategy
from collections_app.pooling.adaptive.stopping import clopper_pearson, estimate_remaining


def drain(strategy, relevant, *, limit=None):
    order = []
    while (docno := strategy.next()) is not None and (limit is None or len(order) < limit):
        order.append(docno)
        strategy.observe(docno, docno in relevant)
    return order


def test_unknown_name_lists_known_ones():
    with pytest.raises(ValueError, match="mtf"):
        make_strategy("nope", {"A": ["a"]})


def test_mtf_stays_on_a_run_while_it_finds_relevant_then_moves_on():
    runs = {"A": ["a1", "a2", "a3", "a4"], "B": ["b1", "b2", "b3"]}
    s = make_strategy("mtf", runs)
    order = drain(s, {"a1", "a2", "b1", "b2"}, limit=6)
    # a1, a2 relevant: stay on A; a3 not: A drops to -1 and B takes over until b3 fails;
    # both are then at -1 and the tie goes to the run used last (B), which is empty: A resumes.
    assert order == ["a1", "a2", "a3", "b1", "b2", "b3"]
    assert s.next() == "a4"


def test_mtf_moves_to_next_run_after_first_non_relevant():
    s = make_strategy("mtf", {"A": ["a1", "a2"], "B": ["b1", "b2"]})
    assert drain(s, set(), limit=2) == ["a1", "b1"]


@pytest.mark.parametrize("name", ["mm_ns", "ucb", "thompson"])
def test_bandits_favour_the_run_with_more_relevant_documents(name):
    rng = random.Random(3)
    good = [f"g{i}" for i in range(200)]
    bad = [f"b{i}" for i in range(200)]
    relevant = {d for d in good if rng.random() < 0.8} | {d for d in bad if rng.random() < 0.1}
    s = make_strategy(name, {"bad": bad, "good": good}, seed=1)
    order = drain(s, relevant, limit=100)
    assert sum(d.startswith("g") for d in order) >= 70


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_exhausting_yields_exactly_the_pool_once(name):
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(60)]
    runs = {f"r{j}": rng.sample(docs, 25) + ["d0"] for j in range(5)}  # duplicates ignored
    texts = {d: f"word{int(d[1:]) % 7} common" for d in docs}
    relevant = set(rng.sample(docs, 15))
    s = make_strategy(name, runs, seed=2, depth=20, query="word3", texts=texts)
    order = drain(s, relevant)
    pool = {d for ranked in runs.values() for d in list(dict.fromkeys(ranked))[:20]}
    assert len(order) == len(set(order)) and set(order) == pool
    assert s.judged == len(pool)


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_seeded_determinism_and_exclude(name):
    rng = random.Random(11)
    docs = [f"d{i}" for i in range(40)]
    runs = {f"r{j}": rng.sample(docs, 30) for j in range(4)}
    relevant = set(rng.sample(docs, 10))
    texts = {d: f"t{int(d[1:]) % 5}" for d in docs}
    a = drain(make_strategy(name, runs, seed=5, query="t1", texts=texts), relevant)
    b = drain(make_strategy(name, dict(reversed(list(runs.items()))), seed=5, query="t1", texts=texts), relevant)
    assert a == b
    s = make_strategy(name, runs, seed=5, query="t1", texts=texts)
    first = s.next()
    assert s.next(exclude={first}) not in (first, None)
    assert s.upcoming(3)[0] == first and len(set(s.upcoming(3))) == 3


def test_cal_learns_which_documents_are_relevant():
    docs = [f"d{i}" for i in range(300)]
    relevant = {d for d in docs if int(d[1:]) % 10 == 0}
    texts = {d: ("solar panel efficiency" if d in relevant else f"football match report {d}") for d in docs}
    # Runs are uninformative (relevant ones at the bottom), so only the text can find them.
    runs = {"A": sorted(docs, key=lambda d: (d in relevant, d))}
    s = make_strategy("cal", runs, query="solar efficiency", texts=texts)
    order = drain(s, relevant, limit=40)
    assert sum(d in relevant for d in order[:30]) == 30


def test_rank_order_is_depth_k():
    s = make_strategy("rank", {"A": ["a", "b", "c"], "B": ["b", "x"]})
    assert drain(s, set()) == ["a", "b", "x", "c"]


def test_stopping_worked_example():
    labels = [True] * 10 + [False] * 30 + [True] * 2 + [False] * 8  # last 10: 2 relevant
    e = estimate_remaining(labels, unjudged=50, window=10)
    assert e.enough_data and e.estimate == pytest.approx(10.0) and e.recent_relevant == 2
    lo, hi = clopper_pearson(2, 10)
    assert lo == pytest.approx(0.0252107, abs=1e-6) and hi == pytest.approx(0.5560955, abs=1e-6)
    assert e.low == pytest.approx(50 * lo) and e.high == pytest.approx(50 * hi)
    assert not estimate_remaining([True] * 5, unjudged=10).enough_data
    assert estimate_remaining([True] * 5, unjudged=0).estimate == 0.0


def test_stopping_interval_covers_the_truth_in_simulation():
    """On a uniform (non-adaptive) order the recent rate is unbiased: the interval covers the
    true remaining count in about 95% of simulated topics (we require >= 90%)."""
    rng = random.Random(0)
    covered = 0
    for _ in range(300):
        labels = [rng.random() < 0.2 for _ in range(400)]
        judged = labels[:200]
        truth = sum(labels[200:])
        e = estimate_remaining(judged, unjudged=200, window=200)
        covered += e.low - 1e-9 <= truth <= e.high + 1e-9
    assert covered >= 270
