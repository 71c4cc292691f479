"""Fifty assessors asking for work at once on both campaign kinds, over parallel PostgreSQL connections.

Both kinds claim through ``campaign_core.services.leases.lease_claim``; this runs the same
scenario on a relevance campaign and on a preference campaign: everyone asks and answers until
nothing is left, and at the end every item has exactly its required judgments, nobody judged
an item twice or was handed one twice, and no worker failed (a deadlock would surface here as
an error from PostgreSQL). SQLite serializes writers, so the test runs on PostgreSQL only.
"""
from __future__ import annotations

import uuid

import pytest
from django.db import connection

from collections_app.models import Membership
from tests.campaign_core.race import assert_filled_exactly, race
from tests.conftest import make_user
from tests.judging.conftest import build_pool
from tests.preferences.conftest import build_runs

THREADS = 50

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs real row locks and parallel connections (PostgreSQL); SQLite serializes writers"),
]


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
    handed = race(
        list(Assessor.objects.filter(campaign=campaign).values_list("pk", flat=True)),
        load=lambda pk: Assessor.objects.select_related("campaign__collection").get(pk=pk),
        take=lambda assessor: item_next(assessor=assessor),
        answer=lambda assessor, item: judgment_submit(assessor=assessor, item=item, grade=1,
                                                      client_token=uuid.uuid4().hex),
    )
    assert_filled_exactly(Item.objects.filter(campaign=campaign), Judgment.objects.filter(item__campaign=campaign),
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
    handed = race(
        ids,
        load=lambda pk: PrefAssessor.objects.select_related("campaign").get(pk=pk),
        take=lambda assessor: item_next(assessor=assessor),
        answer=lambda assessor, item: judgment_submit(assessor=assessor, item=item, choice=0,
                                                      token=uuid.uuid4().hex),
    )
    assert_filled_exactly(PrefItem.objects.filter(campaign=campaign),
                           PrefJudgment.objects.filter(item__campaign=campaign), handed, expected_judgments=60 * 3)
