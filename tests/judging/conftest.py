"""Judging fixtures: a pool of 20 pairs over four topics, a campaign factory, the crowd ``worker``.

The pool is built directly with the ORM (no runs needed): topics 401–404, five documents
each, pooled in a fixed judging order. ``make_campaign(**options)`` starts a campaign through
the service with ``alice`` and ``bob`` as assessors unless told otherwise. ``worker`` is a
factory: ``worker(campaign, "pid-1")`` joins a crowd worker through Prolific parameters.
"""
from __future__ import annotations

import pytest

from collections_app.models import Document, Pool, PoolPair, QrelsEntry, QrelsSet, Topic
from tests.browser.factories import make_campaign as start_campaign

TOPICS = 4
DOCS_PER_TOPIC = 5


def build_pool(collection, *, name: str = "pool", topics: int = TOPICS, docs: int = DOCS_PER_TOPIC) -> Pool:
    """Create topics and documents and a pool holding every (topic, document) pair, in judging order."""
    pool = Pool.objects.create(collection=collection, name=name, strategy=Pool.Strategy.DEPTH, parameters={"k": docs})
    order = 0
    for t in range(1, topics + 1):
        topic, _ = Topic.objects.get_or_create(
            collection=collection, qid=str(400 + t),
            defaults={"title": f"wind turbine noise {t}", "description": "Noise from wind farms.",
                      "narrative": "Measurements or complaints are relevant."},
        )
        for d in range(1, docs + 1):
            docno = f"T{t}-D{d}"
            document, _ = Document.objects.get_or_create(
                collection=collection, docno=docno, defaults={"title": f"Doc {docno}", "text": "wind turbine " * 20}
            )
            order += 1
            PoolPair.objects.create(pool=pool, topic=topic, docno=docno, document=document, judging_order=order,
                                    best_rank=d, run_ranks={"r1": d})
    return pool


def build_gold(collection, entries: list[tuple[str, str, int]], *, name: str = "gold") -> QrelsSet:
    """Create an imported qrels set from (qid, docno, grade) triples, for gold pairs."""
    qrels = QrelsSet.objects.create(collection=collection, name=name, checksum="0" * 64, num_judgments=len(entries))
    topics = {t.qid: t for t in Topic.objects.filter(collection=collection)}
    QrelsEntry.objects.bulk_create(
        QrelsEntry(qrels_set=qrels, topic=topics[qid], docno=docno, grade=grade) for qid, docno, grade in entries
    )
    return qrels


@pytest.fixture
def pool(collection):
    """A pool of 20 pairs (topics 401–404 × documents T<t>-D1..D5) in the ``collection``."""
    return build_pool(collection)


def campaign_factory(collection, pool, *, lead, default_assessors: list, prefix: str):
    """Return ``factory(assessors=None, name=None, pool=None, **plan options)`` starting numbered campaigns on ``pool``."""
    counter = iter(range(1, 1000))

    def factory(*, assessors=None, name=None, **options):
        return start_campaign(collection, lead=lead, pool=options.pop("pool", pool),
                              name=name or f"{prefix} {next(counter)}",
                              assessors=default_assessors if assessors is None else assessors, **options)

    return factory


@pytest.fixture
def make_campaign(collection, pool, lead, alice, bob):
    """Return a factory starting a campaign on ``pool`` (assessors alice and bob by default)."""
    return campaign_factory(collection, pool, lead=lead, default_assessors=[alice, bob], prefix="campaign")


@pytest.fixture
def replicated_campaign(collection, lead, alice, bob):
    """A campaign on the page tests' small pool (2 topics × 4 documents), every pair judged by alice and bob."""
    return start_campaign(collection, lead=lead, assessors=[alice, bob], overlap="replicate", judgments_per_pair=2)


@pytest.fixture
def campaign(make_campaign):
    """A shared-queue campaign, each pair judged once, by alice and bob."""
    return make_campaign()


@pytest.fixture
def worker():
    """Return a factory joining a crowd worker (Prolific parameters) to a crowd-enabled campaign."""
    from judging.models import Assessor
    from judging.services.crowd import crowd_join

    def join(campaign, pid: str = "worker-1"):
        params = {"PROLIFIC_PID": pid, "STUDY_ID": "study", "SESSION_ID": f"s-{pid}"}
        known = Assessor.objects.filter(campaign=campaign, kind="crowd", worker_id=pid).first()
        assessor = crowd_join(campaign=campaign, params=params, bound=known)  # a returning worker's own browser
        assert assessor.platform == "prolific"
        return assessor

    return join


def expert(campaign, user):
    """Return the expert Assessor row of a user in a campaign."""
    from judging.models import Assessor

    return Assessor.objects.select_related("campaign__collection").get(campaign=campaign, user=user)


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    """Start every test with an empty cache: the dashboard caches its figures by a stamp of the data,
    and ids repeat across tests rolled back in one process."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
