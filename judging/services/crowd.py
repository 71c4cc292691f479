"""Crowd workers of relevance campaigns: the shared crowd rules (``campaign_core.crowd``) applied to ``Assessor``.

Joining, resuming, consent, completion codes and the lead's export are the campaign core's;
this module adds what is particular to relevance campaigns: a batch is ``crowd_batch_size``
judgments (gold included), and gold accuracy agrees on relevance (``quality.gold_answers``).
"""
from __future__ import annotations

from functools import partial

from django.db.models import Count, Q

from campaign_core import crowd as core
from campaign_core.services.audit import audit, audit_automatic
from judging.models import Assessor, Campaign, Judgment
from judging.services.quality import gold_answers

LEGACY_SESSION = "crowd:{pk}"  # where the binding lived before the signed cookie (kept for workers who joined then)


def gold_by_assessor(campaign: Campaign) -> dict[int, tuple[int, int]]:
    """Return {assessor id: (correct, answered)} over non-skipped gold judgments, agreeing on relevance."""
    threshold = campaign.collection.relevant_threshold
    rows = (Judgment.objects.filter(item__campaign=campaign, item__is_gold=True, skipped=False)
            .values("assessor_id")
            .annotate(answered=Count("id"), correct=Count("id", filter=(
                Q(grade__gte=threshold, item__gold_grade__gte=threshold)
                | Q(grade__lt=threshold, item__gold_grade__lt=threshold)))))
    return {row["assessor_id"]: (row["correct"], row["answered"]) for row in rows}


KIND = core.CrowdKind(name="judging", assessor_model=Assessor, audit=audit_automatic, audit_lead=audit,
                      gold_by_assessor=gold_by_assessor)


def legacy_session_name(campaign: Campaign) -> str:
    return LEGACY_SESSION.format(pk=campaign.pk)


# Every crowd rule is the core's; these are it bound to this kind (see campaign_core.crowd for each).
crowd_join = partial(core.crowd_join, kind=KIND)  # the worker a platform link may act as; None for a preview
crowd_resume = partial(core.crowd_resume, kind=KIND)  # the worker of a secret resume link
crowd_code_check = partial(core.crowd_code_check, kind=KIND)  # is this the code the worker earned here?
crowd_settings_update = partial(core.crowd_settings_update, kind=KIND)  # who may enter the link; audited
crowd_workers_csv = partial(core.crowd_workers_csv, kind=KIND)  # the lead's CSV for approving submissions
crowd_refusals = core.crowd_refusals
crowd_consent = core.crowd_consent
crowd_code_reveal = core.crowd_code_reveal
completion_url = core.completion_url
mturk_submit = core.mturk_submit


def crowd_batch_progress(*, assessor: Assessor) -> tuple[int, int]:
    """Return (judgments made, batch size) of the worker's batch; gold items count like the others."""
    done = Judgment.objects.filter(assessor=assessor).count()
    return min(done, assessor.campaign.crowd_batch_size), assessor.campaign.crowd_batch_size


def crowd_batch_done(*, assessor: Assessor) -> bool:
    done, size = crowd_batch_progress(assessor=assessor)
    return size > 0 and done >= size


def crowd_complete(*, assessor: Assessor) -> str:
    """Return the worker's own completion code once their batch is done (the same code every time).

    Raises ValidationError with code "batch_incomplete" before the batch is done and "blocked"
    for a stopped worker (the lead decides about them on the platform).
    """
    return core.crowd_complete(assessor=assessor, batch_done=crowd_batch_done(assessor=assessor))


def gold_accuracy(*, assessor: Assessor) -> tuple[int, int]:
    """Return (correct, answered) gold answers of the assessor (see quality.gold_answers)."""
    return gold_answers(assessor=assessor)


__all__ = ["KIND", "crowd_join", "crowd_resume", "crowd_consent", "crowd_complete", "crowd_code_reveal",
           "crowd_code_check", "crowd_batch_progress", "crowd_batch_done", "crowd_workers_csv", "completion_url",
           "mturk_submit", "gold_accuracy", "gold_by_assessor", "legacy_session_name"]
