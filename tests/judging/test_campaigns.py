"""Starting campaigns: the pool freezes, items are laid out once, bad options are refused."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from collections_app.models import Pool
from judging.models import Assessor, Item
from judging.services.campaigns import campaign_add_assessor, campaign_set_status, items_send_to_more_assessors
from tests.conftest import make_collection
from tests.judging.conftest import build_gold, build_pool

pytestmark = pytest.mark.django_db


def test_starting_a_campaign_freezes_the_pool_and_creates_one_item_per_pair(make_campaign, pool, alice, bob):
    campaign = make_campaign()
    pool.refresh_from_db()
    assert pool.frozen
    assert campaign.items.count() == 20
    assert list(campaign.items.order_by("position").values_list("pair__judging_order", flat=True)) == list(range(1, 21))
    assert set(Assessor.objects.filter(campaign=campaign).values_list("user__username", flat=True)) == {"alice", "bob"}


@pytest.mark.parametrize("options, code", [
    ({"split": "sideways"}, "bad_split"),
    ({"overlap": "replicate", "judgments_per_pair": 0}, "bad_overlap"),
    ({"overlap": "fraction", "overlap_fraction": 1.5}, "bad_fraction"),
    ({"gold_rate": 0.2}, "bad_gold"),
    ({"lease_seconds": 1}, "bad_size"),
    ({"name": "  "}, "bad_name"),
])
def test_bad_options_are_refused_and_create_nothing(make_campaign, options, code):
    with pytest.raises(ValidationError) as error:
        make_campaign(**options)
    found = error.value
    problems = [e for errors in found.error_dict.values() for e in errors] if hasattr(found, "error_dict") else found.error_list
    assert code in [e.code for e in problems]
    assert not Item.objects.exists()


def test_assessors_must_be_members(make_campaign, mallory):
    with pytest.raises(ValidationError) as error:
        make_campaign(assessors=[mallory])
    assert error.value.code == "not_member"


def test_a_pool_of_another_collection_is_refused(make_campaign, lead):
    other = make_collection("other", lead=lead)
    with pytest.raises(ValidationError):
        make_campaign(pool=build_pool(other))


def test_an_empty_pool_is_refused(collection, make_campaign):
    empty = Pool.objects.create(collection=collection, name="empty", strategy=Pool.Strategy.DEPTH)
    with pytest.raises(ValidationError) as error:
        make_campaign(pool=empty)
    assert error.value.code == "empty_pool"


def test_duplicate_names_are_refused(make_campaign):
    make_campaign(name="round")
    with pytest.raises(ValidationError) as error:
        make_campaign(name="round")
    assert error.value.code == "duplicate_name"


def test_gold_pairs_outside_the_pool_live_in_a_frozen_companion_pool(collection, make_campaign, pool):
    gold = build_gold(collection, [("401", "X1", 1), ("401", "T1-D2", 0)])
    campaign = make_campaign(gold_qrels=gold, gold_rate=0.5)
    gold_items = {i.pair.docno: i for i in campaign.items.filter(is_gold=True).select_related("pair__pool")}
    assert set(gold_items) == {"X1", "T1-D2"}
    assert gold_items["T1-D2"].pair.pool_id == pool.pk
    companion = gold_items["X1"].pair.pool
    assert companion.pk != pool.pk and companion.frozen
    assert pool.pairs.count() == 20


def test_adding_an_assessor_extends_the_calibration_set(make_campaign, alice, bob):
    campaign = make_campaign(assessors=[alice], overlap="calibration", calibration_size=2)
    assert set(campaign.items.filter(is_calibration=True).values_list("required_judgments", flat=True)) == {1}
    campaign_add_assessor(campaign=campaign, user=bob)
    assert set(campaign.items.filter(is_calibration=True).values_list("required_judgments", flat=True)) == {2}
    assert campaign_add_assessor(campaign=campaign, user=bob).user == bob  # idempotent
    assert set(campaign.items.filter(is_calibration=True).values_list("required_judgments", flat=True)) == {2}


def test_status_changes_and_sending_items_to_more_assessors(campaign):
    assert campaign_set_status(campaign=campaign, status="finished").status == "finished"
    with pytest.raises(ValidationError):
        campaign_set_status(campaign=campaign, status="asleep")
    ids = list(campaign.items.values_list("pk", flat=True)[:3])
    assert items_send_to_more_assessors(campaign=campaign, item_ids=ids, extra=2) == 3
    assert set(Item.objects.filter(pk__in=ids).values_list("required_judgments", flat=True)) == {3}
