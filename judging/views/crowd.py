"""Crowd workers' pages of relevance campaigns: entry from Prolific / MTurk, resume, consent, judging, completion.

Identity is the browser's binding (``campaign_core.crowd_binding``): the first browser that
arrives with a platform id is bound to that worker, and every later request is served for the
bound worker only, never for an id read from the URL. Another browser with the same id gets the
refusal page; the worker's own way back is their resume link. The rules are
``campaign_core.crowd``'s, shared with preference campaigns.
"""
from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaign_core import crowd_binding
from campaign_core.crowd import CrowdRefused, has_platform_ids
from campaign_core.crowd_forms import crowd_entry_save
from judging.access import lead_campaign_for_user
from judging.models import Assessor, Campaign
from judging.services import crowd
from judging.views import workspace

INSTRUCTIONS = "judging/_crowd_instructions.html"


def _campaign(token: str) -> Campaign:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), crowd_token=token)
    if not campaign.crowd_enabled:
        raise Http404("No such batch.")
    return campaign


def _worker(request: HttpRequest, campaign: Campaign) -> Assessor | None:
    """Return the crowd worker bound to this browser, if any."""
    return crowd_binding.bound_worker(request, kind=crowd.KIND, campaign=campaign,
                                      legacy_name=crowd.legacy_session_name(campaign))


def _bind(request: HttpRequest, response: HttpResponse, campaign: Campaign, worker: Assessor) -> HttpResponse:
    return crowd_binding.bind(request, response, kind=crowd.KIND, campaign=campaign, worker=worker,
                              legacy_name=crowd.legacy_session_name(campaign))


def _ip(request: HttpRequest) -> str:
    return crowd_binding.client_ip(request)


def _page(request: HttpRequest, template: str, campaign: Campaign, status: int = 200, **context) -> HttpResponse:
    context = {"campaign": campaign, "collection": campaign.collection, "instructions_template": INSTRUCTIONS,
               "unit": "pair", **context}
    return render(request, f"campaign_core/{template}", context, status=status)


def _refused(request: HttpRequest, campaign: Campaign, exc: CrowdRefused) -> HttpResponse:
    return _page(request, "crowd_refused.html", campaign, status=403, code=exc.code, message=exc.messages[0])


def _where(worker: Assessor, token: str) -> str:
    """Return the page a worker belongs on now: stopped, consent, judging or complete."""
    if worker.blocked:
        return reverse("crowd-stopped", args=[token])
    if worker.consented_at is None:
        return reverse("crowd-consent", args=[token])
    if worker.completed_at is not None or crowd.crowd_batch_done(assessor=worker):
        return reverse("crowd-complete", args=[token])
    return reverse("crowd-judge", args=[token])


@require_GET
def crowd_entry(request: HttpRequest, token: str) -> HttpResponse:
    """Enter a batch from a platform link; preview shows instructions only; the bound browser resumes."""
    campaign = _campaign(token)
    bound = _worker(request, campaign)
    if bound is not None and not has_platform_ids(request.GET):
        return redirect(_where(bound, token))
    try:
        worker = crowd.crowd_join(campaign=campaign, params=request.GET, bound=bound, ip=_ip(request))
    except CrowdRefused as exc:
        return _refused(request, campaign, exc)
    if worker is None:
        return _page(request, "crowd_preview.html", campaign)
    response = redirect(_where(worker, token))
    if bound is None or bound.pk != worker.pk:
        _bind(request, response, campaign, worker)
    return response


@require_GET
def crowd_resume(request: HttpRequest, token: str, secret: str) -> HttpResponse:
    """Bind this browser to the worker whose secret resume link it is, and send them where they were."""
    campaign = _campaign(token)
    try:
        worker = crowd.crowd_resume(campaign=campaign, secret=secret, ip=_ip(request))
    except CrowdRefused as exc:
        return _refused(request, campaign, exc)
    return _bind(request, redirect(_where(worker, token)), campaign, worker)


def _require_worker(request: HttpRequest, campaign: Campaign) -> Assessor:
    worker = _worker(request, campaign)
    if worker is None:
        raise Http404("Open the study link from your platform first.")
    return worker


def crowd_consent_page(request: HttpRequest, token: str) -> HttpResponse:
    """Show instructions, the worker's resume link and the consent form; agreeing starts the batch."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if worker.blocked:
        return redirect("crowd-stopped", token=token)
    if request.method == "POST" and request.POST.get("consent") == "yes":
        crowd.crowd_consent(assessor=worker)
        return redirect("crowd-judge", token=token)
    error = "Please tick the box to take part." if request.method == "POST" else ""
    resume_url = request.build_absolute_uri(reverse("crowd-resume", args=[token, worker.session_key]))
    return _page(request, "crowd_consent.html", campaign, error=error, resume_url=resume_url,
                 consent_url=reverse("crowd-consent", args=[token]))


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
    context["batch"] = crowd.crowd_batch_progress(assessor=worker)
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
    if worker.blocked or crowd.crowd_batch_done(assessor=worker):
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
    if crowd.crowd_batch_done(assessor=worker) and not _is_revision(request, worker):
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
    """Show the worker's completion code once (and the platform's way to finish) after the batch."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if worker.blocked:
        return redirect("crowd-stopped", token=token)
    if worker.completed_at is None and not crowd.crowd_batch_done(assessor=worker):
        return redirect(_where(worker, token))
    crowd.crowd_complete(assessor=worker)
    code = crowd.crowd_code_reveal(assessor=worker)
    return _page(request, "crowd_complete.html", campaign, code=code, worker=worker,
                 completion_url=crowd.completion_url(campaign, code) if code else "",
                 mturk=crowd.mturk_submit(worker) if code else None,
                 platform_name=worker.get_platform_display())


@require_GET
def crowd_stopped(request: HttpRequest, token: str) -> HttpResponse:
    """Tell a stopped worker, politely, that there is no more work for them here."""
    campaign = _campaign(token)
    worker = _require_worker(request, campaign)
    if not worker.blocked:
        return redirect(_where(worker, token))
    return _page(request, "crowd_stopped.html", campaign)


@login_required
@require_GET
def crowd_workers_download(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Download the crowd workers (platform id, code, judged, gold accuracy, status) for approving submissions; leads only."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    response = HttpResponse(crowd.crowd_workers_csv(campaign=campaign), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-crowd-workers.csv"'
    return response


@login_required
@require_POST
def crowd_settings(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Change who may enter the crowd link (expected ids, caps, anonymous entry); leads only, audited."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    crowd_entry_save(request, campaign, update=crowd.crowd_settings_update)
    return redirect("campaign-detail", slug=slug, campaign_id=campaign.pk)
