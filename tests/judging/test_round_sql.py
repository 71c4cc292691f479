"""The judging round's SQL (``judging.services.round_sql``) says what the ORM definitions say.

``allocation.open_items`` is the readable definition of an open item; the claim runs it as
hand-written SQL. Here both are asked on generated campaign states — shared and by-topic queues,
replicated, calibration and gold items, judgments (skips included) by several assessors, live
and expired leases, blocked and absent primaries, shuffled priorities — and must name the same
items in the same order, and the re-check under the lock must agree item by item. The other
statements are checked against what the ORM reads or writes.
"""
from __future__ import annotations

import random
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from judging.models import Assessor, Campaign, Item, Judgment, Lease
from judging.serializers import MyJudgmentSerializer, judgment_data
from judging.services import round_sql
from judging.services.allocation import open_items
from judging.services.judgments import judgment_submit
from tests.conftest import make_user
from tests.judging.conftest import build_gold, expert

pytestmark = pytest.mark.django_db

SHAPES = [
    {"split": "shared_queue", "overlap": "replicate", "judgments_per_pair": 2},
    {"split": "shared_queue", "overlap": "replicate", "judgments_per_pair": 3},
    {"split": "by_topic", "overlap": "replicate", "judgments_per_pair": 2},
    {"split": "by_topic"},
    {"split": "shared_queue", "overlap": "calibration", "calibration_size": 4},
    {"split": "by_topic", "overlap": "calibration", "calibration_size": 3},
]


def sql_order(assessor: Assessor, now, *, gold: bool) -> list[int]:
    """Every open item in the order the claim's candidate statement hands them out."""
    claim = round_sql.OpenItemClaim(assessor=assessor, now=now, gold=gold)
    found: list[int] = []
    while (pk := claim.candidate(found, skip_locked=False)) is not None:
        found.append(pk)
        assert len(found) <= 100
    return found


def scramble(campaign: Campaign, assessors: list[Assessor], rng: random.Random, now) -> None:
    """Give the campaign a random state: judgments, leases, priorities, a blocked assessor."""
    items = list(campaign.items.all())
    for item in items:
        item.priority = rng.choice([0, 0, 1, 5, -3])
        judges = [a for a in assessors if rng.random() < 0.35]
        for judge in judges:
            skipped = rng.random() < 0.2
            Judgment.objects.create(item=item, assessor=judge, grade=None if skipped else rng.choice([0, 1, 2]),
                                    skipped=skipped, client_token=uuid.uuid4().hex)
        item.judgment_count = min(len(judges), item.required_judgments + 1)
        item.save(update_fields=["priority", "judgment_count"])
        for holder in assessors:
            if rng.random() < 0.2:
                live = rng.random() < 0.6
                Lease.objects.create(item=item, assessor=holder,
                                     expires_at=now + timedelta(seconds=30 if live else -30))
    if rng.random() < 0.5:
        Assessor.objects.filter(pk=rng.choice(assessors).pk).update(blocked=True)
    if campaign.split == Campaign.Split.BY_TOPIC and rng.random() < 0.5:
        campaign.items.filter(pk=rng.choice(items).pk).update(primary_assessor=None)


@pytest.mark.parametrize("seed", range(18))
def test_the_claim_sql_names_the_open_items_of_the_orm_definition_in_its_order(
        seed, collection, make_campaign, alice, bob):
    rng = random.Random(seed)
    carol = make_user("carol")
    collection.memberships.create(user=carol, role="assessor")
    shape = SHAPES[seed % len(SHAPES)]
    options = dict(shape)
    if seed % 3 == 0:
        options.update(gold_qrels=build_gold(collection, [("401", "G1", 1), ("402", "T2-D2", 0), ("403", "G3", 2)]),
                       gold_rate=0.2)
    campaign = make_campaign(assessors=[alice, bob, carol], seed=seed, **options)
    now = timezone.now()
    people = [expert(campaign, user) for user in (alice, bob, carol)]
    scramble(campaign, people, rng, now)
    compared = 0
    for person in people:
        person.refresh_from_db()
        person = Assessor.objects.select_related("campaign__collection").get(pk=person.pk)
        for gold in (False, True):
            orm = list(open_items(person, now, gold=gold).values_list("pk", flat=True))
            assert sql_order(person, now, gold=gold) == orm
            claim = round_sql.OpenItemClaim(assessor=person, now=now, gold=gold)
            for item in campaign.items.filter(is_gold=gold):
                shown = claim.recheck(item.pk)
                assert (shown is not None) == (item.pk in orm)
                compared += 1
    assert compared == 3 * campaign.items.count()


