"""Record judgments: idempotent submits, revisions with history, skips, gold accuracy.

Rules:
- ``client_token`` makes a submit idempotent: a retried request (double key press, network
  retry) finds the judgment or revision its token already recorded and returns that judgment.
- A second submit for an item the assessor already judged is a *revision*: the judgment is
  updated and a ``JudgmentRevision`` (old → new, who, when) is kept. A resubmit that changes
  neither grade nor skip only updates the comment and records no revision.
- A skip ("can't judge", with a reason) is a judgment without a grade. It uses up a slot of
  the item like a label (so an item never gets more judgments than required); items left
  with only skips get no final label and can be sent to more assessors by the lead.
- ``active_seconds`` is clamped to [0, 2 h] (NaN → 0): the browser pauses the clock when the
  tab is hidden or idle, so more than two hours on one pair means a broken clock. A revision
  adds its time to the judgment's total and keeps its own on the revision row.
- Gold accuracy: a gold answer is correct when it agrees with the gold label on relevance
  (``grade >= collection.relevant_threshold``), so a graded scale doesn't punish a 2 for a 3;
  skipped gold items count neither way. A crowd worker with at least ``gold_min_answers``
  gold answers and an accuracy below ``gold_accuracy_threshold`` is blocked
  (``judging.services.quality.gold_check``, unless a lead waived the check by unblocking
  them): they get no more work, their labels leave the final labels (they stay in the
  database for audit) and the regular items they judged are offered to others again.
- A paused or finished campaign takes neither answers nor revisions (``campaign_closed``), as
  in preference campaigns; a retried request still gets its judgment back.
- A blocked assessor may neither answer nor revise (``blocked``); a retried request still
  gets back the judgment its token recorded. ``judgment_count`` counts only unblocked
  assessors' judgments (see ``quality``), so only an unblocked assessor's new judgment bumps it.
"""
from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from campaign_core.active_time import clamp_seconds
from campaign_core.services.quality import refuse_blocked
from campaign_core.services.replays import judgment_replayed
from judging.models import Assessor, Campaign, Item, Judgment, JudgmentRevision, Lease
from judging.services import round_sql
from judging.services.adaptive import after_judgment
from judging.services.quality import gold_check


def _validate_label(*, assessor: Assessor, grade, skipped: bool) -> None:
    if skipped:
        if grade is not None:
            raise ValidationError("A skipped pair has no grade.", code="bad_grade")
        return
    grades = assessor.campaign.collection.grades
    if grade is None or isinstance(grade, bool) or not isinstance(grade, int) or grade not in grades:
        raise ValidationError(f"Grade must be one of {grades}.", code="bad_grade")


def _revise(*, judgment: Judgment, assessor: Assessor, grade, skipped, skip_reason, comment, seconds, token):
    changed = judgment.grade != grade or judgment.skipped != skipped
    if changed:
        JudgmentRevision.objects.create(
            judgment=judgment, changed_by=assessor, old_grade=judgment.grade, new_grade=grade,
            old_skipped=judgment.skipped, new_skipped=skipped, client_token=token, active_seconds=seconds,
        )
        judgment.revision_count += 1
    judgment.grade, judgment.skipped = grade, skipped
    judgment.skip_reason = skip_reason if skipped else ""
    judgment.comment = comment
    if judgment.active_seconds is not None:  # unknown time (imported labels) stays unknown
        judgment.active_seconds += seconds
    judgment.save(update_fields=["grade", "skipped", "skip_reason", "comment", "active_seconds",
                                 "revision_count", "updated_at"])
    return judgment


def _refuse_closed(campaign: Campaign) -> None:
    """Raise ValidationError(code="campaign_closed") unless the campaign is active: no answers, no revisions."""
    if campaign.status != Campaign.Status.ACTIVE:
        raise ValidationError("This campaign is not open for judging.", code="campaign_closed")


def _take_lease(*, assessor: Assessor, item: Item, now) -> bool:
    """Drop the assessor's lease on the item; return True if they may judge it (the lease was live, or it is open).

    The usual case, a live lease, costs one DELETE, whose row count says it was live. Without
    one, the item must still be open to them, and an expired lease of theirs goes too. A
    refusal after this rolls the deletion back with the rest of the submit.
    """
    if round_sql.lease_take_live(item_id=item.pk, assessor_id=assessor.pk, now=now):
        return True
    if not round_sql.is_open(assessor=assessor, item=item, now=now):
        return False
    round_sql.lease_drop(item_id=item.pk, assessor_id=assessor.pk)
    return True


def _apply_gold_threshold(assessor: Assessor) -> None:
    """Run the campaign's gold check after a gold answer (``quality.gold_check``; it respects a lead's waiver)."""
    gold_check(assessor=assessor)


