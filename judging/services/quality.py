"""Crowd quality in relevance campaigns: the automatic gold stop, a lead's block and unblock, usable counts.

The same design as preference campaigns (``preferences.services.quality``):

- Automatic stop: a *crowd worker* with at least ``gold_min_answers`` gold answers (at least
  one) and a gold accuracy below ``gold_accuracy_threshold`` is blocked right after the gold
  answer that crossed it (accuracy as in :func:`gold_answers`). The
  check never unblocks anyone, and it leaves alone workers a lead has unblocked
  (``gold_check_waived``): the lead's decision is not silently undone by the next gold answer.
- A lead may block or unblock any assessor, expert or crowd worker, by hand, with a reason.
  Each manual change is written to Django's admin log (``LogEntry``, action CHANGE on the
  campaign, a JSON message ``{"kind": "block" | "unblock", "assessor", "name", "reason"}``),
  as rejudge requests are; automatic blocks keep their reason and time on the assessor row
  (the admin log needs a user).
- A blocked assessor's leases are dropped and they get no more work; their judgments stay in
  the database for audit but leave the final labels, qrels, conflicts and agreement.

Slots: ``Item.judgment_count`` of a non-gold item counts the judgments of assessors who are
not blocked. Blocking someone recounts the non-gold items they judged, so a regular item
they took is offered to others again until it has ``required_judgments`` usable judgments;
an unblock counts them again (an item may then hold more than required — the dashboard
clips progress at required). Calibration items are recounted too (allocation ignores their
count: everyone judges them), so progress shows only usable labels there as well. Gold
items are left alone: everyone answers them and no count decides who gets them.

Locks: the assessor's row first, then the items' rows in primary-key order — the order
``judgment_submit`` takes (assessor, then item), so a block and a submit cannot deadlock
and a submit cannot slip a judgment past the recount. On SQLite there are no row locks;
its single writer serialises the same steps.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from judging.models import Assessor, Campaign, Item, Judgment, Lease
from judging.services.audit import audit, audit_entries, audit_messages

AUDIT_KINDS = ("block", "unblock")
MAX_REASON = 300
MAX_LEAD_REASON = 200


def gold_answers(*, assessor: Assessor) -> tuple[int, int]:
    """Return (correct, answered) over the assessor's non-skipped judgments of gold items.

    A gold answer is correct when it agrees with the gold label on relevance
    (``grade >= collection.relevant_threshold``), so a graded scale doesn't punish a 2 for a
    3; skipped gold items count neither way.
    """
    threshold = assessor.campaign.collection.relevant_threshold
    row = Judgment.objects.filter(assessor=assessor, item__is_gold=True, skipped=False).aggregate(
        answered=Count("id"),
        correct=Count("id", filter=(
            Q(grade__gte=threshold, item__gold_grade__gte=threshold)
            | Q(grade__lt=threshold, item__gold_grade__lt=threshold)
        )),
    )
    return row["correct"], row["answered"]


def usable_count():
    """Return a subquery expression: the item's judgments by assessors who are neither blocked nor models."""
    # Model assessors' labels never take a human's slot (model_assessors writes them without one).
    usable = (Judgment.objects.filter(item=OuterRef("pk"), assessor__blocked=False).exclude(assessor__kind="model")
              .order_by()
              .values("item").annotate(n=Count("id")).values("n"))
    return Coalesce(Subquery(usable, output_field=IntegerField()), Value(0))


def items_recount(*, item_ids) -> int:
    """Set judgment_count of the given non-gold items to their usable judgments, under their row locks.

    Returns how many items were updated. Callers that also lock an assessor must lock it first.
    """
    ids = list(Item.objects.filter(pk__in=list(item_ids), is_gold=False).order_by("pk")
               .select_for_update(of=("self",)).values_list("pk", flat=True))
    if not ids:
        return 0
    # Counted after the locks are held: a submit locks the item before inserting, so this
    # statement sees every judgment committed on these items.
    return Item.objects.filter(pk__in=ids).update(judgment_count=usable_count())


def _recount(assessor: Assessor) -> None:
    items_recount(item_ids=Judgment.objects.filter(assessor=assessor).values_list("item_id", flat=True))


