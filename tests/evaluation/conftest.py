"""A small hand-made collection for the evaluation tests: 3 topics, 4 runs in 2 groups, imported qrels.

Run files go through the real importer so the stored rankings are what production stores.
"""
from __future__ import annotations

import pytest

from collections_app.models import Topic
from collections_app.services.imports import qrels_import, runs_import

TOPICS = {"401": "Storage <b>devices</b>", "402": "Solar power", "403": "<script>alert('topic')</script>"}

# tag → {qid: [docnos in rank order]}; scores descend with rank
RUNS = {
    "bm25": {"401": ["d1", "d2", "d3", "d4"], "402": ["e1", "e2", "e3"], "403": ["f1", "f2"]},
    "bm25.rm3": {"401": ["d2", "d1", "d5", "d3"], "402": ["e2", "e1", "e4"], "403": ["f2", "f3"]},
    "dense": {"401": ["d6", "d1", "d2"], "402": ["e5", "e3", "e1"], "403": ["f3", "f1", "f4"]},
    "dense.ft": {"401": ["d1", "d6", "d7"], "402": ["e3", "e5", "e6"], "403": ["f4", "f3", "f1"]},
}

QRELS = {
    "401": {"d1": 2, "d2": 1, "d3": 0, "d5": 1, "d6": 2, "d7": 0, "d9": 1},
    "402": {"e1": 1, "e2": 0, "e3": 2, "e4": 1, "e5": 0, "e6": 1},
    "403": {"f1": 0, "f2": 1, "f3": 2, "f4": 1},
}


def write_run(path, tag, ranking):
    lines = []
    for qid, docnos in ranking.items():
        for rank, docno in enumerate(docnos, 1):
            lines.append(f"{qid} Q0 {docno} {rank} {100 - rank:.1f} {tag}")
    path.write_text("\n".join(lines) + "\n")
    return path


def write_qrels(path, qrels):
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return path


@pytest.fixture
def scored(collection, tmp_path, lead):
    """The ``collection`` fixture with topics, four runs (groups by tag prefix) and imported qrels ``official``."""
    for qid, title in TOPICS.items():
        Topic.objects.create(collection=collection, qid=qid, title=title)
    for tag, ranking in RUNS.items():
        runs_import(collection=collection, sources=[write_run(tmp_path / f"{tag}.run", tag, ranking)],
                    group=tag.split(".")[0])
    qrels_import(collection=collection, source=write_qrels(tmp_path / "official.qrels", QRELS), name="official", user=lead)
    return collection


@pytest.fixture(autouse=True)
def _empty_cache():
    """Cached leaderboard scores must not leak from one test into another."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
