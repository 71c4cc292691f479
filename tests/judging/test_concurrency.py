"""Fifty assessors asking for work at once, over real parallel PostgreSQL connections.

SQLite has no row locks and lets one writer commit at a time, so allocation there is
serialized by the database itself; running fifty threads against it would only test the
"database is locked" timeout. The test therefore runs on PostgreSQL only.
"""
from __future__ import annotations

import uuid
from collections import Counter

import pytest
from django.db import connection

from collections_app.models import Membership
from judging.models import Assessor, Item, Judgment
from judging.services.allocation import item_next
from judging.services.judgments import judgment_submit
from tests.campaign_core.race import race
from tests.conftest import make_user
from tests.judging.conftest import build_pool

THREADS = 50

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs real row locks and parallel connections (PostgreSQL); SQLite serializes writers"),
]


@pytest.mark.parametrize("order", ["pool", "mtf", "mm_ns"])
def test_fifty_assessors_at_once_never_overfill_or_double_judge(collection, lead, order):
    from judging.plan import CampaignPlan
    from judging.services.campaigns import campaign_create

    users = [make_user(f"assessor{i:02d}") for i in range(THREADS)]
    Membership.objects.bulk_create(
        Membership(collection=collection, user=u, role=Membership.Role.ASSESSOR) for u in users
    )
    pool = build_pool(collection, topics=6, docs=10)
    campaign = campaign_create(collection=collection, pool=pool, name="race", created_by=lead, assessors=users,
                               plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=3, lease_seconds=600,
                                                    order=order))
    handed_out = race(
        list(Assessor.objects.filter(campaign=campaign).values_list("pk", flat=True)),
        load=lambda pk: Assessor.objects.select_related("campaign__collection").get(pk=pk),
        take=lambda assessor: item_next(assessor=assessor),
        answer=lambda assessor, item: judgment_submit(assessor=assessor, item=item, grade=1,
                                                      client_token=uuid.uuid4().hex),
    )

    per_item = Counter(Judgment.objects.filter(item__campaign=campaign).values_list("item_id", flat=True))
    items = dict(Item.objects.filter(campaign=campaign).values_list("pk", "required_judgments"))
    assert len(items) == 60
    assert all(per_item[pk] == required for pk, required in items.items())  # filled exactly, never beyond
    pairs = Judgment.objects.filter(item__campaign=campaign).values_list("item_id", "assessor_id")
    assert len(pairs) == len(set(pairs)) == 180
    assert max(handed_out.values()) == 1  # no assessor was handed the same item twice
    counts = dict(Item.objects.filter(campaign=campaign).values_list("pk", "judgment_count"))
    assert counts == {pk: per_item[pk] for pk in items}
