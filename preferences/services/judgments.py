"""Recording preference answers: idempotent by client token, one per (item, assessor), revisions kept.

A blocked assessor may neither answer nor revise (``blocked``); a gold answer runs the
campaign's gold check (``preferences.services.quality``), which may block a crowd worker.
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaign_core.active_time import clamp_seconds
from campaign_core.services.quality import refuse_blocked
from campaign_core.services.replays import judgment_replayed
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment, PrefLease, PrefRevision
from preferences.services.quality import gold_accuracy, gold_check

__all__ = ["CHOICES", "STRENGTHS", "choice_of", "gold_accuracy", "judgment_submit", "outcome_of"]

CHOICES = {-1: "left better", 0: "about the same", 1: "right better"}
STRENGTHS = {1: "slightly", 2: "clearly", 3: "much"}


def outcome_of(choice: int, left_is_a: bool) -> int:
    """Translate a panel answer into system terms: +1 A better, 0 tie, -1 B better."""
    return -choice if left_is_a else choice


def choice_of(outcome: int, left_is_a: bool) -> int:
    """Inverse of :func:`outcome_of` (the panel answer that expresses an outcome)."""
    return -outcome if left_is_a else outcome


def _validate(choice, strength) -> None:
    if isinstance(choice, bool) or choice not in CHOICES:
        raise ValidationError("Choice must be -1 (left), 0 (same) or 1 (right).", code="bad_choice")
    if strength is not None and (isinstance(strength, bool) or strength not in STRENGTHS):
        raise ValidationError("Strength must be 1, 2 or 3.", code="bad_strength")


def judgment_submit(*, assessor: PrefAssessor, item: PrefItem, choice: int, strength: int | None = None,
                    comment: str = "", seconds: float = 0.0, token: str, now=None) -> PrefJudgment:
    """Record (or revise) the assessor's answer on the item and return it.

    A token already seen returns its judgment unchanged (a retried request). A new answer needs
    a live lease or an existing judgment (a revision); otherwise it is refused, so nobody can
    judge items they were not given; a closed campaign takes no answers and no revisions. Raises
    ValidationError with code ``bad_choice``, ``bad_strength``, ``no_token``, ``token_reused``,
    ``blocked``, ``campaign_closed``, ``no_lease`` or ``full``.
    The assessor's row is locked and then the item's (the order ``quality.assessor_block``
    uses), so a lead's block cannot slip between the check and the write.
    """
    _validate(choice, strength)
    if not token or len(token) > 64:
        raise ValidationError("A client token is required.", code="no_token")
    now = now or timezone.now()
    with transaction.atomic():
        replay = judgment_replayed(token=token, assessor=assessor, revision_model=PrefRevision)
        if replay is not None:
            return replay
        assessor.blocked, assessor.gold_check_waived = (
            PrefAssessor.objects.select_for_update().values_list("blocked", "gold_check_waived").get(pk=assessor.pk))
        refuse_blocked(assessor)
        if assessor.campaign.status != PrefCampaign.Status.ACTIVE:
            raise ValidationError("This campaign is not open for judging.", code="campaign_closed")
        item = PrefItem.objects.select_for_update().get(pk=item.pk, campaign_id=assessor.campaign_id)
        existing = PrefJudgment.objects.select_for_update().filter(item=item, assessor=assessor).first()
        seconds = clamp_seconds(seconds)
        if existing is not None:
            # As in judging: only a changed answer is a revision; a resubmit of the same answer
            # just updates strength, comment and time.
            if choice != existing.choice:
                PrefRevision.objects.create(judgment=existing, old_choice=existing.choice, new_choice=choice,
                                            client_token=token, active_seconds=seconds)
                existing.revision_count += 1
            existing.choice, existing.outcome = choice, outcome_of(choice, item.left_is_a)
            existing.strength, existing.comment = strength, comment[:5000]
            existing.active_seconds += seconds
            existing.save()
            if item.is_gold:
                gold_check(assessor=assessor, now=now)
            return existing
        lease = PrefLease.objects.filter(item=item, assessor=assessor, expires_at__gt=now)
        if not lease.exists():
            raise ValidationError("This item is not leased to you (it may have expired).", code="no_lease")
        if item.judgment_count >= item.required_judgments and not item.is_gold:
            raise ValidationError("This item has all its judgments.", code="full")
        judgment = PrefJudgment.objects.create(item=item, assessor=assessor, choice=choice,
                                               outcome=outcome_of(choice, item.left_is_a), strength=strength,
                                               comment=comment[:5000], active_seconds=seconds, client_token=token)
        PrefItem.objects.filter(pk=item.pk).update(judgment_count=F("judgment_count") + 1)
        lease.delete()
        if item.is_gold:
            gold_check(assessor=assessor, now=now)
        return judgment
