"""pool_build / pool_deepen / pool_delete on the database."""
import pytest
from django.core.exceptions import ValidationError

from collections_app.models import Pool, PoolPair
from collections_app.services.pools import pool_build, pool_deepen, pool_delete
from tests.collections.test_pool_factories import add_documents, add_qrels, add_run, bare_collection, ranked


@pytest.fixture
def collection(db):
    return bare_collection()


@pytest.fixture
def runs(collection):
    """Three runs over topics 1 and 2; ``c`` ties d1/d2 on score (trec_eval puts d2 first)."""
    add_run(collection, "a", {"1": ranked("d1", "d2", "d3", "d4"), "2": ranked("e1", "e2")}, group="g1")
    add_run(collection, "b", {"1": ranked("d3", "d5", "d1", "d6"), "2": ranked("e3", "e1")}, group="g1")
    add_run(collection, "c", {"1": [("d1", 5.0), ("d2", 5.0), ("d7", 1.0)]}, group="g2")
    add_documents(collection, "d1", "d2", "d3")
    return collection


def pairs_of(pool):
    return [(p.topic.qid, p.docno) for p in pool.pairs.select_related("topic").order_by("judging_order")]


def test_depth_pool_holds_each_runs_top_k_in_fused_order_with_ranks_and_documents(runs):
    pool = pool_build(collection=runs, name="p", strategy="depth", depth=1)
    # topic 1 top-1: a->d1, b->d3, c->d2 (tie d1/d2 at 5.0: docno descending ranks d2 first).
    # RRF at depth 1 is 1/61 each: ties by docno descending -> d3, d2, d1.
    assert pairs_of(pool) == [("1", "d3"), ("1", "d2"), ("1", "d1"), ("2", "e3"), ("2", "e1")]
    pair = pool.pairs.get(docno="d2")
    assert pair.run_ranks == {"c": 1} and pair.best_rank == 1
    assert pair.document is not None and pool.pairs.get(docno="e1").document is None
    assert list(pool.pairs.order_by("judging_order").values_list("judging_order", flat=True)) == [1, 2, 3, 4, 5]
    assert pair.fused_score == pytest.approx(1 / 61)
    assert sorted(pool.runs.values_list("tag", flat=True)) == ["a", "b", "c"]
    assert pool.parameters["depth"] == 1 and pool.parameters["exclude_judged"] is True


def test_depth_pool_run_ranks_record_every_contributing_run(runs):
    pool = pool_build(collection=runs, name="p", strategy="depth", depth=3)
    assert pool.pairs.get(docno="d1").run_ranks == {"a": 1, "b": 3, "c": 2}
    assert pool.pairs.get(docno="d1").best_rank == 1
    assert {d for q, d in pairs_of(pool) if q == "1"} == {"d1", "d2", "d3", "d5", "d7"}


def test_budget_pool_takes_n_per_topic_round_robin(runs):
    pool = pool_build(collection=runs, name="rr", strategy="budget", budget=4)
    # topic 1 rank 1: a d1, b d3, c d2; rank 2: a d2 (taken), b d5.
    assert {d for q, d in pairs_of(pool) if q == "1"} == {"d1", "d3", "d2", "d5"}
    assert {d for q, d in pairs_of(pool) if q == "2"} == {"e1", "e3", "e2"}


# Topic 1 in trec_eval order: a = d1 d2 d3 d4 (scores 4..1), b = d3 d5 d1 d6 (4..1), c = d2 d1 d7 (5, 5, 1).
@pytest.mark.parametrize("fusion, d1, d2, d3", [
    ("rrf", 1 / 61 + 1 / 63 + 1 / 62, 1 / 62 + 1 / 61, 1 / 63 + 1 / 61),
    ("borda", 4 + 2 + 3, 3 + 4, 2 + 4),                    # L = 4: points 4, 3, 2, 1
    ("combsum", 1 + 1 / 3 + 1, 2 / 3 + 1, 1 / 3 + 1),       # min-max per run; c's tie both get 1
])
def test_fusion_pool_takes_the_top_fused_documents(runs, fusion, d1, d2, d3):
    pool = pool_build(collection=runs, name=f"f-{fusion}", strategy="fusion", budget=2, fusion=fusion)
    assert [d for q, d in pairs_of(pool) if q == "1"] == ["d1", "d2"]
    assert pool.pairs.get(docno="d1").fused_score == pytest.approx(d1)
    assert pool.pairs.get(docno="d2").fused_score == pytest.approx(d2)
    wider = pool_build(collection=runs, name=f"w-{fusion}", strategy="fusion", budget=3, fusion=fusion)
    assert wider.pairs.get(docno="d3").fused_score == pytest.approx(d3)
    assert pool.parameters["fusion"] == fusion


