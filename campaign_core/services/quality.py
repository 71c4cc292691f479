"""Crowd quality for both campaign kinds: the automatic gold stop, a lead's block and unblock, the log.

- Automatic stop: a *crowd worker* with at least ``gold_min_answers`` gold answers (at least
  one) and a gold accuracy below ``gold_accuracy_threshold`` is blocked right after the gold
  answer that crossed it. What counts as a correct gold answer is the kind's rule
  (:class:`GoldRule`: a relevance grade on the right side of the collection's threshold, a
  preference for the intact side). The check never unblocks anyone, and it leaves alone
  workers a lead has unblocked (``gold_check_waived``): the lead's decision is not silently
  undone by the next gold answer.
- A lead may block or unblock any assessor, expert or crowd worker, by hand, with a reason.
  Each manual change is written to the admin log (``campaign_core.services.audit``, a JSON
  message ``{"kind": "block" | "unblock", "assessor", "name", "reason"}``); automatic blocks
  keep their reason and time on the assessor row (the admin log needs a user).
- A blocked assessor's leases are dropped and they get no more work; their judgments stay in
  the database for audit but leave the final labels, results and exports.

Slots: an item's ``judgment_count`` of a non-gold item counts the judgments of assessors who
are not blocked. Blocking someone recounts the non-gold items they judged, so a regular item
they took is offered to others again until it has ``required_judgments`` usable judgments; an
unblock counts them again (an item may then hold more than required). Gold items are left
alone: everyone answers them and no count decides who gets them.

Locks: the assessor's row first, then the items' rows in primary-key order — the order both
kinds' ``judgment_submit`` take (assessor, then item), so a block and a submit cannot deadlock
and a submit cannot slip a judgment past the recount. On SQLite there are no row locks; its
single writer serialises the same steps.

The kind's models come from the assessor: ``assessor.leases`` and ``assessor.judgments`` name
its lease and judgment models, and the judgment's ``item`` field its item model.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from campaign_core.services.audit import audit, audit_entries, audit_messages

# Either kind's assessor, item, judgment model: Django gives each concrete model its manager and
# reverse relations (``objects``, ``leases``, ``judgments``) at run time, which the type checker
# cannot see through an abstract base, so the shared services take them as Any.
Assessor = Any
ModelClass = Any

AUDIT_KINDS = ("block", "unblock")
MAX_REASON = 300
MAX_LEAD_REASON = 200


class GoldRule(NamedTuple):
    """A campaign kind's gold rule, as filters on its judgments: which count as answers, which are correct."""

    answered: Q
    correct: Q


def _judgment_model(assessor: Assessor) -> ModelClass:
    return assessor.judgments.model


def _item_model(judgment_model: ModelClass) -> ModelClass:
    return judgment_model._meta.get_field("item").related_model


def gold_answers(*, assessor: Assessor, rule: GoldRule) -> tuple[int, int]:
    """Return (correct, answered) over the assessor's answers to gold items under the kind's rule."""
    row = _judgment_model(assessor).objects.filter(rule.answered, assessor=assessor, item__is_gold=True).aggregate(
        answered=Count("id"), correct=Count("id", filter=rule.correct))
    return row["correct"], row["answered"]


def usable_count(judgment_model: ModelClass) -> Coalesce:
    """Return a subquery expression for an item row: its judgments by assessors neither blocked nor models.

    A model assessor's labels (``model_assessors``) never take a human's slot on an item.
    """
    usable = (judgment_model.objects.filter(item=OuterRef("pk"), assessor__blocked=False)
              .exclude(assessor__kind="model").order_by()
              .values("item").annotate(n=Count("id")).values("n"))
    return Coalesce(Subquery(usable, output_field=IntegerField()), Value(0))


