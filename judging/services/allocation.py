"""Hand out work: which item an assessor judges next, under a lease, correct under concurrency.

An item is *open* to an assessor when the assessor has not judged it and, unless everyone
judges it (calibration and gold items), ``judgment_count + live leases of others +
reserved < required_judgments``. ``judgment_count`` counts only unblocked assessors'
judgments (``judging.services.quality``), so a blocked assessor's items are open again.
``reserved`` is 1 when the campaign is split by topic, the item has a primary assessor who
is someone else, not blocked, and who has not judged it yet: the first
judgment of an item belongs to its topic's primary assessor (a primary's own live lease is
then counted twice — conservative, it can only delay an overlap judgment, never add one).

Concurrency (PostgreSQL): ``item_next`` claims with the campaign core's
``lease_claim`` (``SELECT … FOR UPDATE SKIP LOCKED``, then a re-count of leases and judgments
*while holding the item's row lock*, each attempt in its own savepoint). Every lease and
judgment of an item is written under that same row lock (``judgment_submit`` locks it too),
so the count can't change between the check and the write. The unique
constraints on (item, assessor) of leases and judgments are the last line of defence.
The claim runs ``open_items``' rules as SQL (``judging.services.round_sql``: it binds
parameters instead of compiling queries on the hot path; a test holds the two equal). On
SQLite row locks don't exist; SQLite lets one writer at a time commit, which serializes
handing out work (correct, not parallel).

Gold items are mixed into each assessor's own stream: before the k-th item of an assessor
(k = judgments so far + 1) a gold item is served when the assessor's gold answers are fewer
than ``round(k · gold_rate)``; experts stop when the regular items run out, crowd workers
fill the rest of their batch with gold.

Order: open items go by ``priority`` then ``position``. Static orders leave every priority at 0
(position order); adaptive orders (``judging.services.adaptive``) rewrite the priorities of a
topic's items after each judgment, so choosing the next pair stays this one indexed query.
"""
from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Case, Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from campaign_core.services.leases import lease_claim
from judging.models import Assessor, Campaign, Item, Judgment, Lease
from judging.services import round_sql
from judging.services.adaptive import ADAPTIVE_ORDERS, priorities_start


def _judged_by(assessor_ref) -> Exists:
    return Exists(Judgment.objects.filter(item=OuterRef("pk"), assessor=assessor_ref))


