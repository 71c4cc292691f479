"""Adaptive orders inside campaigns: allocation follows the strategy and keeps its guarantees."""
from __future__ import annotations

import itertools

import pytest

from judging.models import Assessor, Item, Judgment
from judging.services.adaptive import priorities_refresh, stopping_table
from judging.services.allocation import item_next
from judging.services.judgments import judgment_submit

from .conftest import RELEVANT

tokens = (f"t{i}" for i in itertools.count())


@pytest.fixture(autouse=True)
def _hooks(commit_hooks):
    global HOOKS
    HOOKS = commit_hooks


def judge(assessor, item, relevant_set=RELEVANT):
    grade = 2 if item.pair.docno in relevant_set else 0
    with HOOKS():
        return judgment_submit(assessor=assessor, item=item, grade=grade, client_token=next(tokens))


def assessor_of(campaign, user):
    return Assessor.objects.get(campaign=campaign, user=user)


def drain(campaign, users, *, limit=100):
    """Round-robin over assessors, each judging what item_next gives; return docnos in order."""
    seen = []
    for _ in range(limit):
        progressed = False
        for user in users:
            a = assessor_of(campaign, user)
            with HOOKS():  # the first request enqueues the priorities' computation on commit
                item = item_next(assessor=a)
            if item is not None:
                item.refresh_from_db()
                judge(a, item)
                seen.append((user.username, item.pair.docno))
                progressed = True
        if not progressed:
            break
    return seen


def test_mtf_leaves_a_run_after_a_non_relevant_document(start, alice):
    campaign = start(order="mtf", assessors=[alice])
    order = [d for _, d in drain(campaign, [alice])]
    # Topic 501 first (campaign topic order): A's D1 fails, B takes over and keeps finding.
    assert order[:4] == ["T501-D1", "T501-D4", "T501-D5", "T501-D6"]
    assert sorted(order) == sorted(Item.objects.filter(campaign=campaign).values_list("pair__docno", flat=True))


@pytest.mark.parametrize("order", ["rank", "mtf", "mm_ns", "ucb", "thompson", "cal"])
def test_every_adaptive_order_judges_each_pair_once_with_two_assessors(start, alice, bob, order):
    campaign = start(order=order)
    seen = drain(campaign, [alice, bob])
    docnos = [d for _, d in seen]
    assert len(docnos) == len(set(docnos)) == 12
    assert Judgment.objects.filter(item__campaign=campaign).count() == 12


def test_cal_finds_relevant_text_first(start, alice):
    campaign = start(order="cal", assessors=[alice])
    order = [d for _, d in drain(campaign, [alice])]
    # The very first pair is handed out before the priorities' task ran (position order: D1);
    # from then on the topic text, matching the relevant documents' text, puts all three next.
    assert order[0] == "T501-D1" and set(order[1:4]) == {"T501-D4", "T501-D5", "T501-D6"}


def test_overlap_replicate_gives_every_pair_two_judgments(start, alice, bob):
    campaign = start(order="mm_ns", overlap="replicate", judgments_per_pair=2)
    seen = drain(campaign, [alice, bob])
    assert len(seen) == 24
    assert set(Item.objects.filter(campaign=campaign).values_list("judgment_count", flat=True)) == {2}
    assert len(set(seen)) == 24  # nobody judged a pair twice


def test_leased_item_is_not_handed_to_someone_else(start, alice, bob):
    campaign = start(order="mtf")
    a, b = assessor_of(campaign, alice), assessor_of(campaign, bob)
    first = item_next(assessor=a)
    second = item_next(assessor=b)
    assert first.pk != second.pk
    assert item_next(assessor=a).pk == first.pk  # reload keeps the lease


def test_by_topic_split_keeps_primary_assessors(start, alice, bob):
    campaign = start(order="mtf", split="by_topic")
    seen = drain(campaign, [alice, bob])
    by_user = {}
    for user, docno in seen:
        by_user.setdefault(user, set()).add(docno.split("-")[0])
    # Each assessor judged only their own topic (no overlap, both working at once).
    assert all(len(topics) == 1 for topics in by_user.values()) and len(by_user) == 2


def test_gold_items_are_still_mixed_in(start, collection, alice):
    from tests.judging.conftest import build_gold

    gold = build_gold(collection, [("501", "T501-D4", 2), ("502", "T502-D1", 0)])
    campaign = start(order="ucb", assessors=[alice], gold_qrels=gold, gold_rate=0.5)
    a = assessor_of(campaign, alice)
    kinds = []
    while (item := item_next(assessor=a)) is not None:
        judge(a, item)
        kinds.append(item.is_gold)
    assert any(kinds) and not all(kinds)


def test_refresh_is_idempotent_and_static_orders_untouched(start, alice):
    campaign = start(order="thompson", assessors=[alice])
    item_next(assessor=assessor_of(campaign, alice))
    topic = Item.objects.filter(campaign=campaign).first().pair.topic_id
    assert priorities_refresh(campaign=campaign, topic_id=topic) > 0  # the init task has not run (no commit)
    assert priorities_refresh(campaign=campaign, topic_id=topic) == 0
    static = start(order="pool", assessors=[alice])
    item_next(assessor=assessor_of(static, alice))
    assert set(Item.objects.filter(campaign=static).values_list("priority", flat=True)) == {0}


def test_stopping_table_counts(start, alice):
    campaign = start(order="mtf", assessors=[alice])
    drain(campaign, [alice], limit=4)
    rows = stopping_table(campaign)
    assert [r["qid"] for r in rows] == ["501", "502"]
    assert rows[0]["judged"] == 4 and rows[0]["found"] == 3 and rows[0]["unjudged"] == 2
    assert rows[0]["enough_data"] is False and rows[1]["judged"] == 0


def test_large_positions_do_not_overflow(start, alice):
    """position x 10^7 exceeds a 32-bit integer from position 215 on (PostgreSQL computed it in int4)."""
    from django.db.models import F

    campaign = start(order="mtf", assessors=[alice])
    Item.objects.filter(campaign=campaign).update(position=F("position") + 100_000)
    item = item_next(assessor=assessor_of(campaign, alice))
    assert item is not None
    assert min(Item.objects.filter(campaign=campaign).values_list("priority", flat=True)) >= 100_001 * 10**7
