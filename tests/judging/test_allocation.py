"""Allocation: overlap modes, by-topic split, leases and expiry, gold rate, no double judging."""
from __future__ import annotations

import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from campaign_core.services.leases import leases_expire
from judging.models import Item, Judgment, Lease
from judging.services.allocation import item_next, item_peek_next, lease_release
from judging.services.judgments import judgment_submit
from tests.judging.conftest import build_gold, expert

pytestmark = pytest.mark.django_db


def judge_all(assessor, grade=1, limit=1000):
    """Let an assessor judge until the queue is empty; return the judged items in order."""
    judged = []
    for _ in range(limit):
        item = item_next(assessor=assessor)
        if item is None:
            return judged
        judgment_submit(assessor=assessor, item=item, grade=grade, client_token=uuid.uuid4().hex)
        judged.append(item)
    raise AssertionError("queue never ended")


def test_no_overlap_splits_the_queue_without_judging_anything_twice(make_campaign, alice, bob):
    campaign = make_campaign()
    a, b = expert(campaign, alice), expert(campaign, bob)
    first_a, first_b = item_next(assessor=a), item_next(assessor=b)
    assert first_a.position == 1 and first_b.position == 2
    judged = judge_all(a) + judge_all(b)
    assert len(judged) == 20 and len({i.pk for i in judged}) == 20
    assert set(Item.objects.filter(campaign=campaign).values_list("judgment_count", flat=True)) == {1}


def test_reload_returns_the_item_already_leased(campaign, alice):
    a = expert(campaign, alice)
    assert item_next(assessor=a).pk == item_next(assessor=a).pk
    assert Lease.objects.filter(assessor=a).count() == 1


def test_replicate_gives_every_pair_to_r_distinct_assessors(make_campaign, alice, bob):
    campaign = make_campaign(overlap="replicate", judgments_per_pair=2)
    a, b = expert(campaign, alice), expert(campaign, bob)
    assert len(judge_all(a)) == 20 and len(judge_all(b)) == 20
    per_item = Counter(Judgment.objects.filter(item__campaign=campaign).values_list("item_id", flat=True))
    assert set(per_item.values()) == {2}


def test_fraction_overlap_judges_a_seeded_share_twice(make_campaign, alice, bob):
    campaign = make_campaign(overlap="fraction", overlap_fraction=0.25, seed=3)
    required = Counter(Item.objects.filter(campaign=campaign).values_list("required_judgments", flat=True))
    assert required == {1: 15, 2: 5}
    again = make_campaign(overlap="fraction", overlap_fraction=0.25, seed=3)
    twice = lambda c: sorted(c.items.filter(required_judgments=2).values_list("pair_id", flat=True))  # noqa: E731
    assert twice(campaign) == twice(again)
    judge_all(expert(campaign, alice))
    judge_all(expert(campaign, bob))
    assert Judgment.objects.filter(item__campaign=campaign).count() == 25


def test_calibration_set_comes_first_and_is_judged_by_everyone(make_campaign, alice, bob):
    campaign = make_campaign(overlap="calibration", calibration_size=3)
    calibration = set(campaign.items.filter(is_calibration=True).values_list("pk", flat=True))
    assert len(calibration) == 3
    a, b = expert(campaign, alice), expert(campaign, bob)
    judged_a, judged_b = judge_all(a), judge_all(b)
    assert {i.pk for i in judged_a[:3]} == calibration
    assert calibration <= {i.pk for i in judged_b}
    assert len(judged_a) + len(judged_b) == 17 + 3 * 2


def test_random_order_is_seeded_and_differs_from_pool_order(make_campaign):
    ordered = lambda c: list(c.items.order_by("position").values_list("pair_id", flat=True))  # noqa: E731
    pool_order = ordered(make_campaign())
    first, second = ordered(make_campaign(order="random", seed=5)), ordered(make_campaign(order="random", seed=5))
    assert first == second and first != pool_order and sorted(first) == sorted(pool_order)


def test_by_topic_gives_each_assessor_their_topics_first(make_campaign, alice, bob):
    campaign = make_campaign(split="by_topic")
    a, b = expert(campaign, alice), expert(campaign, bob)
    assert sorted(a.topics.values_list("qid", flat=True)) == ["401", "403"]
    assert sorted(b.topics.values_list("qid", flat=True)) == ["402", "404"]
    judged = judge_all(a)
    assert {i.pair.topic.qid for i in judged} == {"401", "403"} and len(judged) == 10


def test_by_topic_overlap_reserves_the_first_judgment_for_the_primary(make_campaign, alice, bob):
    campaign = make_campaign(split="by_topic", overlap="replicate", judgments_per_pair=2)
    a, b = expert(campaign, alice), expert(campaign, bob)
    judged = judge_all(a)
    assert len(judged) == 20
    assert [i.pair.topic.qid for i in judged[:10]].count("401") == 5  # own topics first
    assert all(i.pair.topic.qid in {"401", "403"} for i in judged[:10])
    assert len(judge_all(b)) == 20


