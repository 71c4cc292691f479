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
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_POST

from collections_app.access import collection_for_user
from judging import charts
from judging.dashboard.choices import CHOICES, choice
from judging.dashboard.compute import HEATMAP_CHOICES
from judging.dashboard.selectors import (
    STAMP_SECONDS,
    cached_for,
    campaign_dashboard,
    collection_overview,
    forget_stamp,
)
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
    """Return the dashboard options of a request: statistic choice, binary collapse, hourly rate, and
    ``?cannot_judge=1`` to count "could not judge" grades in agreement (left out by default)."""
    return {"stat": choice(request.GET.get("stat")), "binary": request.GET.get("binary") == "1", "rate": _rate(request),
            "include_cannot_judge": request.GET.get("cannot_judge") == "1"}


def _heatmap_choice(request: HttpRequest) -> str:
    chosen = request.GET.get("heatmap", "judgments")
    return chosen if chosen in HEATMAP_CHOICES else "judgments"


PER_PAGE = 50
DASHBOARD_LOW_PAIRS = 10  # the dashboard shows the lowest few; the low-agreement page lists them all
ASSESSOR_FILTERS = {
    "all": "Everyone",
    "flagged": "Flagged (too fast, low agreement or low gold accuracy)",
    "blocked": "Blocked",
    "gold": "Below the gold accuracy threshold",
}
ASSESSOR_SORTS = {
    "name": lambda a: a["name"].lower(),
    "judgments": lambda a: a["judgments"],
    "agreement": lambda a: (a["agreement"] is None, a["agreement"] or 0.0),
    "gold": lambda a: (a["gold_accuracy"] is None, a["gold_accuracy"] or 0.0),
    "median": lambda a: (a["median_seconds"] is None, a["median_seconds"] or 0.0),
}


def filter_assessors(rows: list[dict], *, show: str, name: str, sort: str, descending: bool) -> list[dict]:
    """Return the assessor rows a lead asked for: filtered (ASSESSOR_FILTERS, name contains), then sorted.

    Missing values (no agreement, no gold answers, no known time) sort last either way.
    """
    name = name.strip().lower()
    if show == "flagged":
        rows = [a for a in rows if set(a["flags"]) - {"blocked"}]
    elif show == "blocked":
        rows = [a for a in rows if a["blocked"]]
    elif show == "gold":
        rows = [a for a in rows if "low gold accuracy" in a["flags"]]
    if name:
        rows = [a for a in rows if name in a["name"].lower()]
    key = ASSESSOR_SORTS.get(sort, ASSESSOR_SORTS["judgments"])
    present = [a for a in rows if not (isinstance(key(a), tuple) and key(a)[0])]
    missing = [a for a in rows if isinstance(key(a), tuple) and key(a)[0]]
    return sorted(present, key=key, reverse=descending) + missing


