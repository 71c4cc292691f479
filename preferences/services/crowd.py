"""Crowd links for preference campaigns: join with platform ids, consent, completion code."""
from __future__ import annotations

import hashlib

from django.utils import timezone

from judging.services.crowd import _identify
from preferences.models import PrefAssessor, PrefCampaign


def crowd_join(*, campaign: PrefCampaign, params, session_key: str | None) -> PrefAssessor | None:
    """Return the worker's assessor row, creating it; None for an MTurk preview.

    A worker identified by platform id gets the same row on every visit; an anonymous link
    visitor is known by the session only.
    """
    mode, worker_id, data = _identify(params)
    if mode == "preview":
        return None
    if session_key:
        known = PrefAssessor.objects.filter(campaign=campaign, session_key=session_key).first()
        if known is not None:
            return known
    if worker_id:
        assessor, _ = PrefAssessor.objects.get_or_create(
            campaign=campaign, platform=mode, worker_id=worker_id,
            defaults={"kind": PrefAssessor.Kind.CROWD, "platform_data": data})
        return assessor
    return PrefAssessor.objects.create(campaign=campaign, kind=PrefAssessor.Kind.CROWD, platform=mode)


def crowd_consent(*, assessor: PrefAssessor) -> None:
    if assessor.consented_at is None:
        assessor.consented_at = timezone.now()
        assessor.save(update_fields=["consented_at"])


def crowd_complete(*, assessor: PrefAssessor) -> str:
    """Mark the worker complete and return their code (the campaign's, or one derived per worker)."""
    if not assessor.completion_code:
        campaign = assessor.campaign
        code = campaign.crowd_completion_code or hashlib.sha256(
            f"{campaign.crowd_token}:{assessor.session_key}".encode()).hexdigest()[:10].upper()
        assessor.completion_code = code
        assessor.completed_at = timezone.now()
        assessor.save(update_fields=["completion_code", "completed_at"])
    return assessor.completion_code
