"""Adaptive judging order in campaigns: rewrite items' priorities from a strategy, per topic.

How it fits allocation: ``item_next`` stays one indexed query that orders open items by
``priority`` then ``position``; overlap, leases, gold and the by-topic split are applied by
that query exactly as for static orders. This module only writes ``Item.priority``.

- Priorities keep topics in the campaign's order: an item of topic t gets
  ``first_position(t) * SCALE + i`` for the strategy's i-th upcoming pick (i < LOOKAHEAD) and
  ``first_position(t) * SCALE + LOOKAHEAD + position`` otherwise, so the lead's topic order and
  the by-topic split are untouched and only the order *within* a topic adapts. Until a topic's
  first rewrite (done for all topics by a task when the campaign's first item is requested),
  its items have ``position * SCALE``: position order, consistent with rewritten topics.
- After a judgment of a regular item, the strategy of that item's topic is rebuilt and replayed
  from the topic's first judgments in this campaign (one label per item: the earliest
  non-skipped judgment; relevant = grade >= the collection's threshold), then the open items of
  that topic are re-prioritised. Only the judged item's topic changes: every assessor working in
  that topic sees the new order on their next request. Second judgments (overlap) never change
  the strategy (the item is already observed); items awaiting a second judgment get the
  "after the look-ahead" priority, so overlap work follows the strategy's current picks.
- The rewrite runs after the judgment commits (``transaction.on_commit``), in its own
  transaction, updating rows in primary-key order (concurrent rewrites serialise instead of
  deadlocking); for CAL it is a django-tasks task, because retraining is slow.
- Runs' rankings come from the pool pairs' ``run_ranks`` (so depth = the pool's depth).
"""
from __future__ import annotations

from collections import defaultdict
from typing import cast

from django.db import connection, transaction
from django.db.models import BigIntegerField
from django.db.models.functions import Cast

from collections_app.pooling.adaptive import make_strategy
from collections_app.pooling.adaptive.stopping import estimate_remaining
from judging.models import Campaign, Item, Judgment

ADAPTIVE_ORDERS = frozenset({"rank", "mtf", "mm_ns", "ucb", "thompson", "cal"})
SCALE = 10_000_000
LOOKAHEAD = 50


def is_adaptive(campaign: Campaign) -> bool:
    return campaign.order in ADAPTIVE_ORDERS


def _topic_items(campaign: Campaign, topic_id: int) -> list[Item]:
    items = Item.objects.filter(campaign=campaign, is_gold=False, pair__topic_id=topic_id).order_by("position")
    if campaign.order == "cal":  # only CAL reads the text
        return list(items.select_related("pair", "pair__document", "pair__topic"))
    return list(items.select_related("pair").only("pk", "position", "priority", "pair__docno", "pair__run_ranks",
                                                   "pair__topic_id"))


def _labels(campaign: Campaign, item_ids) -> list[tuple[str, bool]]:
    """(docno, relevant) for each item's first real judgment, in the order they were made."""
    threshold = campaign.collection.relevant_threshold
    seen: set[int] = set()
    out = []
    rows = (
        Judgment.objects.filter(item_id__in=item_ids, skipped=False, grade__isnull=False)
        .order_by("created_at", "id")
        .values_list("item_id", "item__pair__docno", "grade")
    )
    for item_id, docno, grade in rows:
        if item_id not in seen:
            seen.add(item_id)
            out.append((docno, cast(int, grade) >= threshold))  # the query leaves out null grades
    return out


def topic_strategy(campaign: Campaign, items: list[Item]):
    """Build the campaign's strategy for one topic from its items and replay its judgments."""
    per_run: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for item in items:
        for tag, rank in (item.pair.run_ranks or {}).items():
            per_run[tag].append((int(rank), item.pair.docno))
    rankings = {tag: [d for _, d in sorted(ranks)] for tag, ranks in per_run.items()}
    # Pairs no run claims (e.g. an imported pool) still have to be judged: a pseudo-run in position order.
    claimed = {d for ranked in rankings.values() for d in ranked}
    rest = [i.pair.docno for i in items if i.pair.docno not in claimed]
    if rest:
        rankings["~pool"] = rest
    query, texts = "", None  # what only continuous active learning reads
    if campaign.order == "cal" and items:
        topic = items[0].pair.topic
        query = " ".join(filter(None, [topic.title, topic.description]))
        texts = {i.pair.docno: (i.pair.document.title + " " + i.pair.document.text) if i.pair.document else ""
                 for i in items}
    strategy = make_strategy(campaign.order, rankings, seed=campaign.seed, query=query, texts=texts)
    labels = _labels(campaign, [i.pk for i in items])
    for docno, relevant in labels:
        strategy.observe(docno, relevant)
    return strategy, labels


