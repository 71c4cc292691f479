"""The campaign core's lease tidy-up covers every campaign kind."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaign_core.services.leases import lease_models, leases_expire
from judging.models import Lease
from preferences.models import PrefAssessor, PrefLease
from preferences.services import allocation as pref_allocation

pytestmark = pytest.mark.django_db


def test_every_campaign_kind_has_its_lease_model_registered():
    assert set(lease_models()) == {Lease, PrefLease}


def test_leases_expire_deletes_expired_leases_of_both_kinds_and_keeps_live_ones(make_sbs, alice, bob):
    from judging.models import Assessor
    from judging.plan import CampaignPlan
    from judging.services.allocation import item_next
    from judging.services.campaigns import campaign_create
    from tests.judging.conftest import build_pool

    pref = make_sbs()
    pref_item = pref_allocation.item_next(assessor=PrefAssessor.objects.get(campaign=pref, user=alice))
    pool = build_pool(pref.collection, name="judged", topics=1, docs=3)
    campaign = campaign_create(collection=pref.collection, pool=pool, name="rel", created_by=alice,
                               assessors=[alice, bob], plan=CampaignPlan.of(lease_seconds=60))
    rel_item = item_next(assessor=Assessor.objects.get(campaign=campaign, user=alice))
    assert pref_item is not None and rel_item is not None

    now = timezone.now()
    assert leases_expire(now=now) == 0  # both still live
    assert Lease.objects.count() == PrefLease.objects.count() == 1
    assert leases_expire(now=now + timedelta(seconds=pref.lease_seconds + 61)) == 2
    assert not Lease.objects.exists() and not PrefLease.objects.exists()
