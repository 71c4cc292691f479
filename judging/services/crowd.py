"""Crowd workers: joining from Prolific or Mechanical Turk links, consent, batches, completion codes.

A worker is identified by (platform, worker id) within one campaign, so a returning worker
(same PROLIFIC_PID or workerId) resumes the same ``Assessor`` row and batch. MTurk's preview
(``assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE``) creates nothing. A plain link without platform
parameters ("link" mode) creates a new anonymous worker each time: the page keeps it in the
session. A batch is ``crowd_batch_size`` judgments, gold included.
"""
from __future__ import annotations

import secrets
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from judging.models import Assessor, Campaign, Judgment
from judging.services.quality import gold_answers

PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_ID = 200
PROLIFIC_KEYS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
MTURK_KEYS = ("workerId", "assignmentId", "hitId", "turkSubmitTo")


def _param(params, key: str) -> str:
    value = params.get(key, "") or ""
    return str(value).strip()[:MAX_ID]


def _identify(params) -> tuple[str, str, dict]:
    """Return (mode, worker id, platform data) read from the link's query parameters."""
    if _param(params, "PROLIFIC_PID"):
        data = {k: _param(params, k) for k in PROLIFIC_KEYS if _param(params, k)}
        return Assessor.Platform.PROLIFIC, _param(params, "PROLIFIC_PID"), data
    if _param(params, "assignmentId") == PREVIEW_ASSIGNMENT:
        return "preview", "", {}
    if _param(params, "workerId"):
        data = {k: _param(params, k) for k in MTURK_KEYS if _param(params, k)}
        return Assessor.Platform.MTURK, _param(params, "workerId"), data
    return Assessor.Platform.LINK, "", {}


def crowd_join(*, campaign: Campaign, params) -> tuple[Assessor | None, str]:
    """Return the crowd worker for a platform link (creating or resuming them) and the mode.

    Modes: "prolific", "mturk", "link", or "preview" (MTurk preview: (None, "preview")).
    Raises ValidationError(code="crowd_closed") when the campaign takes no crowd workers.
    """
    if not campaign.crowd_enabled or campaign.status != Campaign.Status.ACTIVE:
        raise ValidationError("This batch is not open.", code="crowd_closed")
    mode, worker_id, data = _identify(params)
    if mode == "preview":
        return None, "preview"
    if mode == Assessor.Platform.LINK:
        worker_id = "anon-" + secrets.token_hex(8)
    try:
        with transaction.atomic():
            worker, created = Assessor.objects.get_or_create(
                campaign=campaign, kind=Assessor.Kind.CROWD, platform=mode, worker_id=worker_id,
                defaults={"platform_data": data},
            )
    except IntegrityError:  # two tabs of the same worker joining at once
        worker = Assessor.objects.get(campaign=campaign, kind=Assessor.Kind.CROWD, platform=mode, worker_id=worker_id)
        created = False
    if not created and data and data != worker.platform_data:
        # A new MTurk assignment or Prolific session of the same worker: remember the latest ids
        # (the completion form must post the current assignmentId).
        worker.platform_data = {**worker.platform_data, **data}
        worker.save(update_fields=["platform_data"])
    return worker, str(mode)


def crowd_consent(*, assessor: Assessor) -> None:
    """Record that the worker agreed to the instructions (the first agreement's time is kept)."""
    if assessor.consented_at is None:
        assessor.consented_at = timezone.now()
        Assessor.objects.filter(pk=assessor.pk, consented_at__isnull=True).update(consented_at=assessor.consented_at)


def crowd_batch_progress(*, assessor: Assessor) -> tuple[int, int]:
    """Return (judgments made, batch size) of the worker's batch; gold items count like the others."""
    done = Judgment.objects.filter(assessor=assessor).count()
    return min(done, assessor.campaign.crowd_batch_size), assessor.campaign.crowd_batch_size


def _campaign_code(campaign: Campaign) -> str:
    if not campaign.crowd_completion_code:
        code = secrets.token_hex(4).upper()
        Campaign.objects.filter(pk=campaign.pk, crowd_completion_code="").update(crowd_completion_code=code)
        campaign.refresh_from_db(fields=["crowd_completion_code"])
    return campaign.crowd_completion_code


def crowd_complete(*, assessor: Assessor) -> str:
    """Return the completion code for a worker who finished their batch; the same code every time.

    The code is the campaign's (Prolific expects one code per study; generated once when the
    lead left it empty). Raises ValidationError with code "batch_incomplete" before the batch is
    done and "blocked" for a stopped worker (the lead decides about them on the platform).
    """
    if assessor.completed_at is not None and assessor.completion_code:
        return assessor.completion_code
    done, size = crowd_batch_progress(assessor=assessor)
    if assessor.blocked:
        raise ValidationError("You have been stopped from judging in this campaign.", code="blocked")
    if done < size:
        raise ValidationError(f"{size - done} pairs of your batch are left.", code="batch_incomplete")
    code = _campaign_code(assessor.campaign)
    with transaction.atomic():
        locked = Assessor.objects.select_for_update().get(pk=assessor.pk)
        if locked.completed_at is None:
            locked.completed_at = timezone.now()
            locked.completion_code = code
            locked.save(update_fields=["completed_at", "completion_code"])
    assessor.completed_at, assessor.completion_code = locked.completed_at, locked.completion_code
    return locked.completion_code


def gold_accuracy(*, assessor: Assessor) -> tuple[int, int]:
    """Return (correct, answered) gold answers of the assessor (see quality.gold_answers)."""
    return gold_answers(assessor=assessor)


# --- finishing on the crowd platform (shared by relevance and preference campaigns) --------


def completion_url(campaign, code: str) -> str:
    """Return the campaign's completion URL with the code filled in: ``{code}`` replaced, else Prolific's ``?cc=``.

    ``campaign`` is any campaign with a ``crowd_completion_url`` (relevance or preference).

    >>> from types import SimpleNamespace as C
    >>> completion_url(C(crowd_completion_url="https://app.prolific.com/submissions/complete"), "AB12")
    'https://app.prolific.com/submissions/complete?cc=AB12'
    >>> completion_url(C(crowd_completion_url="https://example.org/done/{code}"), "AB12")
    'https://example.org/done/AB12'
    """
    url = campaign.crowd_completion_url
    if not url:
        return ""
    if "{code}" in url:
        return url.replace("{code}", code)
    parts = urlparse(url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("cc", code)
    return urlunparse(parts._replace(query=urlencode(query)))


def mturk_submit(worker) -> dict | None:
    """Return where and what to POST to finish an MTurk assignment (externalSubmit), if the worker came from MTurk.

    Only an https ``turkSubmitTo`` is used (the sandbox and the live site both are), so a
    crafted link cannot make the page post a worker's assignment elsewhere in clear text.
    """
    if worker.platform != "mturk":
        return None
    data = worker.platform_data or {}
    base = str(data.get("turkSubmitTo", "")).rstrip("/")
    assignment = str(data.get("assignmentId", ""))
    if not base.startswith("https://") or not assignment:
        return None
    return {"action": base + "/mturk/externalSubmit", "assignment_id": assignment}
