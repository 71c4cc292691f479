"""Planner engine: hand-computed small cases, consistency, reproducibility from the seed."""
import math

import pytest

from collections_app.simulation import engine
from collections_app.simulation.engine import judgments_to_reach, simulate

from .conftest import QRELS, RANKINGS, generated_case


def _points(report, strategy):
    return {p.setting: p for p in report.points if p.strategy == strategy}


def test_depth_k_relevant_found_and_judgments_by_hand():
    report = simulate(RANKINGS, QRELS, strategies=["depth"], depths=[1, 2, 4], max_depth=4)
    pts = _points(report, "depth")
    # k=1: {d1, d3} + {x, y}; k=2: {d1, d2, d3, d5} + {x, y, z}; k=4: all six + {x, y, z}.
    assert [(pts[k].judgments, pts[k].relevant) for k in ("k=1", "k=2", "k=4")] == [(4, 1), (7, 2), (9, 3)]
    assert report.findable_relevant == 3  # d9 is never retrieved
    assert pts["k=2"].recall == pytest.approx(2 / 3)
    assert report.curves["depth"] == [(4, 1), (7, 2), (9, 3)]


def test_map_and_tau_at_a_budget_by_hand():
    report = simulate(RANKINGS, QRELS, strategies=["depth"], depths=[2], max_depth=4)
    # Complete: A: t1 AP (1/1)/3, t2 0 -> 1/6; B: t1 (1/3 + 2/4)/3, t2 1/2 -> (5/18 + 1/2)/2.
    assert report.complete_map == pytest.approx({"A": 1 / 6, "B": (5 / 18 + 1 / 2) / 2})
    # Depth 2 judges d1 (rel) and z (rel) only: A: t1 1, t2 0 -> 1/2; B: t1 1/3, t2 1/2 -> 5/12.
    point = _points(report, "depth")["k=2"]
    assert point.map == pytest.approx({"A": 1 / 2, "B": 5 / 12})
    assert point.tau_map == -1.0  # the two runs swap places
    # nDCG@10 at depth 2, graded gains: B t2 = 2/log2(3) / 2 ; t1 = (1/log2(4)) / 1.
    assert point.ndcg10["B"] == pytest.approx((0.5 + 1 / math.log2(3)) / 2)


def test_round_robin_and_fused_orders_by_hand():
    report = simulate(RANKINGS, QRELS, strategies=["roundrobin", "fused"], budgets=[1, 3], max_depth=4)
    rr, fused = _points(report, "roundrobin"), _points(report, "fused")
    # Round robin: t1 d1, d3, d2; t2 x, y, z.
    assert (rr["B=1"].judgments, rr["B=1"].relevant) == (2, 1)
    assert (rr["B=3"].judgments, rr["B=3"].relevant) == (6, 2)
    # RRF: d1 and d3 tie (ranks 1 and 3), docno descending puts d3 first; y leads topic 2.
    assert (fused["B=1"].judgments, fused["B=1"].relevant) == (2, 0)
    assert engine.fused_order(RANKINGS["1"], depth=4)[:2] == ["d3", "d1"]
    assert engine.roundrobin_order(RANKINGS["1"], depth=4) == ["d1", "d3", "d2", "d5", "d4", "d6"]


def test_budget_never_exceeded_and_curves_agree_with_points():
    rankings, qrels = generated_case(3)
    budgets = [5, 10, 30]
    report = simulate(rankings, qrels, budgets=budgets, depths=[5, 10], max_depth=40, seed=3)
    topics = len(qrels)
    for p in report.points:
        if p.setting.startswith("B="):
            assert p.judgments <= int(p.setting[2:]) * topics
        assert 0 <= p.relevant <= p.judgments
        assert p.relevant <= report.findable_relevant
    for name, curve in report.curves.items():
        found = dict(curve)
        for p in report.points:
            if p.strategy == name:
                assert found[p.judgments] == p.relevant, (name, p.setting)
        assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(curve, curve[1:]))


def test_judging_everything_findable_reproduces_the_complete_ranking():
    rankings, qrels = generated_case(5)
    # Qrels restricted to the runs' documents: judging every pooled document is then complete.
    pooled = {q: {d for r in t.values() for d in r} for q, t in rankings.items()}
    qrels = {q: {d: g for d, g in grades.items() if d in pooled[q]} for q, grades in qrels.items()}
    report = simulate(rankings, qrels, strategies=["depth", "roundrobin"], depths=[50], budgets=[10_000],
                      max_depth=50)
    for p in report.points:
        assert p.recall == 1.0
        assert p.map == pytest.approx(report.complete_map)
        assert p.tau_map == pytest.approx(1.0)


def test_same_seed_same_report_and_the_seed_matters_for_sampling():
    rankings, qrels = generated_case(7)
    options = dict(budgets=[5, 20], depths=[5], sample_rates=[0.1, 0.3], max_depth=40)
    first = simulate(rankings, qrels, seed=11, **options).to_dict()
    assert simulate(rankings, qrels, seed=11, **options).to_dict() == first
    other = simulate(rankings, qrels, seed=12, strategies=["sample"], **options)
    same = [p for p in first["points"] if p["strategy"] == "sample"]
    assert [p["map"] for p in same] != [p.map for p in other.points]


def test_sampled_pool_point_uses_estimators_and_judges_the_top_ten_fully():
    rankings, qrels = generated_case(2)
    report = simulate(rankings, qrels, strategies=["sample", "depth"], depths=[10], sample_rates=[1.0],
                      max_depth=40)
    full = _points(report, "sample")["rate=1"]
    # Rate 1 judges the whole top 40: the estimators then equal MAP up to infAP's epsilon smoothing.
    complete_at_40 = simulate(rankings, qrels, strategies=["depth"], depths=[40], max_depth=40).points[0]
    assert full.judgments == complete_at_40.judgments
    assert full.map == pytest.approx(complete_at_40.map, abs=1e-4)
    assert full.judgments >= _points(report, "depth")["k=10"].judgments


def test_judgments_to_reach_picks_the_cheapest_point():
    report = simulate(RANKINGS, QRELS, strategies=["depth"], depths=[1, 2, 4], max_depth=4)
    assert judgments_to_reach(report, "depth", 0.6).setting == "k=2"
    assert judgments_to_reach(report, "depth", 1.0).setting == "k=4"
    assert judgments_to_reach(report, "fused", 0.5) is None


@pytest.mark.parametrize("bad", [dict(strategies=["nope"]), dict(budgets=[0]), dict(sample_rates=[0.0]),
                                 dict(max_depth=0)])
def test_bad_arguments_raise_value_error(bad):
    with pytest.raises(ValueError):
        simulate(RANKINGS, QRELS, **bad)


def test_no_common_topic_is_an_error():
    with pytest.raises(ValueError, match="no topic"):
        simulate(RANKINGS, {"99": {"a": 1}})


def test_adaptive_strategies_are_offered_and_replayed_within_budget():
    adaptive = pytest.importorskip("collections_app.pooling.adaptive")
    names = [n for n in adaptive.STRATEGIES if n != "cal"]
    assert set(names) <= set(engine.available_strategies())
    rankings, qrels = generated_case(4)
    report = simulate(rankings, qrels, strategies=names, budgets=[5, 15], max_depth=40, seed=1)
    again = simulate(rankings, qrels, strategies=names, budgets=[5, 15], max_depth=40, seed=1)
    assert report.to_dict() == again.to_dict()
    for p in report.points:
        assert p.judgments <= int(p.setting[2:]) * len(qrels)
