"""Crowd quality in preference campaigns: gold accuracy, the automatic stop, a lead's block and unblock.

The rules are the relevance campaigns' (``judging.services.judgments``): a gold answer is
correct when it prefers the intact side (system A); a *crowd worker* with at least
``gold_min_answers`` gold answers (at least one) and an accuracy below
``gold_accuracy_threshold`` is blocked right after the gold answer that crossed it. A blocked
assessor's leases are dropped, they get no more work and no completion code, and their
judgments leave the results and the export while staying in the database for audit. The
automatic check never unblocks anyone: a blocked worker stays excluded until a lead says
otherwise.

A lead may block or unblock any assessor, expert or crowd worker, by hand. Each manual change
is written to Django's admin log (``LogEntry``, action CHANGE on the campaign, a JSON message
``{"kind": "block" | "unblock", "assessor", "name", "reason"}``), as the judging dashboard
does for rejudge requests; automatic blocks keep their reason and time on the assessor row
(the admin log needs a user). A lead's unblock waives the automatic check for that worker, so
their next gold answer does not silently undo the lead's decision.

Slots: ``PrefItem.judgment_count`` counts the judgments of assessors who are not blocked, so
the regular items a blocked assessor judged are offered to others again until they have r
usable judgments; an unblock counts them again (an item may then hold more than r). The
recount runs under the items' row locks, taken in primary-key order after the assessor's row
lock, the same order as ``judgment_submit`` (assessor, then item).
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from judging.services.audit import audit, audit_entries, audit_messages
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment, PrefLease

AUDIT_KINDS = ("block", "unblock")
MAX_REASON = 300


def gold_accuracy(*, assessor: PrefAssessor) -> tuple[int, int]:
    """Return (correct, answered) on gold items: correct means system A (the intact side) won."""
    row = PrefJudgment.objects.filter(assessor=assessor, item__is_gold=True).aggregate(
        answered=Count("id"), correct=Count("id", filter=Q(outcome=1)))
    return row["correct"], row["answered"]


def _recount(assessor: PrefAssessor) -> None:
    """Set judgment_count of the regular items the assessor judged to their unblocked assessors' judgments."""
    ids = list(PrefItem.objects.filter(judgments__assessor=assessor, is_gold=False).order_by("pk")
               .select_for_update(of=("self",)).values_list("pk", flat=True))
    if not ids:
        return
    # Counted after the locks are held: a submit locks the item before inserting, so this
    # statement's snapshot sees every judgment of these items.
    usable = (PrefJudgment.objects.filter(item=OuterRef("pk"), assessor__blocked=False).order_by()
              .values("item").annotate(n=Count("id")).values("n"))
    PrefItem.objects.filter(pk__in=ids).update(
        judgment_count=Coalesce(Subquery(usable, output_field=IntegerField()), Value(0)))


def _set_blocked(assessor: PrefAssessor, *, blocked: bool, reason: str, waive: bool, now) -> None:
    fields = {"blocked": blocked, "blocked_reason": reason[:MAX_REASON] if blocked else "",
              "blocked_at": now if blocked else None}
    if waive:
        fields["gold_check_waived"] = True
    PrefAssessor.objects.filter(pk=assessor.pk).update(**fields)
    for name, value in fields.items():
        setattr(assessor, name, value)
    if blocked:
        PrefLease.objects.filter(assessor=assessor).delete()
    _recount(assessor)


def gold_check(*, assessor: PrefAssessor, now=None) -> bool:
    """Block a crowd worker whose gold accuracy fell below the campaign's threshold; return True if blocked now.

    Call inside the transaction that recorded the gold answer, with the assessor's row locked.
    Experts, workers a lead unblocked and campaigns without a threshold are left alone.
    """
    campaign = assessor.campaign
    if (assessor.kind != PrefAssessor.Kind.CROWD or assessor.blocked or assessor.gold_check_waived
            or campaign.gold_accuracy_threshold <= 0):
        return False
    correct, answered = gold_accuracy(assessor=assessor)
    if answered < max(1, campaign.gold_min_answers) or correct / answered >= campaign.gold_accuracy_threshold:
        return False
    reason = f"gold accuracy {correct}/{answered} below {campaign.gold_accuracy_threshold:.2f}"
    _set_blocked(assessor, blocked=True, reason=reason, waive=False, now=now or timezone.now())
    return True


def _locked(assessor: PrefAssessor) -> PrefAssessor:
    return PrefAssessor.objects.select_for_update(of=("self",)).select_related("user", "campaign").get(pk=assessor.pk)


@transaction.atomic
def assessor_block(*, assessor: PrefAssessor, user, reason: str = "") -> bool:
    """Stop an assessor by a lead's decision, audited; return False if they were already blocked.

    Their leases go, their judgments leave the results (kept for audit) and their regular items
    are offered to others again.
    """
    locked = _locked(assessor)
    if locked.blocked:
        return False
    reason = " ".join((reason or "").split())[:200]
    text = f"blocked by {user.get_username()}" + (f": {reason}" if reason else "")
    _set_blocked(locked, blocked=True, reason=text, waive=False, now=timezone.now())
    audit(campaign=locked.campaign, user=user, kind="block", assessor=locked.pk, name=locked.label, reason=reason)
    assessor.blocked, assessor.blocked_reason, assessor.blocked_at = True, locked.blocked_reason, locked.blocked_at
    return True


@transaction.atomic
def assessor_unblock(*, assessor: PrefAssessor, user) -> bool:
    """Let a blocked assessor judge again and count their judgments, audited; False if they were not blocked.

    The automatic gold check is waived for them from now on (the lead has decided).
    """
    locked = _locked(assessor)
    if not locked.blocked:
        return False
    previous = locked.blocked_reason
    _set_blocked(locked, blocked=False, reason="", waive=True, now=timezone.now())
    audit(campaign=locked.campaign, user=user, kind="unblock", assessor=locked.pk, name=locked.label, reason=previous)
    assessor.blocked, assessor.blocked_reason, assessor.blocked_at = False, "", None
    assessor.gold_check_waived = True
    return True


def quality_log(*, campaign: PrefCampaign) -> list[dict]:
    """Return the leads' block/unblock actions on the campaign, newest first: {"at", "user", "kind", "name", "reason"}."""
    entries = audit_entries(campaign=campaign, kinds=AUDIT_KINDS)
    return [{"at": entry.action_time, "user": entry.user.get_username(), "kind": data["kind"],
             "assessor": data.get("assessor"), "name": data.get("name", ""), "reason": data.get("reason", "")}
            for entry, data in audit_messages(entries, AUDIT_KINDS)]


def refuse_blocked(assessor: PrefAssessor) -> None:
    """Raise ValidationError(code="blocked") for a blocked assessor."""
    if assessor.blocked:
        raise ValidationError("You have been stopped from judging in this campaign.", code="blocked")
