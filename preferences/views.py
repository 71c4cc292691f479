"""Preference pages: leads' campaign list/new/results/export and block/unblock; assessors' and crowd workers' judging page."""
from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign_core import crowd_binding
from campaign_core.crowd import CrowdRefused, has_platform_ids
from campaign_core.crowd_forms import CrowdEntryForm, crowd_entry_save
from campaign_core.services import quality
from collections_app.access import collection_for_user
from preferences import access
from preferences.forms import CampaignForm
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment
from preferences.panels import item_view
from preferences.services import allocation, crowd, export, judgments, results
from preferences.services.campaigns import campaign_set_status, campaign_start


@login_required
def campaign_list(request, slug):
    collection = collection_for_user(request.user, slug, lead_only=True)
    return render(request, "preferences/campaign_list.html", {
        "collection": collection, "campaigns": collection.pref_campaigns.all()})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request, slug):
    collection = collection_for_user(request.user, slug, lead_only=True)
    form = CampaignForm(request.POST or None, collection=collection)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            campaign = campaign_start(collection=collection, user=request.user, kind=d["kind"], name=d["name"],
                                      plan=d["plan"], assessors=d["assessors"], run_a=d["run_a"], run_b=d["run_b"],
                                      topics=d["topics"], gold_topics=d["gold_topics"],
                                      pairs=d.get("pair_list", []), gold_pairs=d.get("gold_pair_list", []))
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect("pref-campaign-results", campaign_id=campaign.pk)
    return render(request, "preferences/campaign_new.html", {"collection": collection, "form": form})


@login_required
def campaign_results(request, campaign_id):
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    crowd_url = (request.build_absolute_uri(reverse("pref-crowd", args=[campaign.crowd_token]))
                 if campaign.crowd_enabled else "")
    return render(request, "preferences/campaign_results.html", {
        "campaign": campaign, "r": results.campaign_results(campaign), "crowd_url": crowd_url,
        "crowd_form": CrowdEntryForm.for_campaign(campaign),
        "crowd_settings_url": reverse("pref-crowd-settings", args=[campaign.pk]),
        "crowd_refusals": crowd.crowd_refusals(campaign=campaign) if campaign.crowd_enabled else [],
        "log": quality.quality_log(campaign=campaign)})


@login_required
@require_POST
def assessor_block(request, campaign_id, assessor_id):
    """Block (action=block, optional reason) or unblock (action=unblock) one assessor of the campaign; leads only."""
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    assessor = PrefAssessor.objects.select_related("user", "campaign").filter(campaign=campaign, pk=assessor_id).first()
    if assessor is None:
        raise Http404("No such assessor in this campaign.")
    action = request.POST.get("action")
    if action == "block":
        changed = quality.assessor_block(assessor=assessor, user=request.user, reason=request.POST.get("reason", ""))
    elif action == "unblock":
        changed = quality.assessor_unblock(assessor=assessor, user=request.user)
    else:
        return HttpResponseBadRequest("Unknown action.")
    if changed:
        messages.success(request, f"{assessor.label} {action}ed.")
    return redirect(reverse("pref-campaign-results", args=[campaign.pk]) + "#assessors")


@login_required
@require_POST
def campaign_status(request, campaign_id):
    """Close (status=closed) or reopen (status=active) the campaign; leads only."""
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    try:
        changed = campaign_set_status(campaign=campaign, status=request.POST.get("status", ""), user=request.user)
    except ValidationError as exc:
        return HttpResponseBadRequest(exc.messages[0])
    if changed:
        messages.success(request, f"Campaign {campaign.get_status_display().lower()}.")
    return redirect("pref-campaign-results", campaign.pk)


@login_required
def campaign_export(request, campaign_id):
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    if campaign.kind != PrefCampaign.Kind.DOC_PAIR:
        raise Http404("Only document-pair campaigns export preference qrels.")
    body = "\n".join(export.prefs_lines(campaign)) + "\n"
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="prefs-{campaign.pk}.txt"'
    return response


EXPORT_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


