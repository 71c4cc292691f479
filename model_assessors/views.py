"""Leads' pages for model assessors: judges and their runs, a judge's prompt and calls, calibration.

Every view resolves the campaign through the judging access gate with ``lead_only`` (outsiders get
404, assessors 403), then checks that the judge or run belongs to that campaign (404 otherwise).
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from evaluation.leaderboard import COLUMNS
from judging.access import lead_campaign_for_user
from judging.models import Campaign
from model_assessors import prompts, report, selectors
from model_assessors.forms import JudgeForm, PromptForm
from model_assessors.models import ModelJudge, ModelRun, UncertaintyOrder
from model_assessors.services import judges, runs, uncertainty

STABILITY_MEASURES = [(name, heading) for _, name, heading in COLUMNS if name != "judged_10"]


def _judge(campaign: Campaign, judge_id: int) -> ModelJudge:
    return get_object_or_404(ModelJudge.objects.select_related("campaign__collection", "assessor"),
                             pk=judge_id, campaign=campaign)


def _run(campaign: Campaign, run_id: int) -> ModelRun:
    return get_object_or_404(ModelRun, pk=run_id, judge__campaign=campaign)


def _refused(request: HttpRequest, error: ValidationError) -> None:
    messages.error(request, " ".join(error.messages))


@login_required
def judges_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """List the campaign's model judges with their latest run; add a judge."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    form = JudgeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            judge = judges.judge_create(campaign=campaign, name=data["name"], base_url=data["base_url"],
                                        model=data["model"], api_key_env=data["api_key_env"], user=request.user,
                                        **form.options())
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"Model judge {judge.name} added; check its prompt, then start a run.")
            return redirect("model-judge", slug, campaign.pk, judge.pk)
    return render(request, "model_assessors/judges.html", {
        "collection": campaign.collection, "campaign": campaign, "form": form,
        "overview": selectors.judges_overview(campaign),
        "uncertainty_order": UncertaintyOrder.objects.filter(campaign=campaign, enabled=True).first(),
    })


@login_required
def judge_page(request: HttpRequest, slug: str, campaign_id: int, judge_id: int) -> HttpResponse:
    """Show a judge's configuration, its prompt (editable, versioned) and its latest calls."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    judge = _judge(campaign, judge_id)
    current = judge.current_prompt()
    config = JudgeForm(instance=judge, editing=True)
    prompt_form = PromptForm(initial={"system": current.system if current else "", "user": current.user if current else ""})
    if request.method == "POST":
        if request.POST.get("form") == "prompt":
            prompt_form = PromptForm(request.POST)
            if prompt_form.is_valid():
                data = prompt_form.cleaned_data
                try:
                    saved = judges.prompt_save(judge=judge, system=data["system"], user_text=data["user"],
                                               note=data["note"], user=request.user)
                except ValidationError as error:
                    prompt_form.add_error(None, error)
                else:
                    messages.success(request, f"Prompt version {saved.version} is the judge's prompt.")
                    return redirect("model-judge", slug, campaign.pk, judge.pk)
        else:
            config = JudgeForm(request.POST, instance=ModelJudge.objects.get(pk=judge.pk), editing=True)
            if config.is_valid():
                data = config.cleaned_data
                try:
                    judges.judge_update(judge=judge, base_url=data["base_url"], model=data["model"],
                                        api_key_env=data["api_key_env"], **config.options())
                except ValidationError as error:
                    config.add_error(None, error)
                else:
                    messages.success(request, "Configuration saved.")
                    return redirect("model-judge", slug, campaign.pk, judge.pk)
    calls = Paginator(judge.calls.select_related("item__pair__topic", "prompt").order_by("-created_at", "-id"), 50)
    return render(request, "model_assessors/judge.html", {
        "collection": campaign.collection, "campaign": campaign, "judge": judge, "config": config,
        "prompt_form": prompt_form, "current": current, "versions": judge.prompts.all(),
        "placeholders": prompts.PLACEHOLDERS, "calls": calls.get_page(request.GET.get("page")),
    })


@login_required
@require_POST
def run_start_view(request: HttpRequest, slug: str, campaign_id: int, judge_id: int) -> HttpResponse:
    """Start (or, with resume=1, restart after a stopped worker) a judging run of the judge."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    judge = _judge(campaign, judge_id)
    try:
        run = runs.run_start(judge=judge, user=request.user, resume=request.POST.get("resume") == "1")
    except ValidationError as error:
        _refused(request, error)
    else:
        messages.success(request, f"Run {run.pk} of {judge.name}: {run.get_status_display().lower()}.")
    return redirect("model-judges", slug, campaign.pk)


@login_required
@require_POST
def run_cancel_view(request: HttpRequest, slug: str, campaign_id: int, run_id: int) -> HttpResponse:
    """Ask a live run to stop after its current batch."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    run = _run(campaign, run_id)
    if runs.run_cancel(run=run):
        messages.success(request, f"Run {run.pk} cancelled; the pairs it answered keep their labels.")
    return redirect("model-judges", slug, campaign.pk)


@login_required
@require_GET
def run_progress(request: HttpRequest, slug: str, campaign_id: int, run_id: int) -> JsonResponse:
    """Return a run's status and progress, for the progress bars."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    run = _run(campaign, run_id)
    return JsonResponse(run_payload(run))


def run_payload(run: ModelRun) -> dict:
    """Return a run as plain data (the API and the progress poll share it)."""
    return {"id": run.pk, "judge": run.judge_id, "status": run.status, "total": run.total, "done": run.done,
            "failed": run.failed, "message": run.message, "live": run.is_live,
            "percent": round(100 * (run.done + run.failed) / run.total, 1) if run.total else None,
            "created_at": run.created_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None}


@login_required
@require_POST
def order_by_uncertainty(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Order the humans' remaining work by model uncertainty (``reset=1``: back to the campaign's order)."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    try:
        if request.POST.get("reset") == "1":
            uncertainty.priorities_reset(campaign=campaign)
            messages.success(request, "Humans get pairs in the campaign's own order again.")
        else:
            count = uncertainty.priorities_by_uncertainty(campaign=campaign)
            messages.success(request, f"{count} pairs ordered: humans get the pairs the model is least sure of first.")
    except ValidationError as error:
        _refused(request, error)
    return redirect("model-judges", slug, campaign.pk)


@login_required
@require_GET
def calibration_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Compare each model judge with the humans: κ per assessor and topic, confusion, planner, ranking stability."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    measure = request.GET.get("measure", "map")
    if measure not in dict(STABILITY_MEASURES):
        measure = "map"
    labels = selectors.campaign_labels(campaign)
    reports = [report.judge_report(j, labels) for j in
               ModelJudge.objects.filter(campaign=campaign).select_related("campaign__collection")]
    stabilities = {r.judge.pk: report.stability_report(r.judge, measure=measure, labels=labels) for r in reports}
    scale = campaign.collection.grades
    return render(request, "model_assessors/calibration.html", {
        "collection": campaign.collection, "campaign": campaign, "reports": reports, "stabilities": stabilities,
        "scale": scale, "measure": measure, "measures": STABILITY_MEASURES, "n_humans": len(labels.humans),
        "half_width": report.INTERVAL_HALF_WIDTH,
    })
