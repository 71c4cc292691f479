"""Services: placement recorded and undone, allocation with overlap and leases, submits, gold."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from preferences.models import PrefAssessor, PrefItem, PrefJudgment, PrefLease
from preferences.services import allocation, judgments
from preferences.services.campaigns import gold_sides, left_is_a
from preferences.services.results import campaign_results

pytestmark = pytest.mark.django_db


def _assessor(campaign, user):
    return PrefAssessor.objects.get(campaign=campaign, user=user)


def _judge(assessor, choice, token):
    item = allocation.item_next(assessor=assessor)
    assert item is not None
    return item, judgments.judgment_submit(assessor=assessor, item=item, choice=choice, token=token)


def test_items_freeze_both_top10s_and_record_seeded_placement(make_sbs):
    campaign = make_sbs(seed=7)
    items = list(campaign.items.order_by("position"))
    assert len(items) == 4
    for item in items:
        t = int(item.topic.qid) - 500
        assert item.a_docnos == [f"T{t}-D{d}" for d in range(1, 11)]
        assert item.b_docnos == [f"T{t}-D{d}" for d in range(60, 50, -1)]
        assert item.left_is_a == left_is_a(7, "sbs", item.topic.qid)


def test_placement_varies_with_the_seed_and_is_reproducible():
    draws = [left_is_a(s, "c", "501") for s in range(200)]
    assert 60 < sum(draws) < 140  # both placements occur, roughly half each
    assert draws == [left_is_a(s, "c", "501") for s in range(200)]


def test_outcome_undoes_placement():
    assert judgments.outcome_of(-1, True) == 1   # left better, A on the left -> A better
    assert judgments.outcome_of(-1, False) == -1  # left better, B on the left -> B better
    assert judgments.outcome_of(1, True) == -1
    assert judgments.outcome_of(1, False) == 1
    assert judgments.outcome_of(0, True) == judgments.outcome_of(0, False) == 0
    for choice in (-1, 0, 1):
        for left in (True, False):
            assert judgments.choice_of(judgments.outcome_of(choice, left), left) == choice


def test_results_count_system_wins_whatever_the_placement(make_sbs, alice):
    """An assessor who always clicks the side showing system A: A wins every topic."""
    campaign = make_sbs(seed=3)
    assert {i.left_is_a for i in campaign.items.all()} == {True, False}  # this seed mixes placements
    me = _assessor(campaign, alice)
    for n in range(4):
        item = allocation.item_next(assessor=me)
        judgments.judgment_submit(assessor=me, item=item, choice=-1 if item.left_is_a else 1, token=f"t{n}")
    r = campaign_results(campaign)
    assert (r.overall.wins, r.overall.ties, r.overall.losses) == (4, 0, 0)
    lefts = sum(1 for i in campaign.items.all() if i.left_is_a)
    assert (r.position.wins, r.position.losses) == (lefts, 4 - lefts)
    assert all(t.wins == 1 for t in r.per_topic.values())


def test_overlap_r_judgments_per_item_and_no_repeat(make_sbs, alice, bob, lead):
    campaign = make_sbs(judgments_per_item=2, assessors=(alice, bob, lead))
    a, b, c = (_assessor(campaign, u) for u in (alice, bob, lead))
    for n in range(4):
        _judge(a, 0, f"a{n}")
        _judge(b, 0, f"b{n}")
    assert allocation.item_next(assessor=a) is None
    assert allocation.item_next(assessor=c) is None  # every item has its r = 2 judgments
    assert all(i.judgment_count == 2 for i in PrefItem.objects.filter(campaign=campaign))


def test_lease_blocks_others_until_it_expires(make_sbs, alice, bob):
    campaign = make_sbs(assessors=(alice, bob))
    PrefItem.objects.filter(campaign=campaign, position__gt=1).delete()
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    item = allocation.item_next(assessor=a)
    assert allocation.item_next(assessor=a) == item  # reload shows the same item
    assert allocation.item_next(assessor=b) is None
    PrefLease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert allocation.item_next(assessor=b) == item
    with pytest.raises(ValidationError):  # a's lease is gone: a may not judge it now
        judgments.judgment_submit(assessor=a, item=item, choice=0, token="late")


def test_submit_is_idempotent_and_revisions_are_kept(make_sbs, alice):
    campaign = make_sbs()
    me = _assessor(campaign, alice)
    item, first = _judge(me, -1, "tok-1")
    again = judgments.judgment_submit(assessor=me, item=item, choice=-1, token="tok-1")
    assert again.pk == first.pk and PrefJudgment.objects.count() == 1
    revised = judgments.judgment_submit(assessor=me, item=item, choice=1, strength=2, comment="changed", token="tok-2")
    assert revised.pk == first.pk and revised.choice == 1 and revised.revision_count == 1
    assert revised.outcome == judgments.outcome_of(1, item.left_is_a)
    assert list(revised.revisions.values_list("old_choice", "new_choice")) == [(-1, 1)]
    item.refresh_from_db()
    assert item.judgment_count == 1


def test_token_of_someone_else_and_bad_values_are_refused(make_sbs, alice, bob):
    campaign = make_sbs()
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    item, _ = _judge(a, 0, "shared")
    with pytest.raises(ValidationError):
        judgments.judgment_submit(assessor=b, item=item, choice=0, token="shared")
    other = allocation.item_next(assessor=b)
    for bad in (2, True, None):
        with pytest.raises(ValidationError):
            judgments.judgment_submit(assessor=b, item=other, choice=bad, token="x")
    with pytest.raises(ValidationError):
        judgments.judgment_submit(assessor=b, item=other, choice=0, strength=9, token="y")


def test_seconds_clamped(make_sbs, alice):
    campaign = make_sbs()
    me = _assessor(campaign, alice)
    item = allocation.item_next(assessor=me)
    j = judgments.judgment_submit(assessor=me, item=item, choice=0, token="s", seconds="nan")
    assert j.active_seconds == 0.0


def test_gold_items_degrade_side_b_and_are_mixed_in(make_sbs, sbs, alice):
    topics = sbs[0]
    campaign = make_sbs(gold_topics=topics[:2], gold_rate=0.5)
    gold = list(campaign.items.filter(is_gold=True))
    assert len(gold) == 2
    for item in gold:
        t = int(item.topic.qid) - 500
        assert item.a_docnos == [f"T{t}-D{d}" for d in range(1, 11)]
        assert set(item.b_docnos) <= {f"T{t}-D{d}" for d in range(50, 61)}
    me = _assessor(campaign, alice)
    seen = []
    for n in range(6):
        item = allocation.item_next(assessor=me)
        seen.append(item.is_gold)
        judgments.judgment_submit(assessor=me, item=item, choice=-1 if item.left_is_a else 1, token=f"g{n}")
    assert seen.count(True) == 2
    r = campaign_results(campaign)
    assert (r.gold_correct, r.gold_answered) == (2, 2)
    assert r.overall.n == 4  # gold judgments stay out of the system comparison


def test_gold_sides_need_a_long_ranking():
    assert gold_sides([f"d{i}" for i in range(12)], 10) is None
    good, bad = gold_sides([f"d{i}" for i in range(100)], 10)
    assert good == [f"d{i}" for i in range(10)] and bad == [f"d{i}" for i in range(99, 89, -1)]