def open_items(assessor: Assessor, now, *, gold: bool):
    """Return the items open to this assessor (gold or regular ones), annotated with what is taken."""
    campaign = assessor.campaign
    leased = (
        Lease.objects.filter(item=OuterRef("pk"), expires_at__gt=now)
        .exclude(assessor=assessor)
        .order_by()
        .values("item")
        .annotate(n=Count("id"))
        .values("n")
    )
    taken = F("judgment_count") + Coalesce(Subquery(leased, output_field=IntegerField()), Value(0))
    if campaign.split == Campaign.Split.BY_TOPIC:
        taken = taken + Case(
            When(primary_assessor__isnull=True, then=Value(0)),
            When(primary_assessor=assessor, then=Value(0)),
            When(primary_assessor__blocked=True, then=Value(0)),  # a blocked primary will never judge it
            When(Exists(Judgment.objects.filter(item=OuterRef("pk"), assessor=OuterRef("primary_assessor"))),
                 then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
    items = Item.objects.filter(campaign_id=campaign.pk, is_gold=gold).exclude(_judged_by(assessor))
    if gold:
        return items.order_by("position")
    everyone = Q(is_calibration=True)
    items = items.filter(everyone | Q(judgment_count__lt=F("required_judgments")))
    items = items.annotate(taken=taken).filter(everyone | Q(taken__lt=F("required_judgments")))
    if campaign.split == Campaign.Split.BY_TOPIC:
        mine_first = Case(When(primary_assessor=assessor, then=Value(0)), default=Value(1), output_field=IntegerField())
        return items.order_by(mine_first, "priority", "position")
    return items.order_by("priority", "position")


def _counts(assessor: Assessor) -> tuple[int, int]:
    """Return (judgments so far, gold judgments so far) of the assessor."""
    row = Judgment.objects.filter(assessor=assessor).aggregate(
        done=Count("id"), gold=Count("id", filter=Q(item__is_gold=True))
    )
    return row["done"], row["gold"]


def _wants_gold(campaign: Campaign, done: int, gold_done: int) -> bool:
    return campaign.gold_rate > 0 and gold_done < round((done + 1) * campaign.gold_rate)


def _claim(assessor: Assessor, now, *, gold: bool) -> Item | None:
    """Lease one open item (``campaign_core.services.leases.lease_claim``, the deadlock-safe claim).

    The statements are ``round_sql.OpenItemClaim``'s: ``open_items`` in SQL, so a claim binds
    parameters instead of compiling queries. Adaptive orders wait for a row a priority rewrite
    holds rather than answer "nothing left".
    """
    campaign = assessor.campaign
    return lease_claim(statements=round_sql.OpenItemClaim(assessor=assessor, now=now, gold=gold), now=now,
                       lease_seconds=campaign.lease_seconds, wait=campaign.order in ADAPTIVE_ORDERS and not gold)


def item_next(*, assessor: Assessor, now=None) -> Item | None:
    """Return the item this assessor should judge next and lease it; None when there is nothing left.

    An item the assessor already holds a live lease on comes first (its lease is renewed), so
    reloading the page shows the same pair. Blocked assessors, closed campaigns and crowd
    workers with a full batch get None. The item comes with its pair's topic and document
    (``round_sql.item_shown``), read by the same query that re-checks it under its lock.
    """
    now = now or timezone.now()
    campaign = assessor.campaign
    if assessor.blocked or campaign.status != Campaign.Status.ACTIVE:
        return None
    crowd = assessor.kind == Assessor.Kind.CROWD
    if not campaign.adaptive_ready and campaign.order in ADAPTIVE_ORDERS:
        priorities_start(campaign=campaign)  # once per campaign; computed by a background task
    with transaction.atomic():
        # Re-read the block state under the assessor's row lock, which a block holds while it
        # drops leases (``judging.services.quality``): a stale object must not lease after it.
        assessor.blocked = round_sql.assessor_lock(assessor.pk)[0]
        if assessor.blocked:
            return None
        done = gold_done = 0
        if crowd or campaign.gold_rate > 0:
            done, gold_done = _counts(assessor)
            if crowd and done >= campaign.crowd_batch_size:
                return None
        held = round_sql.lease_held(assessor_id=assessor.pk, now=now)
        if held is not None:
            round_sql.lease_renew(item_id=held, assessor_id=assessor.pk,
                                  expires_at=now + timedelta(seconds=campaign.lease_seconds))
            return round_sql.item_shown(held)
        if _wants_gold(campaign, done, gold_done):
            item = _claim(assessor, now, gold=True)
            if item is not None:
                return item
        item = _claim(assessor, now, gold=False)
        if item is None and crowd and campaign.gold_rate > 0:
            item = _claim(assessor, now, gold=True)
        return item


def item_peek_next(*, assessor: Assessor, after_item: Item | None) -> Item | None:
    """Return the item likely to follow ``after_item`` once it is judged, without leasing it (preloading).

    A guess: by the time the assessor asks, someone else may have taken it; ``item_next``
    stays the authority.
    """
    campaign = assessor.campaign
    if assessor.blocked or campaign.status != Campaign.Status.ACTIVE:
        return None
    now = timezone.now()
    crowd = assessor.kind == Assessor.Kind.CROWD
    done = gold_done = 0
    if crowd or campaign.gold_rate > 0:
        done, gold_done = _counts(assessor)
        if after_item is not None:
            done += 1
            gold_done += int(after_item.is_gold)
        if crowd and done >= campaign.crowd_batch_size:
            return None
    exclude = [after_item.pk] if after_item is not None else []
    order = [True, False] if _wants_gold(campaign, done, gold_done) else [False]
    if crowd and campaign.gold_rate > 0 and order == [False]:
        order.append(True)
    for gold in order:
        item = open_items(assessor, now, gold=gold).exclude(pk__in=exclude).first()
        if item is not None:
            return item
    return None


def lease_release(*, assessor: Assessor, item: Item) -> None:
    """Give an item back to the queue before the lease runs out (e.g. the assessor left the page)."""
    Lease.objects.filter(assessor=assessor, item=item).delete()