@login_required
@require_GET
def campaign_dashboard_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show progress, throughput, cost to finish, assessors and agreement views of one campaign."""
    campaign = _lead_campaign(request, slug, campaign_id)
    options = dashboard_options(request)
    heatmap_choice = _heatmap_choice(request)
    data = campaign_dashboard(campaign=campaign, heatmap=heatmap_choice, **options)
    conflicts_url = reverse("campaign-conflicts", args=[slug, campaign.pk])
    matrix = data["matrix"]
    k = len(matrix["raters"])
    values = [[matrix["cells"][i * k + j]["value"] for j in range(k)] for i in range(k)]
    counts = [[matrix["cells"][i * k + j]["n_items"] for j in range(k)] for i in range(k)]
    hrefs = [[f"{conflicts_url}?{urlencode([('assessor', a), ('assessor', b)])}" for b in matrix["raters"]]
             for a in matrix["raters"]]
    stat = options["stat"]
    lo = 0.0 if stat.key == "percent" else -1.0
    topics = [dict(row, conflicts_url=f"{conflicts_url}?{urlencode({'topic': row['qid']})}") for row in data["topics"]]
    low_pairs = [dict(row, conflicts_url=f"{conflicts_url}?{urlencode([('assessor', row['a']), ('assessor', row['b'])])}")
                 for row in data["low_pairs"][:DASHBOARD_LOW_PAIRS]]
    assessors = data["assessors"]
    flagged = filter_assessors(assessors, show="flagged", name="", sort="agreement", descending=False)
    points = data["over_time"]["points"]
    return render(request, "judging/campaign_dashboard.html", {
        "collection": campaign.collection, "campaign": campaign, "data": data, "options": options,
        "choices": CHOICES.values(), "rejudge_token": secrets.token_urlsafe(16),
        "topics": topics, "low_pairs": low_pairs, "low_pairs_total": len(data["low_pairs"]),
        "flagged": flagged[:DASHBOARD_LOW_PAIRS], "flagged_total": len(flagged), "assessors_total": len(assessors),
        "blocked_total": sum(1 for a in assessors if a["blocked"]),
        "heatmap_choice": heatmap_choice, "heatmap_choices": HEATMAP_CHOICES, "stamp_seconds": STAMP_SECONDS,
        "leaderboard_url": _leaderboard_url(slug), "history": rejudge_history(campaign=campaign)[:10],
        "quality_log": quality_log(campaign=campaign, limit=10),
        "stopping": cached_for(data, "stopping", lambda: stopping_table(campaign)),
        "heatmap": charts.heatmap(matrix["names"], values, counts=counts, hrefs=hrefs,
                                  title=f"Pairwise {stat.label}"),
        "topic_chart": charts.bars([f"{t['qid']} {t['title']}" for t in topics], [t["value"] for t in topics],
                                   hrefs=[t["conflicts_url"] for t in topics], lo=lo,
                                   marker=data["statistic"]["low_threshold"], title=f"{stat.group_label} per topic"),
        "time_chart": charts.line([p["label"] for p in points], [p["value"] for p in points], lo=lo,
                                  title=f"{stat.group_label} over time"),
    })


def _query_without(request: HttpRequest, *names: str) -> str:
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()


@login_required
@require_GET
def campaign_assessors_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """List the campaign's assessors a page at a time: sortable, filterable (flagged, blocked, below the gold
    threshold, by name), each with its figures and a block/unblock form."""
    campaign = _lead_campaign(request, slug, campaign_id)
    options = dashboard_options(request)
    data = campaign_dashboard(campaign=campaign, **options)
    show = request.GET.get("show", "all")
    show = show if show in ASSESSOR_FILTERS else "all"
    sort = request.GET.get("sort", "judgments")
    sort = sort if sort in ASSESSOR_SORTS else "judgments"
    descending = request.GET.get("dir", "desc" if sort == "judgments" else "asc") == "desc"
    name = request.GET.get("q", "")[:100]
    rows = filter_assessors(data["assessors"], show=show, name=name, sort=sort, descending=descending)
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "judging/campaign_assessors.html", {
        "collection": campaign.collection, "campaign": campaign, "data": data, "options": options, "page": page,
        "show": show, "filters": ASSESSOR_FILTERS, "sort": sort, "descending": descending, "q": name,
        "sorts": list(ASSESSOR_SORTS), "page_query": _query_without(request, "page"),
        "sort_query": _query_without(request, "page", "sort", "dir"), "quality_log": quality_log(campaign=campaign, limit=10),
        "back": request.GET.urlencode(),
    })


@login_required
@require_GET
def campaign_low_agreement_page(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """List the assessor pairs with low agreement a page at a time, with a bulk "one more assessor" action."""
    campaign = _lead_campaign(request, slug, campaign_id)
    options = dashboard_options(request)
    data = campaign_dashboard(campaign=campaign, **options)
    conflicts_url = reverse("campaign-conflicts", args=[slug, campaign.pk])
    page = Paginator(data["low_pairs"], PER_PAGE).get_page(request.GET.get("page"))
    rows = [dict(row, conflicts_url=f"{conflicts_url}?{urlencode([('assessor', row['a']), ('assessor', row['b'])])}")
            for row in page.object_list]
    return render(request, "judging/campaign_low_agreement.html", {
        "collection": campaign.collection, "campaign": campaign, "data": data, "options": options, "page": page,
        "rows": rows, "choices": CHOICES.values(), "rejudge_token": secrets.token_urlsafe(16),
        "page_query": _query_without(request, "page"), "back": request.GET.urlencode(),
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


def _safe_back(back: str) -> bool:
    return bool(back) and len(back) < 500 and all(c.isalnum() or c in "=&_.%-+" for c in back)


@login_required
@require_POST
def campaign_rejudge(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Send a topic's or assessor pairs' disagreed pairs to one more assessor, then back where the lead was.

    ``pair=<a>-<b>`` (repeatable) sends several assessor pairs at once (the low-agreement
    list's bulk action), each as its own idempotent request (``<token>-<a>-<b>``); otherwise
    ``topic`` and/or ``assessor`` (repeatable) as one request.
    """
    campaign = _lead_campaign(request, slug, campaign_id)
    topic = request.POST.get("topic", "").strip() or None
    token = request.POST.get("token", "")
    try:
        pairs = [tuple(int(x) for x in p.split("-")) for p in request.POST.getlist("pair")][:PER_PAGE]
        if any(len(p) != 2 for p in pairs):
            raise ValueError("A pair is two assessor ids joined by '-'.")
        requests: list[tuple[str, str | None, tuple[int, ...]]] = [(f"{token}-{a}-{b}", None, (a, b)) for a, b in pairs] or [
            (token, topic, tuple(int(a) for a in request.POST.getlist("assessor")))]
        raised = skipped = replays = 0
        for one_token, one_topic, assessors in requests:
            result = rejudge_request(campaign=campaign, user=request.user, token=one_token, topic=one_topic,
                                     assessors=assessors)
            raised += len(result.raised)
            skipped += len(result.skipped)
            replays += result.replay
    except (ValueError, ValidationError) as error:
        messages.error(request, "; ".join(getattr(error, "messages", [str(error)])))
    else:
        forget_stamp(campaign)
        if replays == len(requests):
            messages.info(request, "This request was already applied; nothing changed.")
        else:
            note = f" ({skipped} left alone: no assessor left to ask)" if skipped else ""
            messages.success(request, f"{raised} pairs sent to one more assessor{note}.")
    back = request.POST.get("back", "")
    target = "campaign-low-agreement" if request.POST.get("from") == "low-agreement" else "campaign-dashboard"
    url = reverse(target, args=[slug, campaign.pk])
    return redirect(f"{url}?{back}" if _safe_back(back) else url)


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
        forget_stamp(campaign)
        messages.success(request, f"{assessor} {action}ed.")
    else:
        messages.info(request, f"{assessor} was already {action}ed; nothing changed.")
    back = request.POST.get("back", "")
    if request.POST.get("from") == "assessors":
        url = reverse("campaign-assessors", args=[slug, campaign.pk])
        return redirect(f"{url}?{back}" if _safe_back(back) else url)
    return redirect(reverse("campaign-dashboard", args=[slug, campaign.pk]) + "#assessors")
