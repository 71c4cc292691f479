"""Adaptive-order fixtures: a pool whose pairs come from two runs with known ranks.

Each topic (501, 502) has six documents: run "A" ranks D1..D3 at 1..3, run "B" ranks D4..D6 at
1..3. ``RELEVANT`` holds B's documents only, so adaptive strategies should leave A quickly.
"""
from __future__ import annotations

import pytest

from collections_app.models import Document, Pool, PoolPair, Topic
from tests.judging.conftest import campaign_factory

TOPICS = ("501", "502")
RELEVANT = {f"T{q}-D{d}" for q in TOPICS for d in (4, 5, 6)}


def build_two_run_pool(collection) -> Pool:
    pool = Pool.objects.create(collection=collection, name="two runs", strategy=Pool.Strategy.DEPTH,
                               parameters={"k": 3})
    order = 0
    for qid in TOPICS:
        topic = Topic.objects.create(collection=collection, qid=qid, title=f"solar panels {qid}",
                                     description="Efficiency of solar panels.")
        for d in range(1, 7):
            docno = f"T{qid}-D{d}"
            text = "solar panel efficiency" if docno in RELEVANT else "football league results"
            document = Document.objects.create(collection=collection, docno=docno, title=docno, text=text)
            order += 1
            run, rank = ("A", d) if d <= 3 else ("B", d - 3)
            PoolPair.objects.create(pool=pool, topic=topic, docno=docno, document=document, judging_order=order,
                                    best_rank=rank, run_ranks={run: rank})
    return pool


@pytest.fixture
def two_run_pool(collection):
    return build_two_run_pool(collection)


@pytest.fixture
def start(collection, two_run_pool, lead, alice, bob):
    """Factory: start a campaign on the two-run pool with the given options."""
    return campaign_factory(collection, two_run_pool, lead=lead, default_assessors=[alice, bob], prefix="adaptive")


@pytest.fixture
def commit_hooks(django_capture_on_commit_callbacks):
    """Run on_commit callbacks (priority rewrites) as a real commit would; tests run in one transaction."""
    return lambda: django_capture_on_commit_callbacks(execute=True)
