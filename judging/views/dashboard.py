"""The lead's dashboard pages: one campaign in depth, the collection's campaigns at a glance, rejudge, block.

Thin views: read GET options, call the dashboard selector, draw SVG charts, render.
Leads only (``lead_only`` gates: outsiders 404, assessors 403, anonymous to login).
"""
from __future__ import annotations

import secrets
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_POST

from collections_app.access import collection_for_user
from judging import charts
from judging.dashboard.choices import CHOICES, choice
from judging.dashboard.selectors import campaign_dashboard, collection_overview
from judging.models import Assessor, Campaign
from judging.services.adaptive import stopping_table
from judging.services.quality import assessor_block, assessor_unblock, quality_log
from judging.services.rejudge import rejudge_history, rejudge_request
from judging.views.lead import _lead_campaign


def _rate(request: HttpRequest) -> float | None:
    """Return the hourly rate from ?rate= (a non-negative number), None when missing or invalid."""
    try:
        rate = float(request.GET.get("rate", ""))
    except ValueError:
        return None
    return rate if 0 <= rate < 1e7 else None


def _leaderboard_url(slug: str) -> str | None:
    try:
        return reverse("evaluation-leaderboard", kwargs={"slug": slug})
    except NoReverseMatch:  # the evaluation app may not route it yet
        return None


def dashboard_options(request: HttpRequest) -> dict:
    """Return the dashboard options of a request: statistic choice, binary collapse, hourly rate."""
    return {"stat": choice(request.GET.get("stat")), "binary": request.GET.get("binary") == "1", "rate": _rate(request)}


@login_required
@require_GET
def campaign_dashboard_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show progress, throughput, cost to finish, assessors and agreement views of one campaign."""
    campaign = _lead_campaign(request, slug, campaign_id)
    options = dashboard_options(request)
    data = campaign_dashboard(campaign=campaign, **options)
    conflicts_url = reverse("campaign-conflicts", args=[slug, campaign.pk])
    matrix = data["matrix"]
    k = len(matrix["raters"])
    values = [[matrix["cells"][i * k + j]["value"] for j in range(k)] for i in range(k)]
    counts = [[matrix["cells"][i * k + j]["n_items"] for j in range(k)] for i in range(k)]
    hrefs = [[f"{conflicts_url}?{urlencode([('assessor', a), ('assessor', b)])}" for b in matrix["raters"]]
             for a in matrix["raters"]]
    stat = options["stat"]
    lo = 0.0 if stat.key == "percent" else -1.0
    topics = data["topics"]
    for row in topics:
        row["conflicts_url"] = f"{conflicts_url}?{urlencode({'topic': row['qid']})}"
    for row in data["low_pairs"]:
        row["conflicts_url"] = f"{conflicts_url}?{urlencode([('assessor', row['a']), ('assessor', row['b'])])}"
    points = data["over_time"]["points"]
    return render(request, "judging/campaign_dashboard.html", {
        "collection": campaign.collection, "campaign": campaign, "data": data, "options": options,
        "choices": CHOICES.values(), "rejudge_token": secrets.token_urlsafe(16),
        "leaderboard_url": _leaderboard_url(slug), "history": rejudge_history(campaign=campaign)[:10],
        "quality_log": quality_log(campaign=campaign, limit=10),
        "stopping": stopping_table(campaign),
        "heatmap": charts.heatmap(matrix["names"], values, counts=counts, hrefs=hrefs,
                                  title=f"Pairwise {stat.label}"),
        "topic_chart": charts.bars([f"{t['qid']} {t['title']}" for t in topics], [t["value"] for t in topics],
                                   hrefs=[t["conflicts_url"] for t in topics], lo=lo,
                                   marker=data["statistic"]["low_threshold"], title=f"{stat.group_label} per topic"),
        "time_chart": charts.line([p["label"] for p in points], [p["value"] for p in points], lo=lo,
                                  title=f"{stat.group_label} over time"),
    })


@login_required
@require_GET
def collection_dashboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show every campaign of the collection with progress, throughput and cost to finish."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    options = dashboard_options(request)
    rate = options["rate"]
    campaigns = Campaign.objects.filter(collection=collection).select_related("collection").order_by("-created_at", "-id")
    rows = collection_overview(campaigns=campaigns, **options)
    totals = {
        "required": sum(r["progress"]["required"] for r in rows),
        "judged": sum(r["progress"]["judged"] for r in rows),
        "cost": sum(r["estimate"]["cost"] or 0 for r in rows) if rate is not None else None,
        "active_hours": sum(r["estimate"]["active_hours"] or 0 for r in rows),
    }
    return render(request, "judging/collection_dashboard.html", {
        "collection": collection, "rows": rows, "rate": rate, "totals": totals, "options": options,
        "choices": CHOICES.values(), "leaderboard_url": _leaderboard_url(slug),
    })


@login_required
@require_POST
def campaign_rejudge(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Send a topic's or an assessor pair's disagreed pairs to one more assessor, then back to the dashboard."""
    campaign = _lead_campaign(request, slug, campaign_id)
    topic = request.POST.get("topic", "").strip() or None
    try:
        assessors = tuple(int(a) for a in request.POST.getlist("assessor"))
        result = rejudge_request(campaign=campaign, user=request.user, token=request.POST.get("token", ""),
                                 topic=topic, assessors=assessors)
    except (ValueError, ValidationError) as error:
        messages.error(request, "; ".join(getattr(error, "messages", [str(error)])))
    else:
        if result.replay:
            messages.info(request, "This request was already applied; nothing changed.")
        else:
            note = f" ({len(result.skipped)} left alone: no assessor left to ask)" if result.skipped else ""
            messages.success(request, f"{len(result.raised)} pairs sent to one more assessor{note}.")
    back = request.POST.get("back", "")
    url = reverse("campaign-dashboard", args=[slug, campaign.pk])
    safe = back and len(back) < 500 and all(c.isalnum() or c in "=&_.%-" for c in back)
    return redirect(f"{url}?{back}" if safe else url)


@login_required
@require_POST
def campaign_assessor_block(request: HttpRequest, slug: str, campaign_id: int, assessor_id: int) -> HttpResponse:
    """Block (action=block, optional reason) or unblock (action=unblock) one assessor, then back to the dashboard."""
    campaign = _lead_campaign(request, slug, campaign_id)
    assessor = get_object_or_404(Assessor.objects.select_related("user", "campaign"), campaign=campaign, pk=assessor_id)
    action = request.POST.get("action")
    if action == "block":
        changed = assessor_block(assessor=assessor, user=request.user, reason=request.POST.get("reason", ""))
    elif action == "unblock":
        changed = assessor_unblock(assessor=assessor, user=request.user)
    else:
        return HttpResponseBadRequest("Unknown action: use block or unblock.")
    if changed:
        messages.success(request, f"{assessor} {action}ed.")
    else:
        messages.info(request, f"{assessor} was already {action}ed; nothing changed.")
    return redirect(reverse("campaign-dashboard", args=[slug, campaign.pk]) + "#assessors")
