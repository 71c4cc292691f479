"""Pure pooling functions: hand-checked small cases for every strategy, ties and determinism."""
import numpy as np
import pytest

from collections_app import runstore
from collections_app.pooling import ordering, selection, strategies

RUNS = {
    "b": ["d3", "d1", "d4"],
    "a": ["d1", "d2", "d5"],
    "c": ["d6", "d3", "d2"],
}


def test_depth_pool_is_the_union_of_each_runs_top_k_with_their_ranks():
    pool = strategies.depth_pool(RUNS, depth=2)
    assert pool == {
        "d1": {"a": 1, "b": 2},
        "d2": {"a": 2},
        "d3": {"b": 1, "c": 2},
        "d6": {"c": 1},
    }


def test_depth_pool_deeper_than_the_runs_takes_everything():
    assert set(strategies.depth_pool(RUNS, depth=100)) == {"d1", "d2", "d3", "d4", "d5", "d6"}


def test_depth_pool_refuses_depth_zero():
    with pytest.raises(ValueError):
        strategies.depth_pool(RUNS, depth=0)


def test_depth_pool_uses_trec_eval_order_where_equal_scores_rank_the_later_docno_first():
    docnos = np.array([b"A", b"C", b"B", b"D"])
    scores = np.array([1.0, 1.0, 1.0, 0.5])
    order = runstore.trec_order(docnos, scores)
    ranked = [d.decode() for d in docnos[order]]
    assert ranked == ["C", "B", "A", "D"]
    assert set(strategies.depth_pool({"r": ranked}, depth=2)) == {"C", "B"}


def test_round_robin_takes_rank_one_of_every_run_in_tag_order_then_rank_two():
    # rank 1: a->d1, b->d3, c->d6; rank 2: a->d2, b->d1 (taken), c->d3 (taken); rank 3: a->d5 ...
    taken = strategies.round_robin_pool(RUNS, budget=5)
    assert list(taken) == ["d1", "d3", "d6", "d2", "d5"]
    assert taken["d3"] == {"b": 1, "c": 2}


def test_round_robin_cut_inside_a_rank_follows_tag_order():
    assert list(strategies.round_robin_pool(RUNS, budget=2)) == ["d1", "d3"]


def test_round_robin_skips_judged_documents_without_spending_budget():
    assert list(strategies.round_robin_pool(RUNS, budget=2, skip={"d1"})) == ["d3", "d6"]


def test_round_robin_with_a_budget_above_all_documents_takes_all():
    assert len(strategies.round_robin_pool(RUNS, budget=50)) == 6