def judgment_submit(*, assessor: Assessor, item: Item | int, grade: int | None, skipped: bool = False,
                    skip_reason: str = "", comment: str = "", active_seconds: float = 0.0,
                    client_token: str) -> Judgment:
    """Record (or revise) the assessor's label for an item; a repeated client_token changes nothing.

    ``item`` is the item or its primary key (the API passes the key, so the row is read once,
    under its lock). Runs under the assessor's row lock and then the item's (the order
    ``quality.assessor_block`` takes), so the check that the item still has room and the
    write happen atomically, and a lead's block cannot slip between reading ``blocked`` and
    bumping ``judgment_count``. Raises ValidationError with code ``bad_grade``, ``not_found``
    (no such item in the assessor's campaign), ``not_assigned`` (neither leased to nor open
    to this assessor), ``blocked``, ``campaign_closed``, ``batch_complete`` (a crowd worker's
    batch is full), ``token_reused``.
    """
    token = (client_token or "").strip()
    if not token or len(token) > 64:
        raise ValidationError("A client token of 1 to 64 characters is required.", code="bad_token")
    if isinstance(item, Item) and item.campaign_id != assessor.campaign_id:
        raise ValidationError("This pair is not part of your campaign.", code="not_assigned")
    item_id = item.pk if isinstance(item, Item) else item
    _validate_label(assessor=assessor, grade=grade, skipped=skipped)
    seconds = clamp_seconds(active_seconds)
    skip_reason = (skip_reason or "")[:300] if skipped else ""
    now = timezone.now()
    try:
        with transaction.atomic():
            # The caller's assessor object may be stale: re-read the block state under the lock.
            assessor.blocked, assessor.gold_check_waived = round_sql.assessor_lock(assessor.pk)
            locked = round_sql.item_lock(item_id=item_id, campaign_id=assessor.campaign_id)
            if locked is None:
                raise ValidationError("No such pair in this campaign.", code="not_found")
            locked.campaign = assessor.campaign  # already read with the assessor; the hooks below use it
            # One query finds both a judgment this token already recorded and my judgment of the item.
            found = round_sql.judgments_of_token_or_item(token=token, item_id=locked.pk, assessor_id=assessor.pk)
            for judgment in found:
                if judgment.client_token == token:
                    if judgment.assessor_id != assessor.pk:
                        raise ValidationError("This client token was used by someone else.", code="token_reused")
                    return judgment
            existing = next((j for j in found if j.item_id == locked.pk and j.assessor_id == assessor.pk), None)
            if existing is not None:
                revision = JudgmentRevision.objects.filter(client_token=token).select_related("judgment").first()
                if revision is not None:  # a retried revision
                    if revision.judgment.assessor_id != assessor.pk:
                        raise ValidationError("This client token was used by someone else.", code="token_reused")
                    return revision.judgment
                refuse_blocked(assessor)
                _refuse_closed(assessor.campaign)
                judgment = _revise(judgment=existing, assessor=assessor, grade=grade, skipped=skipped,
                                   skip_reason=skip_reason, comment=comment, seconds=seconds, token=token)
            else:
                judgment = _record(assessor=assessor, item=locked, grade=grade, skipped=skipped,
                                   skip_reason=skip_reason, comment=comment, seconds=seconds, token=token, now=now)
            if locked.is_gold:
                _apply_gold_threshold(assessor)
            else:
                after_judgment(item=locked)  # adaptive order: re-prioritise the topic after commit
            return judgment
    except IntegrityError:
        # Last line of defence (a racing duplicate on SQLite, where there are no row locks):
        # the constraint held; answer with what the winner recorded.
        replay = judgment_replayed(token=token, assessor=assessor, revision_model=JudgmentRevision)
        if replay is not None:
            return replay
        existing = Judgment.objects.filter(item_id=item_id, assessor=assessor).first()
        if existing is not None:
            return existing
        raise


def _record(*, assessor, item, grade, skipped, skip_reason, comment, seconds, token, now) -> Judgment:
    campaign = assessor.campaign
    refuse_blocked(assessor)
    _refuse_closed(campaign)
    if assessor.kind == Assessor.Kind.CROWD:
        if Judgment.objects.filter(assessor=assessor).count() >= campaign.crowd_batch_size:
            raise ValidationError("Your batch is complete.", code="batch_complete")
    if not _take_lease(assessor=assessor, item=item, now=now):
        raise ValidationError("This pair is not assigned to you.", code="not_assigned")
    judgment = round_sql.judgment_insert(Judgment(
        item=item, assessor=assessor, grade=grade, skipped=skipped, skip_reason=skip_reason,
        comment=comment, active_seconds=seconds, client_token=token,
    ))
    round_sql.item_count_bump(item.pk)
    return judgment


def judgment_previous(*, assessor: Assessor, before: Judgment | None = None) -> Judgment | None:
    """Return the assessor's judgment made just before ``before`` (or their latest), for the back key."""
    judgments = Judgment.objects.filter(assessor=assessor)
    if before is not None:
        judgments = judgments.filter(
            Q(created_at__lt=before.created_at) | Q(created_at=before.created_at, pk__lt=before.pk)
        )
    return judgments.order_by("-created_at", "-pk").first()


def judgment_history(*, judgment: Judgment) -> list[JudgmentRevision]:
    """Return the judgment's revisions, oldest first (who, when, old → new)."""
    return list(judgment.revisions.select_related("changed_by__user").order_by("changed_at", "pk"))


def lease_seconds_left(*, assessor: Assessor, item: Item, now=None) -> float:
    """Return how long the assessor's lease on the item still runs (0 if none); for the page's timer."""
    now = now or timezone.now()
    lease = Lease.objects.filter(item=item, assessor=assessor).first()
    if lease is None:
        return 0.0
    return max(0.0, (lease.expires_at - now) / timedelta(seconds=1))
