"""Evaluation pages: thin views over evaluation.selectors and services.

Leaderboard, per-topic view and significance are open to every member of the collection
(leads and assessors); stability and pool bias are for leads only, because they expose
individual assessors' labels and the pooling's blind spots. Outsiders get 404, anonymous users
are sent to log in.
"""
from __future__ import annotations

from typing import TypeVar
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from collections_app.access import collection_for_user, is_lead
from evaluation import charts
from evaluation.estimates import ESTIMATE_COLUMNS
from evaluation.leaderboard import COLUMNS, measure_name
from evaluation.selectors import board, pool_bias_report, run_topics, significance, stability
from evaluation.significance import MAX_RUNS
from evaluation.sources import available_sources

Default = TypeVar("Default", int, None)

MAX_CURVES = 10


def _source_param(request: HttpRequest) -> str | None:
    return request.GET.get("source") or None


def _columns(*, token: str, sort: str, descending: bool, estimated: bool) -> list[dict]:
    """Return the leaderboard's column headings; with estimates each estimate sits after the measure it estimates."""
    columns = []
    for _, name, label in COLUMNS:
        columns.append({"name": name, "label": label, "estimate": False})
        if estimated:
            columns += [{"name": est, "label": est_label, "estimate": True}
                        for est, est_label, plain in ESTIMATE_COLUMNS if plain == name]
    for column in columns:
        column["active"] = column["name"] == sort
        column["url"] = "?" + urlencode({"source": token, "sort": column["name"],
                                         "order": "asc" if (column["active"] and descending) else "desc"})
    return columns


@login_required
@require_GET
def leaderboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show every run's MAP, nDCG@10, P@10, R-prec, bpref and judged@10, sorted server-side, with PR curves.

    For a sampled campaign's labels the estimates (infAP, xinfAP, infNDCG@10) stand beside the
    measures they estimate, with the sample's size.
    """
    collection = collection_for_user(request.user, slug, systems=True)
    descending = request.GET.get("order", "desc") != "asc"
    try:
        scored = board(collection, source=_source_param(request), sort=request.GET.get("sort") or None,
                       descending=descending)
    except ValidationError as exc:
        raise Http404(exc.messages[0]) from None
    chosen = request.GET.getlist("curve") or [row.tag for row in scored.rows[:5]]
    chosen = chosen[:MAX_CURVES]
    curves = scored.curves(chosen)
    token = scored.source.token if scored.source else ""
    columns = _columns(token=token, sort=scored.sort, descending=descending, estimated=scored.estimates is not None)
    return render(request, "evaluation/leaderboard.html", {
        "collection": collection, "rows": scored.rows, "columns": columns, "sort": scored.sort,
        "descending": descending, "source": scored.source, "sources": available_sources(collection),
        "chosen": set(chosen), "estimates": scored.estimates, "estimates_error": scored.estimates_error,
        "curves_svg": mark_safe(charts.pr_curves_svg(curves)) if curves else "",  # noqa: S308 (labels escaped in charts)
        "is_lead": is_lead(request.user, collection),
    })


@login_required
@require_GET
def run_topics_page(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    """Show one run's scores on every topic it was scored on."""
    collection = collection_for_user(request.user, slug, systems=True)
    try:
        source, topics = run_topics(collection, tag, source=_source_param(request))
    except ValidationError as exc:
        raise Http404(exc.messages[0]) from None
    titles = dict(collection.topics.values_list("qid", "title"))
    for t in topics:
        t["title"] = titles.get(t["qid"], "")
    estimated = any(t["estimates"] is not None for t in topics)
    return render(request, "evaluation/run_topics.html", {
        "collection": collection, "tag": tag, "source": source, "topics": topics, "columns": COLUMNS,
        "estimate_columns": ESTIMATE_COLUMNS if estimated else (),
    })


def _int(value: str | None, default: Default, *, low: int, high: int) -> int | Default:
    """Return an int query parameter clamped to [low, high], the default when missing or not a number."""
    if value is None:
        return default
    try:
        return min(max(int(value), low), high)
    except ValueError:
        return default


def _measure(request: HttpRequest) -> str:
    return measure_name(request.GET.get("measure", "map")) or "map"


@login_required
@require_GET
def significance_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show the Holm-corrected randomization-test matrix between the best runs for one measure."""
    collection = collection_for_user(request.user, slug, systems=True)
    measure = _measure(request)
    max_runs = _int(request.GET.get("runs"), MAX_RUNS, low=2, high=MAX_RUNS)
    explanation = ""
    try:
        source, matrix = significance(collection, source=_source_param(request), measure=measure, max_runs=max_runs)
    except ValidationError as exc:
        if exc.code != "too_few_topics":
            raise Http404(exc.messages[0]) from None
        # Too little data is not an error of the request: say why there is no matrix yet.
        source, matrix, explanation = _chosen_source(collection, request), None, exc.messages[0]
    return render(request, "evaluation/significance.html", {
        "collection": collection, "source": source, "sources": available_sources(collection), "matrix": matrix,
        "measure": measure, "columns": COLUMNS, "max_runs": max_runs, "explanation": explanation,
    })


def _chosen_source(collection, request: HttpRequest):
    """Return the qrels source the page was asked for (or the default), for the form's selection."""
    token = _source_param(request)
    sources = available_sources(collection)
    return next((s for s in sources if s.token == token), sources[0] if sources else None)


@login_required
@require_GET
def stability_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Compare system rankings under two qrels or between assessors of a campaign (leads only)."""
    collection = collection_for_user(request.user, slug, lead_only=True, systems=True)
    measure = _measure(request)
    campaign_id = _int(request.GET.get("campaign"), None, low=1, high=2**31 - 1)
    source_a, source_b = request.GET.get("a") or None, request.GET.get("b") or None
    comparisons, error = [], ""
    if campaign_id is not None or source_b:
        try:
            comparisons = stability(collection, source_a=source_a, source_b=source_b, campaign_id=campaign_id,
                                    measure=measure)
        except ValidationError as exc:
            error = exc.messages[0]
    return render(request, "evaluation/stability.html", {
        "collection": collection, "sources": available_sources(collection), "comparisons": comparisons,
        "error": error, "measure": measure, "columns": COLUMNS, "a": source_a or "", "b": source_b or "",
        "campaigns": collection.campaigns.order_by("pk").values_list("pk", "name"), "campaign_id": campaign_id,
    })


@login_required
@require_GET
def pool_bias_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show each run's unique relevant documents and its MAP/nDCG@10 without them (leads only)."""
    collection = collection_for_user(request.user, slug, lead_only=True, systems=True)
    depth = _int(request.GET.get("depth"), None, low=1, high=10_000)
    by_group = request.GET.get("by") == "group"
    try:
        source, depth, rows = pool_bias_report(collection, source=_source_param(request), depth=depth, by_group=by_group)
    except ValidationError as exc:
        raise Http404(exc.messages[0]) from None
    return render(request, "evaluation/pool_bias.html", {
        "collection": collection, "source": source, "sources": available_sources(collection), "rows": rows,
        "depth": depth, "by_group": by_group,
    })
