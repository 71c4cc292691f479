"""pool_stats numbers on a small hand-checked pool."""
import pytest

from collections_app.pool_stats import pool_stats
from collections_app.services.pools import pool_build
from tests.collections.test_pool_factories import add_qrels, add_run, bare_collection, ranked


@pytest.fixture
def pool(db):
    collection = bare_collection()  # graded scale: relevant from grade 1
    add_run(collection, "a", {"1": ranked("d1", "d2"), "2": ranked("e1")})
    add_run(collection, "b", {"1": ranked("d2", "d3"), "2": ranked("e1")})
    add_run(collection, "c", {"1": ranked("d4", "d2")})
    return pool_build(collection=collection, name="p", strategy="depth", depth=2, exclude_judged=False)


def test_stats_count_pairs_per_topic_and_per_run_with_unique_contributions(pool):
    stats = pool_stats(pool)
    assert stats["pairs"] == 5
    assert stats["topics"] == [{"qid": "1", "pairs": 4, "relevant_known": None},
                               {"qid": "2", "pairs": 1, "relevant_known": None}]
    runs = {row["tag"]: row for row in stats["runs"]}
    assert {tag: (r["contributed"], r["unique"]) for tag, r in runs.items()} == {
        "a": (3, 1), "b": (3, 1), "c": (2, 1),
    }
    assert stats["has_qrels"] is False and runs["a"]["relevant_known"] is None


def test_stats_overlap_matrix_counts_shared_pairs_and_jaccard(pool):
    overlap = pool_stats(pool)["overlap"]
    assert overlap["tags"] == ["a", "b", "c"]
    # a = {1:d1, 1:d2, 2:e1}, b = {1:d2, 1:d3, 2:e1}, c = {1:d4, 1:d2}
    assert overlap["shared"] == [[3, 2, 1], [2, 3, 1], [1, 1, 2]]
    assert overlap["jaccard"][0][1] == pytest.approx(2 / 4)
    assert overlap["jaccard"][0][2] == pytest.approx(1 / 4)
    assert overlap["jaccard"][2][2] == 1.0


def test_stats_with_qrels_report_relevant_found_per_topic_and_run(pool):
    add_qrels(pool.collection, [("1", "d2", 2), ("1", "d4", 0), ("2", "e1", 1), ("1", "d9", 3)])
    add_qrels(pool.collection, [("1", "d4", 1)], name="second round")  # highest grade wins
    stats = pool_stats(pool)
    assert {t["qid"]: t["relevant_known"] for t in stats["topics"]} == {"1": 2, "2": 1}
    assert {r["tag"]: r["relevant_known"] for r in stats["runs"]} == {"a": 2, "b": 2, "c": 2}