def _serialize_topic(campaign: Campaign, topic_id: int) -> None:
    """Let one rewrite of a topic run at a time (PostgreSQL advisory lock, released at commit), so
    two rewrites never deadlock on row locks nor commit an older picture over a newer one.
    SQLite needs nothing: it lets one writer at a time commit."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # Shared campaign lock: waits for priorities_start's whole-campaign UPDATE (exclusive).
            cursor.execute("SELECT pg_advisory_xact_lock_shared(%s)", [campaign.pk])
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [campaign.pk, topic_id])


@transaction.atomic
def priorities_refresh(*, campaign: Campaign, topic_id: int) -> int:
    """Recompute one topic's item priorities from its strategy; return how many rows changed."""
    _serialize_topic(campaign, topic_id)
    items = _topic_items(campaign, topic_id)
    if not items:
        return 0
    strategy, _ = topic_strategy(campaign, items)
    base = items[0].position * SCALE
    picks = {d: i for i, d in enumerate(strategy.upcoming(LOOKAHEAD))}
    changed = []
    for item in items:
        i = picks.get(item.pair.docno)
        wanted = base + (i if i is not None else LOOKAHEAD + item.position)
        if item.priority != wanted:
            item.priority = wanted
            changed.append(item)
    # Never wait on an item row: one locked by a claim or a judgment is being taken right now
    # (its priority no longer matters, and the next rewrite sets it). Waiting could close a
    # cycle with a claim that waits for rows this rewrite holds.
    free = set(
        Item.objects.filter(pk__in=[it.pk for it in changed]).order_by("pk")
        .select_for_update(skip_locked=True).values_list("pk", flat=True)
    )
    changed = [it for it in changed if it.pk in free]
    Item.objects.bulk_update(changed, ["priority"], batch_size=500)
    return len(changed)


def priorities_start(*, campaign: Campaign) -> None:
    """First request of an adaptive campaign: have every topic's priorities computed, once.

    The first caller flips ``adaptive_ready`` and enqueues the computation (seconds for a large
    campaign, so not inside the request); until it is done, items go by position.
    """
    with transaction.atomic():
        _start_once(campaign)
    campaign.adaptive_ready = True


def _start_once(campaign: Campaign) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # no topic rewrite runs while every row is updated
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [campaign.pk])
    if Campaign.objects.filter(pk=campaign.pk, adaptive_ready=False).update(adaptive_ready=True):
        from judging.tasks import adaptive_init

        # Meanwhile: position order, on the same scale the rewrites use (one UPDATE).
        Item.objects.filter(campaign=campaign).update(priority=Cast("position", BigIntegerField()) * SCALE)

        transaction.on_commit(lambda: adaptive_init.enqueue(campaign.pk))


def priorities_init(*, campaign: Campaign) -> None:
    """Compute every topic's priorities (run by the ``adaptive_init`` task)."""
    topic_ids = (
        Item.objects.filter(campaign=campaign, is_gold=False).order_by().values_list("pair__topic_id", flat=True).distinct()
    )
    for topic_id in sorted(set(topic_ids)):
        priorities_refresh(campaign=campaign, topic_id=topic_id)
    Campaign.objects.filter(pk=campaign.pk).update(adaptive_ready=True)
    campaign.adaptive_ready = True


def after_judgment(*, item: Item) -> None:
    """Hook from judgment_submit: schedule the topic's re-prioritisation once the judgment commits."""
    campaign = item.campaign
    if not is_adaptive(campaign) or item.is_gold:
        return
    topic_id = item.pair.topic_id
    if campaign.order == "cal":
        from judging.tasks import adaptive_refresh

        transaction.on_commit(lambda: adaptive_refresh.enqueue(campaign.pk, topic_id))
    else:
        transaction.on_commit(lambda: priorities_refresh(campaign=campaign, topic_id=topic_id))


def stopping_table(campaign: Campaign) -> list[dict]:
    """Per topic: judged, relevant found, unjudged pairs and the remaining-relevant estimate
    (JSON-ready dicts, topics in campaign order). See pooling.adaptive.stopping for the estimator.

    Two queries for the whole campaign (items, then every first judgment in judging order), so
    the dashboard can show it for 50 topics without a query per topic.
    """
    items = list(
        Item.objects.filter(campaign=campaign, is_gold=False)
        .order_by("position").values_list("pk", "pair__topic_id", "pair__topic__qid")
    )
    topic_of = {pk: topic_id for pk, topic_id, _ in items}
    pairs: dict[int, int] = defaultdict(int)
    qids: dict[int, str] = {}
    for _, topic_id, qid in items:
        pairs[topic_id] += 1
        qids[topic_id] = qid
    threshold = campaign.collection.relevant_threshold
    labels: dict[int, list[bool]] = defaultdict(list)
    seen: set[int] = set()
    rows = (
        Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, skipped=False, grade__isnull=False)
        .order_by("created_at", "id").values_list("item_id", "grade")
    )
    for item_id, grade in rows:
        if item_id not in seen and item_id in topic_of:
            seen.add(item_id)
            labels[topic_of[item_id]].append(cast(int, grade) >= threshold)  # the query leaves out null grades
    table = []
    for topic_id, n_pairs in pairs.items():  # dicts keep insertion order: campaign order
        judged = labels[topic_id]
        est = estimate_remaining(judged, unjudged=n_pairs - len(judged))
        table.append({"qid": qids[topic_id], "topic_id": topic_id, "pairs": n_pairs, **est.as_dict()})
    return table
