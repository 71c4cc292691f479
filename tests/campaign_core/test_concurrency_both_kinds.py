"""Fifty assessors asking for work at once on both campaign kinds, over parallel PostgreSQL connections.

Both kinds claim through ``campaign_core.services.leases.lease_claim``; this runs the same
scenario on a relevance campaign and on a preference campaign: everyone asks and answers until
nothing is left, and at the end every item has exactly its required judgments, nobody judged
an item twice or was handed one twice, and no worker failed (a deadlock would surface here as
an error from PostgreSQL). SQLite serializes writers, so the test runs on PostgreSQL only.
"""
from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection, connections

from collections_app.models import Membership
from tests.conftest import make_user
from tests.judging.conftest import build_pool
from tests.preferences.conftest import build_runs

THREADS = 50

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs real row locks and parallel connections (PostgreSQL); SQLite serializes writers"),
]


def _race(assessor_ids: list[int], load: Callable, take: Callable, answer: Callable) -> Counter:
    """Run one thread per assessor, all starting together; return how often each (item, assessor) was handed out."""
    start = threading.Barrier(len(assessor_ids))
    errors: list[BaseException] = []
    handed: Counter = Counter()
    lock = threading.Lock()

    def work(assessor_id: int) -> None:
        try:
            assessor = load(assessor_id)
            start.wait(timeout=60)
            for _ in range(200):
                item = take(assessor)
                if item is None:
                    return
                with lock:
                    handed[(item.pk, assessor_id)] += 1
                answer(assessor, item)
            errors.append(AssertionError(f"assessor {assessor_id} never ran out of work"))
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(pk,)) for pk in assessor_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    assert errors == [], errors[:3]
    return handed


def _assert_filled_exactly(items, judgments, handed: Counter, *, expected_judgments: int) -> None:
    required = dict(items.values_list("pk", "required_judgments"))
    per_item = Counter(judgments.values_list("item_id", flat=True))
    assert all(per_item[pk] == r for pk, r in required.items())  # filled exactly, never beyond
    pairs = list(judgments.values_list("item_id", "assessor_id"))
    assert len(pairs) == len(set(pairs)) == expected_judgments
    assert max(handed.values()) == 1  # nobody was handed the same item twice
    assert dict(items.values_list("pk", "judgment_count")) == {pk: per_item[pk] for pk in required}


def test_fifty_assessors_on_a_relevance_campaign(collection, lead):
    from judging.models import Assessor, Item, Judgment
    from judging.plan import CampaignPlan
    from judging.services.allocation import item_next
    from judging.services.campaigns import campaign_create
    from judging.services.judgments import judgment_submit

    users = [make_user(f"rel{i:02d}") for i in range(THREADS)]
    Membership.objects.bulk_create(
        Membership(collection=collection, user=u, role=Membership.Role.ASSESSOR) for u in users)
    campaign = campaign_create(collection=collection, pool=build_pool(collection, topics=6, docs=10), name="race",
                               created_by=lead, assessors=users,
                               plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=3))
    handed = _race(
        list(Assessor.objects.filter(campaign=campaign).values_list("pk", flat=True)),
        load=lambda pk: Assessor.objects.select_related("campaign__collection").get(pk=pk),
        take=lambda assessor: item_next(assessor=assessor),
        answer=lambda assessor, item: judgment_submit(assessor=assessor, item=item, grade=1,
                                                      client_token=uuid.uuid4().hex),
    )
    _assert_filled_exactly(Item.objects.filter(campaign=campaign), Judgment.objects.filter(item__campaign=campaign),
                           handed, expected_judgments=60 * 3)


def test_fifty_assessors_on_a_preference_campaign(collection):
    from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment
    from preferences.services.allocation import item_next
    from preferences.services.judgments import judgment_submit

    topics, (run_a, run_b) = build_runs(collection)
    campaign = PrefCampaign.objects.create(collection=collection, name="race", kind="sbs", run_a=run_a, run_b=run_b,
                                           judgments_per_item=3)
    PrefItem.objects.bulk_create(
        PrefItem(campaign=campaign, topic=topics[n % len(topics)], position=n + 1, a_docnos=["T1-D1"],
                 b_docnos=["T1-D2"], left_is_a=bool(n % 2), required_judgments=3)
        for n in range(60))
    ids = [PrefAssessor.objects.create(campaign=campaign, kind="expert", user=make_user(f"pref{i:02d}")).pk
           for i in range(THREADS)]
    handed = _race(
        ids,
        load=lambda pk: PrefAssessor.objects.select_related("campaign").get(pk=pk),
        take=lambda assessor: item_next(assessor=assessor),
        answer=lambda assessor, item: judgment_submit(assessor=assessor, item=item, choice=0,
                                                      token=uuid.uuid4().hex),
    )
    _assert_filled_exactly(PrefItem.objects.filter(campaign=campaign),
                           PrefJudgment.objects.filter(item__campaign=campaign), handed, expected_judgments=60 * 3)