def test_rrf_sums_reciprocal_ranks_with_k_60():
    fused = strategies.fused_scores(RUNS, method="rrf")
    assert fused["d1"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["d3"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["d2"] == pytest.approx(1 / 62 + 1 / 63)
    assert fused["d4"] == pytest.approx(1 / 63)
    assert strategies.fused_scores(RUNS, method="rrf", rrf_k=0)["d6"] == pytest.approx(1.0)


def test_fused_pool_takes_the_best_fused_scores_and_breaks_ties_by_docno_descending():
    # d1 and d3 tie (1/61 + 1/62): docno descending puts d3 first.
    assert list(strategies.fused_pool(RUNS, budget=1, method="rrf")) == ["d3"]
    assert list(strategies.fused_pool(RUNS, budget=3, method="rrf")) == ["d3", "d1", "d2"]


def test_borda_gives_longest_minus_rank_plus_one_points():
    fused = strategies.fused_scores({"a": ["x", "y", "z"], "b": ["y"]}, method="borda")
    assert fused == {"x": 3.0, "y": 2.0 + 3.0, "z": 1.0}
    assert list(strategies.fused_pool({"a": ["x", "y", "z"], "b": ["y"]}, budget=2, method="borda")) == ["y", "x"]


def test_combsum_sums_min_max_normalised_scores_per_run():
    rankings = {"a": ["x", "y", "z"], "b": ["z", "w"]}
    scores = {"a": np.array([10.0, 6.0, 2.0]), "b": np.array([3.0, 1.0])}
    fused = strategies.fused_scores(rankings, method="combsum", scores=scores)
    assert fused == pytest.approx({"x": 1.0, "y": 0.5, "z": 0.0 + 1.0, "w": 0.0})
    # x and z tie at 1.0: docno descending takes z first.
    assert list(strategies.fused_pool(rankings, budget=2, method="combsum", scores=scores)) == ["z", "x"]


def test_combsum_run_with_equal_scores_gives_one_to_each_document():
    fused = strategies.fused_scores({"a": ["x", "y"]}, method="combsum", scores={"a": np.array([2.0, 2.0])})
    assert fused == {"x": 1.0, "y": 1.0}


def test_fusion_refuses_unknown_method_and_combsum_without_scores():
    with pytest.raises(ValueError):
        strategies.fused_scores(RUNS, method="max")
    with pytest.raises(ValueError):
        strategies.fused_scores(RUNS, method="combsum")


def test_fused_scores_with_depth_only_count_ranks_within_it():
    assert set(strategies.fused_scores(RUNS, method="rrf", depth=1)) == {"d1", "d3", "d6"}


def test_judging_order_by_fused_score_goes_topic_by_topic_in_numeric_qid_order():
    pairs = {"10": ["x", "y"], "2": ["a", "b", "c"]}
    fused = {"10": {"x": 0.1, "y": 0.2}, "2": {"a": 0.5, "b": 0.5, "c": 0.9}}
    assert ordering.judging_order(pairs, fused=fused) == [
        ("2", "c"), ("2", "b"), ("2", "a"), ("10", "y"), ("10", "x"),
    ]


def test_random_judging_order_is_the_same_for_the_same_seed_and_input_order_does_not_matter():
    docs = [f"d{i:02d}" for i in range(30)]
    first = ordering.judging_order({"1": docs, "2": docs}, order="random", seed=7)
    again = ordering.judging_order({"2": list(reversed(docs)), "1": docs[::-1]}, order="random", seed=7)
    other = ordering.judging_order({"1": docs, "2": docs}, order="random", seed=8)
    assert first == again
    assert first != other
    assert sorted(first) == sorted((q, d) for q in ("1", "2") for d in docs)
    assert [d for q, d in first if q == "1"] != sorted(docs)


def test_judging_order_refuses_unknown_order():
    with pytest.raises(ValueError):
        ordering.judging_order({"1": ["a"]}, order="alphabetical")


def test_strategies_are_deterministic_whatever_the_input_dict_order():
    shuffled = {tag: RUNS[tag] for tag in ("c", "a", "b")}
    assert list(strategies.round_robin_pool(shuffled, budget=4)) == list(strategies.round_robin_pool(RUNS, budget=4))
    assert strategies.depth_pool(shuffled, depth=3) == strategies.depth_pool(RUNS, depth=3)


def test_runs_choose_keeps_at_most_n_runs_per_group_first_by_tag():
    runs = [("g1-b", "g1"), ("g1-a", "g1"), ("g1-c", "g1"), ("g2-a", "g2"), ("solo", ""), ("solo2", "")]
    assert selection.runs_choose(runs, max_per_group=2) == ["g1-a", "g1-b", "g2-a", "solo", "solo2"]
    assert selection.runs_choose(runs, tags=["g1-c", "g1-b"], max_per_group=1) == ["g1-b"]


def test_runs_choose_refuses_unknown_tags_and_a_zero_cap():
    with pytest.raises(ValueError, match="nope"):
        selection.runs_choose([("a", "")], tags=["a", "nope"])
    with pytest.raises(ValueError):
        selection.runs_choose([("a", "")], max_per_group=0)


def test_rrf_from_depth_ranks_equals_fused_scores_cut_at_the_depth():
    pool = strategies.depth_pool(RUNS, depth=2)
    direct = {d: sum(1.0 / (strategies.RRF_K + r) for r in ranks.values()) for d, ranks in pool.items()}
    assert direct == pytest.approx(strategies.fused_scores(RUNS, method="rrf", depth=2))


def _random_runs(seed, n_runs=4, universe=30, length=12):
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(universe)]
    return {f"r{t}": [docs[i] for i in rng.choice(universe, size=length, replace=False)] for t in range(n_runs)}


@pytest.mark.parametrize("seed", range(20))
def test_strategies_agree_with_plain_definitions_on_random_runs(seed):
    runs = _random_runs(seed)
    for depth in (1, 3, 7, 12):
        expected = {d for ranking in runs.values() for d in ranking[:depth]}
        assert set(strategies.depth_pool(runs, depth=depth)) == expected
    shallow, deep = strategies.depth_pool(runs, depth=3), strategies.depth_pool(runs, depth=8)
    assert set(shallow) <= set(deep)
    union = {d for ranking in runs.values() for d in ranking}
    for budget in (1, 5, 17, 100):
        taken = strategies.round_robin_pool(runs, budget=budget)
        assert len(taken) == min(budget, len(union))
        # a document is taken in the round of its best rank; rounds before the last one are complete
        deepest = max(min(ranks.values()) for ranks in taken.values())
        if deepest > 1:
            assert set(strategies.depth_pool(runs, depth=deepest - 1)) <= set(taken)
        fused = strategies.fused_scores(runs, method="rrf")
        best = strategies.fused_pool(runs, budget=budget)
        cutoff = min(fused[d] for d in best)
        assert all(fused[d] <= cutoff for d in union - set(best))