def _set_blocked(assessor: Assessor, *, blocked: bool, reason: str, waive: bool, now) -> None:
    """Write the block state on a locked assessor row, drop leases on a block, recount their items."""
    fields = {"blocked": blocked, "blocked_reason": reason[:MAX_REASON] if blocked else "",
              "blocked_at": now if blocked else None}
    if waive:
        fields["gold_check_waived"] = True
    Assessor.objects.filter(pk=assessor.pk).update(**fields)
    for name, value in fields.items():
        setattr(assessor, name, value)
    if blocked:
        Lease.objects.filter(assessor=assessor).delete()
    _recount(assessor)


def gold_check(*, assessor: Assessor, now=None) -> bool:
    """Block a crowd worker whose gold accuracy fell below the campaign's threshold; return True if blocked now.

    Call inside the transaction that recorded the gold answer, with the assessor's row locked
    (``judgment_submit`` does). Experts, blocked assessors, workers a lead unblocked and
    campaigns without a threshold are left alone.
    """
    campaign = assessor.campaign
    if (assessor.kind != Assessor.Kind.CROWD or assessor.blocked or assessor.gold_check_waived
            or campaign.gold_accuracy_threshold <= 0):
        return False
    correct, answered = gold_answers(assessor=assessor)
    if answered < max(1, campaign.gold_min_answers) or correct / answered >= campaign.gold_accuracy_threshold:
        return False
    reason = f"gold accuracy {correct}/{answered} below {campaign.gold_accuracy_threshold:.2f}"
    _set_blocked(assessor, blocked=True, reason=reason, waive=False, now=now or timezone.now())
    return True


def _locked(assessor: Assessor) -> Assessor:
    return Assessor.objects.select_for_update(of=("self",)).select_related("user", "campaign").get(pk=assessor.pk)


@transaction.atomic
def assessor_block(*, assessor: Assessor, user, reason: str = "") -> bool:
    """Stop an assessor by a lead's decision, audited; return False if they were already blocked.

    Their leases go, their judgments leave the final labels (kept for audit) and the regular
    items they judged are offered to others again.
    """
    locked = _locked(assessor)
    if locked.blocked:
        return False
    reason = " ".join((reason or "").split())[:MAX_LEAD_REASON]
    text = f"blocked by {user.get_username()}" + (f": {reason}" if reason else "")
    _set_blocked(locked, blocked=True, reason=text, waive=False, now=timezone.now())
    audit(campaign=locked.campaign, user=user, kind="block", assessor=locked.pk, name=str(locked), reason=reason)
    assessor.blocked, assessor.blocked_reason, assessor.blocked_at = True, locked.blocked_reason, locked.blocked_at
    return True


@transaction.atomic
def assessor_unblock(*, assessor: Assessor, user) -> bool:
    """Let a blocked assessor judge again and count their judgments, audited; False if they were not blocked.

    The automatic gold check is waived for them from now on (the lead has decided).
    """
    locked = _locked(assessor)
    if not locked.blocked:
        return False
    previous = locked.blocked_reason
    _set_blocked(locked, blocked=False, reason="", waive=True, now=timezone.now())
    audit(campaign=locked.campaign, user=user, kind="unblock", assessor=locked.pk, name=str(locked), reason=previous)
    assessor.blocked, assessor.blocked_reason, assessor.blocked_at = False, "", None
    assessor.gold_check_waived = True
    return True


def quality_log(*, campaign: Campaign, limit: int | None = None) -> list[dict]:
    """Return the leads' block/unblock actions on the campaign, newest first (at most ``limit``).

    Rows: {"at", "user", "kind", "assessor", "name", "reason"}.
    """
    entries = audit_entries(campaign=campaign, kinds=AUDIT_KINDS)
    if limit is not None:
        entries = entries[:limit]
    return [{"at": entry.action_time, "user": entry.user.get_username(), "kind": data["kind"],
             "assessor": data.get("assessor"), "name": data.get("name", ""), "reason": data.get("reason", "")}
            for entry, data in audit_messages(entries, AUDIT_KINDS)]