def test_same_inputs_give_the_same_pool_and_order(runs):
    first = pool_build(collection=runs, name="x", strategy="budget", budget=3, order="random", seed=3)
    second = pool_build(collection=runs, name="y", strategy="budget", budget=3, order="random", seed=3)
    assert pairs_of(first) == pairs_of(second)


def test_judged_pairs_are_left_out_unless_asked(runs):
    add_qrels(runs, [("1", "d1", 2), ("2", "e9", 0)])
    excluded = pool_build(collection=runs, name="ex", strategy="depth", depth=2)
    included = pool_build(collection=runs, name="in", strategy="depth", depth=2, exclude_judged=False)
    assert ("1", "d1") not in pairs_of(excluded)
    assert ("1", "d1") in pairs_of(included)
    assert len(pairs_of(included)) == len(pairs_of(excluded)) + 1


def test_subset_of_runs_and_per_group_cap(runs):
    only_b = pool_build(collection=runs, name="b", strategy="depth", depth=1, run_tags=["b"])
    assert pairs_of(only_b) == [("1", "d3"), ("2", "e3")]
    capped = pool_build(collection=runs, name="cap", strategy="depth", depth=1, max_runs_per_group=1)
    assert sorted(capped.runs.values_list("tag", flat=True)) == ["a", "c"]  # g1 keeps a (first by tag)
    assert {d for _, d in pairs_of(capped)} == {"d1", "d2", "e1"}


@pytest.mark.parametrize("kwargs, code", [
    ({"strategy": "depth"}, "depth_required"),
    ({"strategy": "depth", "depth": 0}, "bad_depth"),
    ({"strategy": "budget"}, "budget_required"),
    ({"strategy": "fusion", "budget": 2, "fusion": "max"}, "bad_fusion"),
    ({"strategy": "depth", "depth": 2, "order": "alpha"}, "bad_order"),
    ({"strategy": "magic", "depth": 2}, "bad_strategy"),
    ({"strategy": "depth", "depth": 2, "run_tags": ["a", "zzz"]}, "unknown_run"),
    ({"strategy": "depth", "depth": 2, "max_runs_per_group": 0}, "bad_max_runs_per_group"),
])
def test_bad_parameters_are_refused_with_a_code_and_nothing_is_saved(runs, kwargs, code):
    with pytest.raises(ValidationError) as info:
        pool_build(collection=runs, name="bad", **kwargs)
    assert info.value.code == code
    assert not Pool.objects.exists() and not PoolPair.objects.exists()


def test_a_taken_name_is_refused(runs):
    pool_build(collection=runs, name="p", strategy="depth", depth=1)
    with pytest.raises(ValidationError) as info:
        pool_build(collection=runs, name="p", strategy="depth", depth=2)
    assert info.value.code == "name_taken"


def test_a_collection_without_runs_has_nothing_to_pool(collection):
    with pytest.raises(ValidationError) as info:
        pool_build(collection=collection, name="p", strategy="depth", depth=1)
    assert info.value.code == "no_runs"


def test_deepening_appends_only_new_pairs_after_the_existing_order(runs):
    pool = pool_build(collection=runs, name="p", strategy="depth", depth=1)
    before = pairs_of(pool)
    pool_deepen(pool=pool, depth=2)
    after = pairs_of(pool)
    assert after[: len(before)] == before
    assert len(after) == len(set(after))
    fresh = pool_build(collection=runs, name="fresh", strategy="depth", depth=2)
    assert set(after) == set(pairs_of(fresh))
    pool.refresh_from_db()
    assert pool.parameters["depth"] == 2 and pool.parameters["deepened"] == [{"from": 1, "to": 2}]
    # existing pairs learn the ranks the deeper cut reveals: d2 is a's rank 2
    assert pool.pairs.get(docno="d2").run_ranks == {"a": 2, "c": 1}


