"""Crowd links for preference campaigns: join with platform ids, consent, completion code.

As in relevance campaigns (``judging.services.crowd``): platform parameters (Prolific's
``PROLIFIC_PID``, MTurk's ``workerId``) identify a worker and win over whatever the browser
session remembers, so a second worker on a shared browser never continues the first one's
batch; a plain link without parameters is known by the session only. A blocked worker gets
no completion code (the lead decides about them on the platform).
"""
from __future__ import annotations

import hashlib

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from judging.services.crowd import _identify
from preferences.models import PrefAssessor, PrefCampaign


def crowd_join(*, campaign: PrefCampaign, params, session_key: str | None) -> PrefAssessor | None:
    """Return the worker's assessor row, creating it; None for an MTurk preview.

    A worker identified by platform id gets the same row on every visit (the latest platform
    ids are remembered: MTurk's completion form must post the current assignmentId); an
    anonymous link visitor is known by the session only.
    """
    mode, worker_id, data = _identify(params)
    if mode == "preview":
        return None
    if worker_id:
        try:
            with transaction.atomic():
                assessor, created = PrefAssessor.objects.get_or_create(
                    campaign=campaign, platform=mode, worker_id=worker_id,
                    defaults={"kind": PrefAssessor.Kind.CROWD, "platform_data": data})
        except IntegrityError:  # two tabs of the same worker joining at once
            assessor, created = PrefAssessor.objects.get(campaign=campaign, platform=mode, worker_id=worker_id), False
        if not created and data and data != assessor.platform_data:
            assessor.platform_data = {**assessor.platform_data, **data}
            assessor.save(update_fields=["platform_data"])
        return assessor
    if session_key:
        known = PrefAssessor.objects.filter(campaign=campaign, session_key=session_key,
                                            kind=PrefAssessor.Kind.CROWD).first()
        if known is not None:
            return known
    return PrefAssessor.objects.create(campaign=campaign, kind=PrefAssessor.Kind.CROWD, platform=mode)


def crowd_consent(*, assessor: PrefAssessor) -> None:
    if assessor.consented_at is None:
        assessor.consented_at = timezone.now()
        assessor.save(update_fields=["consented_at"])


def crowd_complete(*, assessor: PrefAssessor) -> str:
    """Mark the worker complete and return their code (the campaign's, or one derived per worker).

    Raises ValidationError(code="blocked") for a stopped worker.
    """
    if assessor.blocked:
        raise ValidationError("You have been stopped from judging in this campaign.", code="blocked")
    if not assessor.completion_code:
        campaign = assessor.campaign
        code = campaign.crowd_completion_code or hashlib.sha256(
            f"{campaign.crowd_token}:{assessor.session_key}".encode()).hexdigest()[:10].upper()
        assessor.completion_code = code
        assessor.completed_at = timezone.now()
        assessor.save(update_fields=["completion_code", "completed_at"])
    return assessor.completion_code
