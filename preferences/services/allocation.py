"""Handing out preference items: the relevance campaigns' lease semantics on PrefItem.

Same rules as judging.services.allocation: an item is open to an assessor who has not judged
it while judgments plus other assessors' live leases are below r. The claim is the campaign
core's ``lease_claim`` (as in judging): it locks the row with SKIP LOCKED, re-counts under the
lock and then leases it, each attempt in its own savepoint so a rejected row's lock is released
at once, so that concurrent assessors never hold more leases on an item than its overlap
allows and two claims never deadlock.

Gold items are mixed into each assessor's stream as in judging: before the k-th item a gold
item comes when the assessor's gold answers are fewer than ``round(k · gold_rate)``; experts
stop when the regular items run out, crowd workers fill the rest of their batch with gold.
Blocked assessors get nothing.
"""
from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from campaign_core.services.leases import QueryClaim, lease_claim
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment, PrefLease


def open_items(assessor: PrefAssessor, now, *, gold: bool):
    """Return the items open to the assessor, lowest position first."""
    leased = (PrefLease.objects.filter(item=OuterRef("pk"), expires_at__gt=now).exclude(assessor=assessor)
              .order_by().values("item").annotate(n=Count("id")).values("n"))
    mine = Exists(PrefJudgment.objects.filter(item=OuterRef("pk"), assessor=assessor))
    items = PrefItem.objects.filter(campaign_id=assessor.campaign_id, is_gold=gold).exclude(mine)
    if gold:
        return items.order_by("position")
    taken = F("judgment_count") + Coalesce(Subquery(leased, output_field=IntegerField()), Value(0))
    return (items.filter(judgment_count__lt=F("required_judgments")).annotate(taken=taken)
            .filter(taken__lt=F("required_judgments")).order_by("position"))


def _claim(assessor: PrefAssessor, now, *, gold: bool) -> PrefItem | None:
    """Lease one open item with the campaign core's deadlock-safe claim (a savepoint per attempt)."""
    statements = QueryClaim(assessor=assessor, open_items=open_items(assessor, now, gold=gold))
    return lease_claim(statements=statements, now=now, lease_seconds=assessor.campaign.lease_seconds)


def _wants_gold(campaign: PrefCampaign, assessor: PrefAssessor) -> bool:
    if campaign.gold_rate <= 0:
        return False
    row = PrefJudgment.objects.filter(assessor=assessor).aggregate(
        done=Count("id"), gold=Count("id", filter=Q(item__is_gold=True)))
    return row["gold"] < round((row["done"] + 1) * campaign.gold_rate)


def batch_full(assessor: PrefAssessor) -> bool:
    """Crowd workers stop after the campaign's batch size."""
    return (assessor.kind == PrefAssessor.Kind.CROWD
            and assessor.judgments.count() >= assessor.campaign.crowd_batch_size)


@transaction.atomic
def item_next(*, assessor: PrefAssessor, now=None) -> PrefItem | None:
    """Return the item the assessor should judge next and lease it; None when nothing is left.

    A live lease the assessor already holds comes first (renewed), so a reload shows the same item.
    Blocked assessors, closed campaigns and crowd workers with a full batch get None.
    """
    now = now or timezone.now()
    campaign = assessor.campaign
    # Re-read the block state and the campaign's status under the assessor's row lock, which a
    # lead's block holds while it drops leases (``quality``): a stale object must not lease after it.
    assessor.blocked, campaign.status = (PrefAssessor.objects.select_for_update(of=("self",))
                                         .values_list("blocked", "campaign__status").get(pk=assessor.pk))
    if assessor.blocked or campaign.status != PrefCampaign.Status.ACTIVE or batch_full(assessor):
        return None
    held = (PrefLease.objects.filter(assessor=assessor, expires_at__gt=now)
            .exclude(item__judgments__assessor=assessor).select_related("item").order_by("created_at").first())
    if held is not None:
        held.expires_at = now + timedelta(seconds=campaign.lease_seconds)
        held.save(update_fields=["expires_at"])
        return held.item
    gold_first = _wants_gold(campaign, assessor)
    item = _claim(assessor, now, gold=gold_first)
    if item is None and (gold_first or assessor.kind == PrefAssessor.Kind.CROWD):
        item = _claim(assessor, now, gold=not gold_first)
    return item
