"""Crowd workers' pages: entry from Prolific / MTurk, consent, judging, completion.

Identity is session-based: on entry ``crowd_join`` resolves the worker, and only the
assessor's ``session_key`` is stored in the Django session. Later requests never read a
worker id from the URL, so a worker cannot act as another by editing a query string.
"""
from __future__ import annotations

import json

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from judging.models import Assessor, Campaign
from judging.services.crowd import (
    completion_url,
    crowd_batch_progress,
    crowd_complete,
    crowd_consent,
    crowd_join,
    mturk_submit,
)
from judging.views import workspace

PLATFORM_KEYS = ("PROLIFIC_PID", "workerId", "assignmentId")


def _campaign(token: str) -> Campaign:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), crowd_token=token)
    if not campaign.crowd_enabled:
        raise Http404("No such batch.")
    return campaign


def _session_name(campaign: Campaign) -> str:
    return f"crowd:{campaign.pk}"


def _worker(request: HttpRequest, campaign: Campaign) -> Assessor | None:
    """Return the crowd worker bound to this browser session, if any."""
    key = request.session.get(_session_name(campaign))
    if not key:
        return None
    return Assessor.objects.filter(campaign=campaign, kind=Assessor.Kind.CROWD, session_key=key).first()


def _batch_done(worker: Assessor) -> bool:
    done, size = crowd_batch_progress(assessor=worker)
    return size > 0 and done >= size


def _where(worker: Assessor, token: str) -> str:
    """Return the page a worker belongs on now: stopped, consent, judging or complete."""
    if worker.blocked:
        return reverse("crowd-stopped", args=[token])
    if worker.consented_at is None:
        return reverse("crowd-consent", args=[token])
    if worker.completed_at is not None or _batch_done(worker):
        return reverse("crowd-complete", args=[token])
    return reverse("crowd-judge", args=[token])


@require_GET
def crowd_entry(request: HttpRequest, token: str) -> HttpResponse:
    """Enter a batch from a platform link; preview shows instructions only; returning workers resume."""
    campaign = _campaign(token)
    has_platform_params = any(key in request.GET for key in PLATFORM_KEYS)
    worker = None if has_platform_params else _worker(request, campaign)
    if worker is None:
        worker, mode = crowd_join(campaign=campaign, params=request.GET)
        if mode == "preview" or worker is None:
            return render(request, "judging/crowd_preview.html", {"campaign": campaign, "collection": campaign.collection})
        request.session.cycle_key()
        request.session[_session_name(campaign)] = worker.session_key
    return redirect(_where(worker, token))


def _require_worker(request: HttpRequest, campaign: Campaign) -> Assessor:
    worker = _worker(request, campaign)
    if worker is None:
        raise Http404("Open the study link from your platform first.")
    return worker


def crowd_consent_page(request: HttpRequest, token: str) -> HttpResponse:
    """Show instructions and the consent form; agreeing starts the batch."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if worker.blocked:
        return redirect("crowd-stopped", token=token)
    if request.method == "POST":
        if request.POST.get("consent") == "yes":
            crowd_consent(assessor=worker)
            return redirect("crowd-judge", token=token)
        return render(request, "judging/crowd_consent.html", {
            "campaign": campaign, "collection": campaign.collection, "error": "Please tick the box to take part.",
        })
    return render(request, "judging/crowd_consent.html", {"campaign": campaign, "collection": campaign.collection})


@require_GET
def crowd_judge_page(request: HttpRequest, token: str) -> HttpResponse:
    """Render the judging page bound to the worker's batch."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    target = _where(worker, token)
    if target != request.path:
        return redirect(target)
    urls = {
        "state": reverse("crowd-state", args=[token]),
        "submit": reverse("crowd-submit", args=[token]),
        "back": reverse("crowd-back", args=[token]),
        "done": reverse("crowd-complete", args=[token]),
    }
    context = workspace.page_context(assessor=worker, urls=urls)
    context["crowd"] = True
    context["batch"] = crowd_batch_progress(assessor=worker)
    return render(request, "judging/judge.html", context)


def _json_worker(request: HttpRequest, token: str) -> Assessor | JsonResponse:
    campaign = _campaign(token)
    worker = _worker(request, campaign)
    if worker is None:
        return JsonResponse({"detail": "No crowd session.", "code": "no_session"}, status=403)
    if worker.consented_at is None:
        return JsonResponse({"detail": "Consent first.", "code": "no_consent"}, status=403)
    return worker


def _with_batch(response: JsonResponse, worker: Assessor, token: str) -> JsonResponse:
    """Tell the page when the batch is finished (or the worker stopped) so it leaves for the right page."""
    worker.refresh_from_db(fields=["blocked", "completed_at"])
    if worker.blocked or _batch_done(worker):
        payload = json.loads(response.content)
        payload["current"] = None
        payload["next"] = None
        payload["redirect"] = _where(worker, token)
        return JsonResponse(payload, status=response.status_code)
    return response


@require_GET
def crowd_state(request: HttpRequest, token: str) -> JsonResponse:
    """Return the worker's current pair, preload and progress."""
    worker = _json_worker(request, token)
    if isinstance(worker, JsonResponse):
        return worker
    return _with_batch(workspace.handle_state(request, worker), worker, token)


@require_POST
def crowd_submit(request: HttpRequest, token: str) -> JsonResponse:
    """Record one of the worker's judgments and return the next state."""
    worker = _json_worker(request, token)
    if isinstance(worker, JsonResponse):
        return worker
    if _batch_done(worker) and not _is_revision(request, worker):
        # A key pressed while the page was already leaving: the batch is full, nothing more is recorded.
        return JsonResponse(
            {"detail": "Your batch is complete.", "code": "batch_complete", "redirect": _where(worker, token)}, status=409
        )
    return _with_batch(workspace.handle_submit(request, worker), worker, token)


def _is_revision(request: HttpRequest, worker: Assessor) -> bool:
    """Return True if the submit targets a pair the worker already judged (a revision is allowed)."""
    try:
        item_id = int(json.loads(request.body or b"{}").get("item"))
    except (ValueError, TypeError, AttributeError):
        return False
    return worker.judgments.filter(item_id=item_id).exists()


@require_GET
def crowd_back(request: HttpRequest, token: str) -> JsonResponse:
    """Return the worker's previous judgment in this batch."""
    worker = _json_worker(request, token)
    if isinstance(worker, JsonResponse):
        return worker
    return workspace.handle_back(request, worker)


@require_GET
def crowd_complete_page(request: HttpRequest, token: str) -> HttpResponse:
    """Show the completion code (and the platform redirect) once the batch is finished."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if worker.blocked:
        return redirect("crowd-stopped", token=token)
    if worker.completed_at is None and not _batch_done(worker):
        return redirect(_where(worker, token))
    code = crowd_complete(assessor=worker)
    return render(request, "judging/crowd_complete.html", {
        "campaign": campaign, "collection": campaign.collection, "code": code,
        "completion_url": completion_url(campaign, code), "worker": worker, "mturk": mturk_submit(worker),
    })


@require_GET
def crowd_stopped(request: HttpRequest, token: str) -> HttpResponse:
    """Tell a stopped worker, politely, that there is no more work for them here."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if not worker.blocked:
        return redirect(_where(worker, token))
    return render(request, "judging/crowd_stopped.html", {"campaign": campaign, "collection": campaign.collection})
