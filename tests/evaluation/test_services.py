"""Significance, stability and pool bias services against hand-computed answers and independent code."""
from __future__ import annotations

import copy
import random

import pytest

from evaluation.pool_bias import pool_bias, top_docs, unique_relevant
from evaluation.runs import collection_runs
from evaluation.selectors import board
from evaluation.significance import significance_matrix
from evaluation.stability import compare_rankings, stability_between, swapped_pairs
from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.significance import holm_adjust, randomization_test
from tests.evaluation.conftest import QRELS, RUNS

pytestmark = pytest.mark.django_db

GROUPS = {"bm25": "bm25", "bm25.rm3": "bm25", "dense": "dense", "dense.ft": "dense"}


def metrics_run(tag):
    return run_from_dict({q: {d: 100.0 - r for r, d in enumerate(docs, 1)} for q, docs in RUNS[tag].items()}, tag=tag)


def test_unique_relevant_by_hand(scored):
    runs = collection_runs(scored)
    loro = unique_relevant(QRELS, top_docs(runs, 100), {t: t for t in RUNS}, relevance_level=1)
    assert loro == {"bm25": {}, "bm25.rm3": {"401": ["d5"], "402": ["e4"]}, "dense": {}, "dense.ft": {"402": ["e6"]}}
    logo = unique_relevant(QRELS, top_docs(runs, 100), GROUPS, relevance_level=1)
    assert logo["bm25"] == logo["bm25.rm3"] == {"401": ["d5"], "402": ["e4"], "403": ["f2"]}
    assert logo["dense"] == logo["dense.ft"] == {"401": ["d6"], "402": ["e6"], "403": ["f4"]}
    top1 = unique_relevant(QRELS, top_docs(runs, 1), {t: t for t in RUNS}, relevance_level=1)
    assert top1 == {"bm25": {"402": ["e1"]}, "bm25.rm3": {"401": ["d2"], "403": ["f2"]},
                    "dense": {"401": ["d6"], "403": ["f3"]}, "dense.ft": {"402": ["e3"], "403": ["f4"]}}
    # grade 2 only: the threshold is respected
    strict = unique_relevant(QRELS, top_docs(runs, 100), {t: t for t in RUNS}, relevance_level=2)
    assert all(not v for v in strict.values())  # d1, d6, e3, f3 are each found by two or more runs


def test_pool_bias_scores_against_hand_reduced_qrels(scored):
    rows = {r.tag: r for r in pool_bias(QRELS, collection_runs(scored), relevance_level=1, depth=100)}
    reduced = copy.deepcopy(QRELS)
    del reduced["401"]["d5"], reduced["402"]["e4"]
    want = evaluate(qrels_from_dict(reduced), metrics_run("bm25.rm3"), ["map", "ndcg_cut.10"], warn=False).aggregate
    full = evaluate(qrels_from_dict(QRELS), metrics_run("bm25.rm3"), ["map", "ndcg_cut.10"], warn=False).aggregate
    row = rows["bm25.rm3"]
    assert row.unique_relevant == 2
    assert row.full["map"] == pytest.approx(full["map"]) and row.reduced["map"] == pytest.approx(want["map"])
    assert row.reduced["ndcg_cut_10"] == pytest.approx(want["ndcg_cut_10"])
    assert row.difference["map"] == pytest.approx(want["map"] - full["map"])
    assert rows["bm25"].unique_relevant == 0 and rows["bm25"].difference["map"] == 0
    all_map = {t: evaluate(qrels_from_dict(QRELS), metrics_run(t), ["map"], warn=False).aggregate["map"] for t in RUNS}
    others = [v for t, v in all_map.items() if t != "bm25.rm3"]
    assert row.rank_full == 1 + sum(v > all_map["bm25.rm3"] for v in others)
    assert row.rank_reduced == 1 + sum(v > want["map"] for v in others)


def brute_unique(qrels, rankings, groups, depth, level):
    out = {}
    for tag in rankings:
        out[tag] = {}
        members = [t for t in rankings if groups[t] == groups[tag]]
        for qid in {q for m in members for q in rankings[m]}:
            found = set()
            for m in members:
                found |= set(rankings[m].get(qid, [])[:depth])
            mine = []
            for d in sorted(found):
                if qrels.get(qid, {}).get(d, -1) < level:
                    continue
                if any(d in rankings[o].get(qid, [])[:depth] for o in rankings if groups[o] != groups[tag]):
                    continue
                mine.append(d)
            if mine:
                out[tag][qid] = mine
    return out


@pytest.mark.parametrize("seed", range(25))
def test_unique_relevant_equals_brute_force(seed):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(15)]
    qids = ["1", "2", "3"]
    rankings = {f"r{i}": {q: rng.sample(docs, rng.randint(1, 10)) for q in qids if rng.random() < 0.9} for i in range(5)}
    groups = {t: (t if seed % 2 else f"g{int(t[1:]) % 2}") for t in rankings}
    qrels = {q: {d: rng.randint(0, 2) for d in rng.sample(docs, 8)} for q in qids}
    depth, level = rng.randint(1, 8), rng.randint(1, 2)
    runs = [run_from_dict({q: {d: 50.0 - r for r, d in enumerate(ds)} for q, ds in topics.items()}, tag=t)
            for t, topics in rankings.items()]
    got = unique_relevant(qrels, top_docs(runs, depth), groups, relevance_level=level)
    assert got == brute_unique(qrels, rankings, groups, depth, level)