def test_a_rechecked_item_comes_with_its_topic_and_document(make_campaign, alice, django_assert_num_queries):
    campaign = make_campaign()
    person = expert(campaign, alice)
    item = campaign.items.select_related("pair__topic", "pair__document").order_by("position").first()
    claim = round_sql.OpenItemClaim(assessor=person, now=timezone.now(), gold=False)
    with django_assert_num_queries(1):
        shown = claim.recheck(item.pk)
        seen = (shown.pair.topic.qid, shown.pair.docno, shown.pair.document.title, shown.pair.run_ranks)
    assert seen == (item.pair.topic.qid, item.pair.docno, item.pair.document.title, item.pair.run_ranks)
    assert shown == item and not shown._state.adding


def test_a_pair_without_a_document_row_reads_as_no_document(make_campaign, alice):
    campaign = make_campaign()
    item = campaign.items.order_by("position").first()
    item.pair.document = None
    item.pair.save(update_fields=["document"])
    shown = round_sql.item_shown(item.pk)
    assert shown.pair.document is None and shown.pair.docno == item.pair.docno


def test_the_gate_reads_the_assessor_with_campaign_and_collection_and_requires_membership(
        make_campaign, alice, collection):
    campaign = make_campaign()
    found = round_sql.gate_assessor(user_id=alice.pk, campaign_id=campaign.pk, member_join=True)
    assert found == expert(campaign, alice)
    assert found.campaign == campaign and found.campaign.collection == collection
    assert found.campaign.created_at == Campaign.objects.get(pk=campaign.pk).created_at  # datetimes decoded
    assert found.campaign.keys == Campaign.objects.get(pk=campaign.pk).keys
    collection.memberships.filter(user=alice).delete()
    assert round_sql.gate_assessor(user_id=alice.pk, campaign_id=campaign.pk, member_join=True) is None
    assert round_sql.gate_assessor(user_id=alice.pk, campaign_id=campaign.pk, member_join=False) == found


def test_the_submit_statements_read_and_write_what_the_orm_does(make_campaign, alice):
    campaign = make_campaign()
    person = expert(campaign, alice)
    item = campaign.items.order_by("position").first()
    now = timezone.now()
    assert round_sql.item_lock(item_id=item.pk, campaign_id=campaign.pk) == item
    assert round_sql.item_lock(item_id=item.pk, campaign_id=campaign.pk + 1) is None
    assert round_sql.assessor_lock(person.pk) == (False, False)
    round_sql.lease_write(item_id=item.pk, assessor_id=person.pk, now=now, expires_at=now + timedelta(seconds=60))
    round_sql.lease_write(item_id=item.pk, assessor_id=person.pk, now=now, expires_at=now + timedelta(seconds=90))
    lease = Lease.objects.get(item=item, assessor=person)  # the second write renewed the first in place
    assert lease.expires_at == now + timedelta(seconds=90)
    assert round_sql.lease_held(assessor_id=person.pk, now=now) == item.pk
    assert round_sql.lease_take_live(item_id=item.pk, assessor_id=person.pk, now=now)
    assert not round_sql.lease_take_live(item_id=item.pk, assessor_id=person.pk, now=now)
    judgment = round_sql.judgment_insert(Judgment(item=item, assessor=person, grade=2, comment="<b>x</b>",
                                                  active_seconds=3.5, client_token="tok-1"))
    stored = Judgment.objects.get(pk=judgment.pk)
    assert (stored.grade, stored.comment, stored.active_seconds, stored.client_token) == (2, "<b>x</b>", 3.5, "tok-1")
    assert stored.created_at == judgment.created_at and stored.updated_at == judgment.updated_at
    assert round_sql.judgments_of_token_or_item(token="tok-1", item_id=0, assessor_id=0) == [stored]
    assert round_sql.judgments_of_token_or_item(token="other", item_id=item.pk, assessor_id=person.pk) == [stored]
    round_sql.item_count_bump(item.pk)
    assert Item.objects.get(pk=item.pk).judgment_count == item.judgment_count + 1


@pytest.mark.parametrize("skipped", [False, True])
def test_the_submit_answer_is_the_serializers_rendering(make_campaign, alice, skipped):
    campaign = make_campaign()
    person = expert(campaign, alice)
    item = campaign.items.order_by("position").first()
    judgment = judgment_submit(assessor=person, item=item, grade=None if skipped else 1, skipped=skipped,
                               skip_reason="unreadable" if skipped else "", comment="ok", active_seconds=7,
                               client_token=uuid.uuid4().hex)
    assert judgment_data(judgment) == dict(MyJudgmentSerializer(judgment).data)
    stored = Judgment.objects.get(pk=judgment.pk)
    assert judgment_data(stored) == dict(MyJudgmentSerializer(stored).data)