def test_deepening_refuses_a_shallower_depth_a_budget_pool_and_a_frozen_pool(runs):
    pool = pool_build(collection=runs, name="p", strategy="depth", depth=2)
    with pytest.raises(ValidationError) as info:
        pool_deepen(pool=pool, depth=2)
    assert info.value.code == "bad_depth"
    budget = pool_build(collection=runs, name="b", strategy="budget", budget=2)
    with pytest.raises(ValidationError) as info:
        pool_deepen(pool=budget, depth=5)
    assert info.value.code == "not_depth_pool"
    Pool.objects.filter(pk=pool.pk).update(frozen=True)
    pool.refresh_from_db()
    with pytest.raises(ValidationError) as info:
        pool_deepen(pool=pool, depth=5)
    assert info.value.code == "frozen"


def test_delete_removes_the_pool_but_refuses_a_frozen_one(runs):
    pool = pool_build(collection=runs, name="p", strategy="depth", depth=1)
    frozen = pool_build(collection=runs, name="f", strategy="depth", depth=1)
    Pool.objects.filter(pk=frozen.pk).update(frozen=True)
    pool_delete(pool=pool)
    assert not Pool.objects.filter(pk=pool.pk).exists()
    assert not PoolPair.objects.filter(pool_id=pool.pk).exists()
    with pytest.raises(ValidationError) as info:
        pool_delete(pool=frozen)
    assert info.value.code == "frozen"
    assert Pool.objects.filter(pk=frozen.pk).exists()


@pytest.mark.parametrize("n", [0, 1, 2, 299, 300, 301, 1000])
def test_head_docnos_equals_unpacking_and_slicing(n):
    import numpy as np

    from collections_app import runstore
    from collections_app.services.pools import _head_docnos

    docnos = np.array([f"dôc-{i:04d}".encode() for i in range(300)])
    blob, _ = runstore.pack(docnos, np.zeros(300))
    assert _head_docnos(blob, n) == runstore.unpack_docnos(blob)[:n]
    empty, _ = runstore.pack(np.array([], dtype="S1"), np.zeros(0))
    assert _head_docnos(empty, n) == []


def test_run_ranks_json_round_trips_odd_tags(collection):
    add_run(collection, 'we"ird\\tag é', {"1": ranked("d1")})
    pool = pool_build(collection=collection, name="p", strategy="depth", depth=1)
    assert pool.pairs.get().run_ranks == {'we"ird\\tag é': 1}


def test_judged_documents_do_not_spend_a_budget(runs):
    add_qrels(runs, [("1", "d1", 0), ("1", "d3", 1)])
    pool = pool_build(collection=runs, name="rr", strategy="budget", budget=3)
    # round-robin without d1 and d3: rank 1 a d1 (judged), b d3 (judged), c d2; rank 2: a d2 (taken), b d5, c d1
    # (judged); rank 3: a d3 (judged), b d1 (judged), c d7
    # judging order by RRF over the full rankings: d2 (1/62 + 1/61), d5 (1/62), d7 (1/63)
    assert [d for q, d in pairs_of(pool) if q == "1"] == ["d2", "d5", "d7"]


def test_deepening_a_random_pool_keeps_the_old_order_and_is_deterministic(runs):
    first = pool_build(collection=runs, name="r1", strategy="depth", depth=1, order="random", seed=4)
    second = pool_build(collection=runs, name="r2", strategy="depth", depth=1, order="random", seed=4)
    before = pairs_of(first)
    pool_deepen(pool=first, depth=3)
    pool_deepen(pool=second, depth=3)
    assert pairs_of(first)[: len(before)] == before
    assert pairs_of(first) == pairs_of(second)
    assert set(pairs_of(first)) == set(pairs_of(pool_build(collection=runs, name="f", strategy="depth", depth=3)))
