"""Preference fixtures: topics 501-504 with 60 documents each and two runs over them.

``run_a`` ranks D1..D60 in order, ``run_b`` ranks them in reverse, so the two top-10 lists
differ and gold items (run A's top 10 against its low ranks) can be built for every topic.
"""
from __future__ import annotations

import numpy as np
import pytest

from collections_app.models import Document, Run, RunRanking, Topic
from collections_app.runstore import pack

TOPICS = 4
DOCS = 60


def build_runs(collection):
    topics = []
    for t in range(1, TOPICS + 1):
        topic = Topic.objects.create(collection=collection, qid=str(500 + t), title=f"wind turbine noise {t}",
                                     description="Noise from wind farms.")
        topics.append(topic)
        for d in range(1, DOCS + 1):
            Document.objects.create(collection=collection, docno=f"T{t}-D{d}", title=f"Wind report {t}-{d}",
                                    text=f"The wind turbine near village {d} makes noise at night. " * 3)
    runs = []
    for tag, reverse in (("alpha", False), ("beta", True)):
        run = Run.objects.create(collection=collection, tag=tag, checksum=tag * 8)
        for topic in topics:
            t = int(topic.qid) - 500
            order = list(range(1, DOCS + 1))[::-1] if reverse else list(range(1, DOCS + 1))
            docnos = np.array([f"T{t}-D{d}".encode() for d in order])
            scores = np.arange(DOCS, 0, -1, dtype=float)
            blob, sblob = pack(docnos, scores)
            RunRanking.objects.create(run=run, topic=topic, length=DOCS, docnos=blob, scores=sblob)
        runs.append(run)
    return topics, runs


@pytest.fixture
def sbs(collection):
    """(topics, run_a, run_b) on the shared ``collection``."""
    topics, (run_a, run_b) = build_runs(collection)
    return topics, run_a, run_b


@pytest.fixture
def make_sbs(collection, sbs, alice, bob):
    from preferences.services.campaigns import side_by_side_create

    topics, run_a, run_b = sbs

    def make(name="sbs", assessors=None, **options):
        return side_by_side_create(collection=collection, name=name, run_a=run_a, run_b=run_b, topics=topics,
                                   assessors=(alice, bob) if assessors is None else assessors, **options)

    return make


def crowd_worker(campaign, worker_id="w1"):
    """Return a consented Prolific worker of the campaign."""
    from django.utils import timezone

    from preferences.models import PrefAssessor

    return PrefAssessor.objects.create(campaign=campaign, kind=PrefAssessor.Kind.CROWD, platform="prolific",
                                       worker_id=worker_id, consented_at=timezone.now())


def answer(assessor, *, gold_right: bool = True, outcome: int = 1, token: str, seconds: float = 0.0):
    """Take the assessor's next item and answer it: gold items right or wrong, regular items with ``outcome``.

    Returns the item (None when nothing is left). Answers are given in system terms and turned
    into the panel choice through the item's placement, as a person looking at the panels would.
    """
    from preferences.services import allocation, judgments

    item = allocation.item_next(assessor=assessor)
    if item is None:
        return None
    wanted = (1 if gold_right else -1) if item.is_gold else outcome
    judgments.judgment_submit(assessor=assessor, item=item, choice=judgments.choice_of(wanted, item.left_is_a),
                              token=token, seconds=seconds)
    return item