@login_required
def campaign_judgments(request, campaign_id, fmt):
    """Download every judgment (CSV or JSONL): answer, outcome, strength, comment, time, blocked flag."""
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    if fmt not in EXPORT_TYPES:
        raise Http404("Unknown export format.")
    response = HttpResponse(export.judgments_export(campaign=campaign, fmt=fmt), content_type=EXPORT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="preferences-{campaign.pk}-judgments.{fmt}"'
    return response


def _revising(request, assessor: PrefAssessor) -> PrefJudgment | None:
    """Return the assessor's own judgment named by ``?revise=<item id>``; 404 for anything else."""
    if request.method != "GET" or "revise" not in request.GET:
        return None
    try:
        item_id = int(request.GET["revise"])
    except ValueError:
        raise Http404("No such judgment.") from None
    judgment = (PrefJudgment.objects.filter(assessor=assessor, item_id=item_id)
                .select_related("item__topic", "item__campaign__collection").first())
    if judgment is None:
        raise Http404("No such judgment.")
    return judgment


def _back_url(assessor: PrefAssessor, here: str, before: PrefJudgment | None) -> str:
    """Return the page of the assessor's judgment made before ``before`` (or their latest), or ""."""
    earlier = PrefJudgment.objects.filter(assessor=assessor)
    if before is not None:
        earlier = earlier.filter(pk__lt=before.pk)
    previous = earlier.order_by("-pk").values_list("item_id", flat=True).first()
    return f"{here}?revise={previous}" if previous else ""


def _judge(request, assessor: PrefAssessor, here: str):
    """Shared GET/POST of the judging page for experts and crowd workers.

    ``?revise=<item id>`` shows an item the assessor already judged with their answer, to change
    it (a revision); the back key walks through their earlier judgments, newest first.
    """
    error = ""
    if request.method == "POST":
        item = PrefItem.objects.filter(pk=request.POST.get("item"), campaign=assessor.campaign).first()
        if item is None:
            raise Http404("No such item.")
        try:
            strength = int(request.POST["strength"]) if request.POST.get("strength") else None
            judgments.judgment_submit(assessor=assessor, item=item, choice=int(request.POST.get("choice", "x")),
                                      strength=strength, comment=request.POST.get("comment", ""),
                                      seconds=request.POST.get("seconds", 0), token=request.POST.get("token", ""))
        except (ValueError, ValidationError) as exc:
            error = "; ".join(getattr(exc, "messages", [str(exc)]))
        else:
            return redirect(here)
    if assessor.blocked and assessor.kind == PrefAssessor.Kind.CROWD:  # judgment_submit re-reads it under lock
        return _stopped(request, assessor.campaign)
    revising = _revising(request, assessor)
    item = revising.item if revising else allocation.item_next(assessor=assessor)
    if item is None and assessor.kind == PrefAssessor.Kind.CROWD and assessor.judgments.exists():
        return redirect("pref-crowd-complete", token=assessor.campaign.crowd_token)
    context = {"campaign": assessor.campaign, "done": assessor.judgments.count(), "error": error,
               "token": uuid.uuid4().hex, "action": here, "revising": revising,
               "strengths": list(judgments.STRENGTHS.items()),
               "batch": assessor.campaign.crowd_batch_size if assessor.kind == PrefAssessor.Kind.CROWD else None,
               "back_url": _back_url(assessor, here, revising)}
    if item is not None:
        context.update(item_view(item))
    return render(request, "preferences/judge.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def judge(request, campaign_id):
    campaign = access.campaign_for_user(request.user, campaign_id)
    assessor = access.assessor_for_user(campaign=campaign, user=request.user)
    return _judge(request, assessor, reverse("pref-judge", args=[campaign.pk]))


def _crowd_page(request, template: str, campaign: PrefCampaign, status: int = 200, **context):
    context = {"campaign": campaign, "collection": campaign.collection,
               "instructions_template": "preferences/_crowd_instructions.html", "unit": "comparison", **context}
    return render(request, f"campaign_core/{template}", context, status=status)


def _stopped(request, campaign: PrefCampaign):
    """Tell a stopped worker, politely, that there is no more work for them here (no completion code)."""
    return _crowd_page(request, "crowd_stopped.html", campaign)


def _consent_page(request, campaign: PrefCampaign, assessor: PrefAssessor, *, error: str = ""):
    resume_url = request.build_absolute_uri(reverse("pref-crowd-resume", args=[campaign.crowd_token, assessor.session_key]))
    return _crowd_page(request, "crowd_consent.html", campaign, error=error, resume_url=resume_url,
                       consent_url=reverse("pref-crowd", args=[campaign.crowd_token]))


def _bind(request, response, campaign: PrefCampaign, assessor: PrefAssessor):
    return crowd_binding.bind(request, response, kind=crowd.KIND, campaign=campaign, worker=assessor,
                              legacy_name=crowd.legacy_session_name(campaign))


@require_http_methods(["GET", "POST"])
def crowd_entry(request, token):
    """Open a study link: identify the worker (Prolific/MTurk ids), bind this browser to them, ask for consent."""
    campaign = access.crowd_campaign(token)
    if request.method == "POST":
        assessor = access.crowd_assessor(request, token)
        if assessor.blocked:
            return _stopped(request, campaign)
        if request.POST.get("consent") == "yes":
            crowd.crowd_consent(assessor=assessor)
            return redirect("pref-crowd-judge", token=token)
        return _consent_page(request, campaign, assessor, error="Please tick the box to take part.")
    bound = crowd_binding.bound_worker(request, kind=crowd.KIND, campaign=campaign,
                                       legacy_name=crowd.legacy_session_name(campaign))
    if bound is not None and not has_platform_ids(request.GET) and campaign.status == PrefCampaign.Status.ACTIVE:
        assessor = bound
    else:
        try:
            assessor = crowd.crowd_join(campaign=campaign, params=request.GET, bound=bound,
                                        ip=crowd_binding.client_ip(request))
        except CrowdRefused as exc:
            return _crowd_page(request, "crowd_refused.html", campaign, status=403, code=exc.code,
                               message=exc.messages[0])
    if assessor is None:
        return _crowd_page(request, "crowd_preview.html", campaign)
    if assessor.blocked:
        response = _stopped(request, campaign)
    elif assessor.consented_at is not None:
        response = redirect("pref-crowd-judge", token=token)
    else:
        response = _consent_page(request, campaign, assessor)
    if bound is None or bound.pk != assessor.pk:
        _bind(request, response, campaign, assessor)
    return response


@require_GET
def crowd_resume(request, token, secret):
    """Bind this browser to the worker whose secret resume link it is, and send them back to their work."""
    campaign = access.crowd_campaign(token)
    try:
        assessor = crowd.crowd_resume(campaign=campaign, secret=secret, ip=crowd_binding.client_ip(request))
    except CrowdRefused as exc:
        return _crowd_page(request, "crowd_refused.html", campaign, status=403, code=exc.code, message=exc.messages[0])
    target = "pref-crowd-judge" if assessor.consented_at is not None else "pref-crowd"
    return _bind(request, redirect(target, token=token), campaign, assessor)


@require_http_methods(["GET", "POST"])
def crowd_judge(request, token):
    assessor = access.crowd_assessor(request, token)
    if assessor.blocked:
        return _stopped(request, assessor.campaign)
    if assessor.consented_at is None:
        return redirect("pref-crowd", token=token)
    return _judge(request, assessor, reverse("pref-crowd-judge", args=[token]))


@require_GET
def crowd_complete(request, token):
    """Show the worker's completion code once (and the platform's way to finish) after the batch."""
    assessor = access.crowd_assessor(request, token)
    campaign = assessor.campaign
    if assessor.blocked:
        return _stopped(request, campaign)
    try:
        crowd.crowd_complete(assessor=assessor)
    except ValidationError:
        return redirect("pref-crowd-judge" if assessor.consented_at else "pref-crowd", token=token)
    code = crowd.crowd_code_reveal(assessor=assessor)
    return _crowd_page(request, "crowd_complete.html", campaign, code=code, worker=assessor,
                       completion_url=crowd.completion_url(campaign, code) if code else "",
                       mturk=crowd.mturk_submit(assessor) if code else None)


@login_required
def crowd_workers_download(request, campaign_id):
    """Download the crowd workers (platform id, code, judged, gold accuracy, status) for approving submissions; leads only."""
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    response = HttpResponse(crowd.crowd_workers_csv(campaign=campaign), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="preferences-{campaign.pk}-crowd-workers.csv"'
    return response


@login_required
@require_POST
def crowd_settings(request, campaign_id):
    """Change who may enter the crowd link (expected ids, caps, anonymous entry); leads only, audited."""
    campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
    crowd_entry_save(request, campaign, update=crowd.crowd_settings_update)
    return redirect("pref-campaign-results", campaign_id=campaign.pk)