def test_by_topic_single_judgment_keeps_others_out_of_my_topics(make_campaign, alice, bob):
    campaign = make_campaign(split="by_topic")
    b = expert(campaign, bob)
    assert all(i.pair.topic.qid in {"402", "404"} for i in judge_all(b))


def test_a_leased_item_is_not_handed_to_another_assessor(make_campaign, alice, bob):
    campaign = make_campaign()
    a, b = expert(campaign, alice), expert(campaign, bob)
    held = item_next(assessor=a)
    assert item_next(assessor=b).pk != held.pk


def test_an_expired_lease_returns_the_item_to_the_queue(make_campaign, alice, bob):
    campaign = make_campaign(lease_seconds=60)
    a, b = expert(campaign, alice), expert(campaign, bob)
    held = item_next(assessor=a)
    later = timezone.now() + timedelta(seconds=61)
    assert item_next(assessor=b, now=later).pk == held.pk
    assert leases_expire(now=later + timedelta(seconds=120)) == 2


def test_an_assessor_whose_lease_expired_and_was_retaken_cannot_submit(make_campaign, alice, bob):
    from django.core.exceptions import ValidationError

    campaign = make_campaign(lease_seconds=60)
    a, b = expert(campaign, alice), expert(campaign, bob)
    held = item_next(assessor=a)
    Lease.objects.filter(assessor=a).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert item_next(assessor=b).pk == held.pk
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=a, item=held, grade=1, client_token="late")
    assert error.value.code == "not_assigned"
    judgment_submit(assessor=b, item=held, grade=1, client_token="b")
    assert Item.objects.get(pk=held.pk).judgment_count == 1


def test_lease_release_frees_the_item(make_campaign, alice, bob):
    campaign = make_campaign()
    a, b = expert(campaign, alice), expert(campaign, bob)
    held = item_next(assessor=a)
    lease_release(assessor=a, item=held)
    assert item_next(assessor=b).pk == held.pk


def test_peek_does_not_lease_and_names_the_following_item(campaign, alice):
    a = expert(campaign, alice)
    current = item_next(assessor=a)
    following = item_peek_next(assessor=a, after_item=current)
    assert following.position == current.position + 1
    assert not Lease.objects.filter(item=following).exists()
    judgment_submit(assessor=a, item=current, grade=0, client_token="t1")
    assert item_next(assessor=a).pk == following.pk


def test_gold_items_are_mixed_in_at_the_rate_and_judged_by_everyone(collection, make_campaign, alice, bob):
    gold = build_gold(collection, [("401", "G1", 1), ("402", "G2", 0), ("403", "T3-D1", 2), ("404", "G4", 0)])
    campaign = make_campaign(gold_qrels=gold, gold_rate=0.2, seed=1)
    gold_items = campaign.items.filter(is_gold=True)
    assert gold_items.count() == 4 and set(gold_items.values_list("gold_grade", flat=True)) == {0, 1, 2}
    assert campaign.pool.pairs.count() == 20  # the frozen pool is unchanged: missing gold pairs live elsewhere
    assert campaign.items.filter(is_gold=False).count() == 19  # T3-D1 became a gold item
    a, b = expert(campaign, alice), expert(campaign, bob)
    stream = judge_all(a)
    flags = [i.is_gold for i in stream]
    assert sum(flags) == 4
    assert flags.index(True) == 2 and not any(flags[:2])  # the first gold comes at the 3rd item (round(3*0.2)=1)
    stream_b = judge_all(b)
    assert sum(i.is_gold for i in stream_b) == 0  # nothing left but gold: experts stop
    assert Item.objects.filter(campaign=campaign, is_gold=True, judgment_count=1).count() == 4


def test_a_closed_campaign_hands_out_nothing(campaign, alice):
    from judging.services.campaigns import campaign_set_status

    campaign_set_status(campaign=campaign, status="paused")
    assert item_next(assessor=expert(campaign, alice)) is None


def test_sending_items_to_more_assessors_reopens_them(make_campaign, alice, bob):
    from judging.services.campaigns import items_send_to_more_assessors

    campaign = make_campaign()
    a, b = expert(campaign, alice), expert(campaign, bob)
    judged = judge_all(a)
    assert item_next(assessor=b) is None
    assert items_send_to_more_assessors(campaign=campaign, item_ids=[judged[0].pk]) == 1
    assert item_next(assessor=b).pk == judged[0].pk


def test_next_and_submit_use_a_handful_of_queries_whatever_the_campaign_size(
    collection, make_campaign, alice, django_assert_max_num_queries
):
    from tests.judging.conftest import build_pool

    for pairs_per_topic in (5, 40):
        pool = build_pool(collection, name=f"p{pairs_per_topic}", docs=pairs_per_topic)
        campaign = make_campaign(pool=pool, overlap="replicate", judgments_per_pair=2)
        a = expert(campaign, alice)
        for token in ("a", "b"):
            with django_assert_max_num_queries(10):  # 10th: the assessor's row lock (a block can't race a lease)
                item = item_next(assessor=a)
            with django_assert_max_num_queries(10):
                judgment_submit(assessor=a, item=item, grade=1, client_token=f"{campaign.pk}-{token}")
