"""Preference pages: leads' campaign list/new/results/export and block/unblock; assessors' and crowd workers' judging page."""
from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from campaign_core.services import quality
from collections_app.access import collection_for_user
from judging.services.crowd import completion_url, mturk_submit
from preferences import access
from preferences.forms import CampaignForm
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment
from preferences.panels import item_view
from preferences.services import allocation, crowd, export, judgments, results
from preferences.services.campaigns import campaign_set_status, doc_pair_create, side_by_side_create

OPTIONS = ("gold_rate", "gold_accuracy_threshold", "gold_min_answers", "lease_seconds", "crowd_enabled",
           "crowd_batch_size", "crowd_completion_code", "crowd_completion_url")


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
        common = dict(collection=collection, name=d["name"], judgments_per_item=d["judgments_per_item"],
                      seed=d["seed"], assessors=d["assessors"], user=request.user,
                      **{k: d[k] for k in OPTIONS})
        try:
            if d["kind"] == PrefCampaign.Kind.SIDE_BY_SIDE:
                campaign = side_by_side_create(run_a=d["run_a"], run_b=d["run_b"], topics=d["topics"],
                                               gold_topics=d["gold_topics"], depth=d["depth"], **common)
            else:
                campaign = doc_pair_create(pairs=d["pair_list"], gold_pairs=d["gold_pair_list"], **common)
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
        code = crowd.crowd_complete(assessor=assessor)
        return render(request, "preferences/crowd_complete.html", {
            "code": code, "completion_url": completion_url(assessor.campaign, code),
            "mturk": mturk_submit(assessor), "assessor": assessor})
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


def _stopped(request, campaign: PrefCampaign):
    """Tell a stopped worker, politely, that there is no more work for them here (no completion code)."""
    return render(request, "preferences/crowd_stopped.html", {"campaign": campaign})


@require_http_methods(["GET", "POST"])
def crowd_entry(request, token):
    """Open a study link: identify the worker (Prolific/MTurk ids) and ask for consent."""
    campaign = PrefCampaign.objects.filter(crowd_token=token, crowd_enabled=True).first()
    if campaign is None:
        raise Http404("No such study.")
    key_name = access.session_key_name(campaign)
    if request.method == "POST":
        assessor = access.crowd_assessor(request, token)
        if assessor.blocked:
            return _stopped(request, campaign)
        if request.POST.get("consent") == "yes":
            crowd.crowd_consent(assessor=assessor)
            return redirect("pref-crowd-judge", token=token)
        return render(request, "preferences/crowd_consent.html", {"campaign": campaign, "declined": True})
    if campaign.status != PrefCampaign.Status.ACTIVE:
        return render(request, "preferences/crowd_consent.html", {"campaign": campaign, "closed": True})
    assessor = crowd.crowd_join(campaign=campaign, params=request.GET, session_key=request.session.get(key_name))
    if assessor is None:
        return render(request, "preferences/crowd_consent.html", {"campaign": campaign, "preview": True})
    if request.session.get(key_name) != assessor.session_key:
        request.session.cycle_key()  # a new identity in this browser: a new session id (no fixation)
        request.session[key_name] = assessor.session_key
    if assessor.blocked:
        return _stopped(request, campaign)
    return render(request, "preferences/crowd_consent.html", {"campaign": campaign})


@require_http_methods(["GET", "POST"])
def crowd_judge(request, token):
    assessor = access.crowd_assessor(request, token)
    if assessor.blocked:
        return _stopped(request, assessor.campaign)
    if assessor.consented_at is None:
        return redirect("pref-crowd", token=token)
    return _judge(request, assessor, reverse("pref-crowd-judge", args=[token]))
