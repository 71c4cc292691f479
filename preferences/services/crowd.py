"""Crowd workers of preference campaigns: the shared crowd rules (``campaign_core.crowd``) applied to ``PrefAssessor``.

Joining, browser binding, resuming, consent, per-worker completion codes and the lead's export
are the campaign core's, exactly as for relevance campaigns. What is particular here: a batch
ends when allocation has nothing more for the worker (``crowd_batch_size`` items, gold
included), and a gold answer is correct when system A (the intact side) won.
"""
from __future__ import annotations

from functools import partial

from django.db.models import Count, Q

from campaign_core import crowd as core
from campaign_core.services.audit import audit, audit_automatic
from preferences.models import PrefAssessor, PrefCampaign, PrefJudgment

LEGACY_SESSION = "pref-crowd-{pk}"  # where the binding lived before the signed cookie (kept for workers who joined then)


def gold_by_assessor(campaign: PrefCampaign) -> dict[int, tuple[int, int]]:
    """Return {assessor id: (correct, answered)} on gold items: correct means system A won."""
    rows = (PrefJudgment.objects.filter(item__campaign=campaign, item__is_gold=True).values("assessor_id")
            .annotate(answered=Count("id"), correct=Count("id", filter=Q(outcome=1))))
    return {row["assessor_id"]: (row["correct"], row["answered"]) for row in rows}


KIND = core.CrowdKind(name="preferences", assessor_model=PrefAssessor, audit=audit_automatic, audit_lead=audit,
                      gold_by_assessor=gold_by_assessor)


def legacy_session_name(campaign: PrefCampaign) -> str:
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


def crowd_batch_done(*, assessor: PrefAssessor) -> bool:
    """Return True once the worker judged their whole batch (or the campaign has nothing more for them)."""
    from preferences.services import allocation

    done = assessor.judgments.count()
    if done >= assessor.campaign.crowd_batch_size:
        return True
    return done > 0 and allocation.item_next(assessor=assessor) is None


def crowd_complete(*, assessor: PrefAssessor) -> str:
    """Return the worker's own completion code once their batch is done (the same code every time).

    Raises ValidationError(code="blocked") for a stopped worker (the lead decides about them on
    the platform) and "batch_incomplete" before the batch is done.
    """
    done = assessor.completed_at is not None or crowd_batch_done(assessor=assessor)
    return core.crowd_complete(assessor=assessor, batch_done=done)