def items_recount(*, judgment_model: ModelClass, item_ids: Iterable[int]) -> int:
    """Set judgment_count of the given non-gold items to their usable judgments, under their row locks.

    Returns how many items were updated. Callers that also lock an assessor must lock it first.
    """
    item_model = _item_model(judgment_model)
    ids = list(item_model.objects.filter(pk__in=list(item_ids), is_gold=False).order_by("pk")
               .select_for_update(of=("self",)).values_list("pk", flat=True))
    if not ids:
        return 0
    # Counted after the locks are held: a submit locks the item before inserting, so this
    # statement sees every judgment committed on these items.
    return item_model.objects.filter(pk__in=ids).update(judgment_count=usable_count(judgment_model))


def _set_blocked(assessor: Assessor, *, blocked: bool, reason: str, waive: bool, now: datetime) -> None:
    """Write the block state on a locked assessor row, drop leases on a block, recount their items."""
    fields = {"blocked": blocked, "blocked_reason": reason[:MAX_REASON] if blocked else "",
              "blocked_at": now if blocked else None}
    if waive:
        fields["gold_check_waived"] = True
    type(assessor).objects.filter(pk=assessor.pk).update(**fields)
    for name, value in fields.items():
        setattr(assessor, name, value)
    if blocked:
        assessor.leases.model.objects.filter(assessor=assessor).delete()
    judgment_model = _judgment_model(assessor)
    items_recount(judgment_model=judgment_model,
                  item_ids=judgment_model.objects.filter(assessor=assessor).values_list("item_id", flat=True))


def gold_check(*, assessor: Assessor, rule: GoldRule, now: datetime | None = None) -> bool:
    """Block a crowd worker whose gold accuracy fell below the campaign's threshold; return True if blocked now.

    Call inside the transaction that recorded the gold answer, with the assessor's row locked
    (both kinds' ``judgment_submit`` do). Experts, blocked assessors, workers a lead unblocked
    and campaigns without a threshold are left alone.
    """
    campaign = assessor.campaign
    if (assessor.kind != "crowd" or assessor.blocked or assessor.gold_check_waived
            or campaign.gold_accuracy_threshold <= 0):
        return False
    correct, answered = gold_answers(assessor=assessor, rule=rule)
    if answered < max(1, campaign.gold_min_answers) or correct / answered >= campaign.gold_accuracy_threshold:
        return False
    reason = f"gold accuracy {correct}/{answered} below {campaign.gold_accuracy_threshold:.2f}"
    _set_blocked(assessor, blocked=True, reason=reason, waive=False, now=now or timezone.now())
    return True


def refuse_blocked(assessor: Assessor) -> None:
    """Raise ValidationError(code="blocked") for a blocked assessor."""
    if assessor.blocked:
        raise ValidationError("You have been stopped from judging in this campaign.", code="blocked")


def _locked(assessor: Assessor) -> Assessor:
    return (type(assessor).objects.select_for_update(of=("self",)).select_related("user", "campaign")
            .get(pk=assessor.pk))


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
    audit(campaign=locked.campaign, user=user, kind="block", assessor=locked.pk, name=locked.label, reason=reason)
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
    audit(campaign=locked.campaign, user=user, kind="unblock", assessor=locked.pk, name=locked.label,
          reason=previous)
    assessor.blocked, assessor.blocked_reason, assessor.blocked_at = False, "", None
    assessor.gold_check_waived = True
    return True


def quality_log(*, campaign: Any, limit: int | None = None) -> list[dict]:
    """Return the leads' block/unblock actions on the campaign, newest first (at most ``limit``).

    Rows: {"at", "user", "kind", "assessor", "name", "reason"}.
    """
    entries = audit_entries(campaign=campaign, kinds=AUDIT_KINDS)
    if limit is not None:
        entries = entries[:limit]
    return [{"at": entry.action_time, "user": entry.user.get_username(), "kind": data["kind"],  # type: ignore[attr-defined]  # LogEntry.user is the User model
             "assessor": data.get("assessor"), "name": data.get("name", ""), "reason": data.get("reason", "")}
            for entry, data in audit_messages(entries, AUDIT_KINDS)]