def test_significance_matrix_equals_randomization_and_holm(scored):
    results = board(scored).results
    matrix = significance_matrix(results, "map", n_permutations=500, seed=3)
    per_topic = {r.tag: {q: v["map"] for q, v in r.per_topic.items()} for r in results}
    assert len(matrix.cells) == 6
    raw = [randomization_test(per_topic[c.run_a], per_topic[c.run_b], n_permutations=500, seed=3).p_value
           for c in matrix.cells]
    assert [c.p_value for c in matrix.cells] == pytest.approx(raw)
    assert [c.p_holm for c in matrix.cells] == pytest.approx(holm_adjust(raw))
    grid = dict(matrix.grid())
    a, b = matrix.cells[0].run_a, matrix.cells[0].run_b
    assert grid[b][matrix.runs.index(a)].mean_difference == pytest.approx(-matrix.cells[0].mean_difference)
    assert significance_matrix(results, "map", max_runs=2).runs == [matrix.runs[0], matrix.runs[1]]


def test_swapped_pairs_and_tau():
    a = {"A": 0.4, "B": 0.3, "C": 0.2, "D": 0.1}
    b = {"A": 0.3, "B": 0.4, "C": 0.2, "D": 0.1}
    assert swapped_pairs(a, b) == [("A", "B")]
    comparison = compare_rankings("x", a, "y", b)
    assert comparison.tau == pytest.approx(4 / 6)  # 5 concordant, 1 discordant of 6 pairs
    assert comparison.tau_ap == pytest.approx(1 / 3)
    same = compare_rankings("x", a, "y", a)
    assert same.tau == 1 and same.swapped == []
    assert compare_rankings("x", {"A": 1}, "y", {"A": 1}).tau is None


def test_stability_between_two_qrels(scored):
    runs = collection_runs(scored)
    other = copy.deepcopy(QRELS)
    other["401"]["d5"] = 0  # take away rm3's unique find
    other["402"]["e6"] = 2
    comparison = stability_between(qrels_from_dict(QRELS), qrels_from_dict(other), runs, measure="map", request="map",
                                   relevance_level=1, label_a="a", label_b="b")
    want_b = {t: evaluate(qrels_from_dict(other), metrics_run(t), ["map"], warn=False).aggregate["map"] for t in RUNS}
    assert comparison.scores_b == pytest.approx(want_b)
    assert comparison.swapped == swapped_pairs(comparison.scores_a, want_b)


def test_top_docs_orders_like_trec_eval_with_unicode_docnos():
    # equal scores: trec_eval breaks ties by docno descending, byte-wise
    run = run_from_dict({"1": {"dé": 1.0, "da": 1.0, "dz": 2.0, "d0": 0.5}}, tag="u")
    assert top_docs([run], 2) == {"u": {"1": {"dz", "dé"}}}
    assert top_docs([run], 3) == {"u": {"1": {"dz", "dé", "da"}}}


def test_degenerate_inputs_do_not_crash(scored):
    results = board(scored).results
    one = significance_matrix(results[:1], "map")
    assert one.cells == [] and one.grid() == [(results[0].tag, [None])]
    with pytest.raises(ValueError):
        significance_matrix(results, "map", max_runs=1)
    with pytest.raises(ValueError):
        pool_bias(QRELS, collection_runs(scored), relevance_level=1, depth=0)
    level = compare_rankings("a", {"x": 0.5, "y": 0.5}, "b", {"x": 0.1, "y": 0.2})
    assert level.tau is None and level.note and level.swapped == []


def test_empty_collection_has_no_source(collection):
    assert board(collection).source is None and board(collection).rows == []


def test_significance_is_cached_with_the_scores_and_identical(scored):
    from evaluation.selectors import significance

    _, first = significance(scored, measure="map", n_permutations=200)
    _, again = significance(scored, measure="map", n_permutations=200)
    fresh = significance_matrix(board(scored).results, "map", n_permutations=200)
    assert [vars(c) for c in again.cells] == [vars(c) for c in first.cells] == [vars(c) for c in fresh.cells]


def test_pool_bias_report_cached_and_keyed_by_depth_and_groups(scored):
    from collections_app.models import Run
    from evaluation.selectors import pool_bias_report

    _, _, first = pool_bias_report(scored, depth=100)
    _, _, again = pool_bias_report(scored, depth=100)
    assert [(r.tag, r.unique_relevant, r.reduced) for r in again] == [(r.tag, r.unique_relevant, r.reduced) for r in first]
    _, _, shallow = pool_bias_report(scored, depth=1)
    assert {r.tag: r.unique_relevant for r in shallow} == {"bm25": 1, "bm25.rm3": 2, "dense": 2, "dense.ft": 2}
    _, _, grouped = pool_bias_report(scored, depth=100, by_group=True)
    assert {r.tag: r.unique_relevant for r in grouped} == {t: 3 for t in RUNS}
    Run.objects.filter(collection=scored).update(group="")  # groups fall back to the tag prefix: same here
    Run.objects.filter(collection=scored, tag="dense.ft").update(group="solo")
    _, _, regrouped = pool_bias_report(scored, depth=100, by_group=True)
    assert {r.tag: r.group for r in regrouped}["dense.ft"] == "solo"
    assert {r.tag: r.unique_relevant for r in regrouped}["dense.ft"] == 1  # e6 only; f4 and d6 shared with dense
