"""Leads' campaign pages: create, overview, conflicts and adjudication, qrels versions, export."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaign_core.crowd_forms import CrowdEntryForm
from campaign_core.exports import CONTENT_TYPES, streaming_download
from collections_app.access import collection_for_user
from collections_app.models import Pool
from judging import forms
from judging.access import lead_campaign_for_user
from judging.models import Assessor, Campaign, Item, QrelsVersion
from judging.selectors import (
    CONFLICTS_PER_PAGE,
    campaign_progress,
    conflict_rows,
    disputed_item_ids,
    pairs_without_text,
)
from judging.services.campaigns import campaign_create, campaign_set_status
from judging.services.crowd import crowd_refusals
from judging.services.exports import final_labels_lines, judgments_lines, qrels_lines
from judging.services.prels import campaign_prels
from judging.services.qrels import RULES, adjudicate, qrels_freeze
from metrics import MetricsInputError, qrels_from_text


def _lead_campaign(request: HttpRequest, slug: str, campaign_id: int) -> Campaign:
    """Resolve a campaign for a lead of the collection in the URL (404 if it belongs elsewhere)."""
    return lead_campaign_for_user(request.user, slug, campaign_id)


@login_required
def campaign_list(request: HttpRequest, slug: str) -> HttpResponse:
    """List the collection's campaigns and offer to start one from a pool."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    campaigns = (
        Campaign.objects.filter(collection=collection)
        .select_related("pool")
        .annotate(num_items=Count("items", distinct=True), num_assessors=Count("assessors", distinct=True))
    )
    return render(request, "judging/campaign_list.html", {"collection": collection, "campaigns": campaigns})


@login_required
def campaign_new(request: HttpRequest, slug: str) -> HttpResponse:
    """Create a campaign from a pool with the chosen split, overlap, order, gold and crowd options."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    form = forms.CampaignCreateForm(request.POST if request.method == "POST" else None, collection=collection)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign = campaign_create(collection=collection, pool=data["pool"], name=data["name"],
                                       created_by=request.user, assessors=list(data["assessors"]),
                                       plan=form.campaign_plan)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"Campaign {campaign.name} started with {campaign.items.count()} items.")
            blank = pairs_without_text(pool=campaign.pool)
            if blank:
                messages.warning(request, f"{blank} of the pool's pairs have no document text: assessors will see an "
                                          "empty document. Upload the documents (with their text) before judging starts.")
            return redirect("campaign-detail", slug=slug, campaign_id=campaign.pk)
    return render(request, "judging/campaign_new.html", {"collection": collection, "form": form})


@login_required
@require_GET
def campaign_detail(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show progress overall and per topic, assessors with their counts, and the crowd link."""
    campaign = _lead_campaign(request, slug, campaign_id)
    assessors = (
        Assessor.objects.filter(campaign=campaign)
        .select_related("user")
        .annotate(
            num_judged=Count("judgments", filter=Q(judgments__skipped=False)),
            num_skipped=Count("judgments", filter=Q(judgments__skipped=True)),
        )
        .order_by("kind", "id")
    )
    crowd_link = request.build_absolute_uri(reverse("crowd-entry", args=[campaign.crowd_token]))
    return render(request, "judging/campaign_detail.html", {
        "collection": campaign.collection, "campaign": campaign, "progress": campaign_progress(campaign=campaign),
        "assessors": assessors, "crowd_link": crowd_link, "crowd_form": CrowdEntryForm.for_campaign(campaign),
        "crowd_settings_url": reverse("campaign-crowd-settings", args=[campaign.collection.slug, campaign.pk]),
        "crowd_refusals": crowd_refusals(campaign=campaign) if campaign.crowd_enabled else [],
    })


@login_required
@require_POST
def campaign_status(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Pause, resume or finish the campaign (``status`` = paused | active | finished); leads only, audited."""
    campaign = _lead_campaign(request, slug, campaign_id)
    before = campaign.status
    try:
        campaign_set_status(campaign=campaign, status=request.POST.get("status", ""), user=request.user)
    except ValidationError as exc:
        return HttpResponseBadRequest(exc.messages[0])
    if campaign.status != before:
        messages.success(request, f"Campaign {campaign.get_status_display().lower()}.")
    return redirect("campaign-detail", campaign.collection.slug, campaign.pk)


def _positive_int(value: str | None, default: int | None = None) -> int | None:
    """Return a positive integer from a query parameter, ``default`` when missing or not one."""
    return int(value) if value and value.isdigit() and 0 < int(value) < 10**9 else default


@login_required
def campaign_conflicts(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """List pairs whose labels disagree, a page at a time, and let the lead set the final label with a note.

    Filters: ``?topic=<qid>``, ``?assessor=<id>`` (repeatable: pairs every one of them
    labelled — the dashboard links here from a low-agreement topic or pair), ``?gap=<n>``
    (highest and lowest label at least n grades apart) and ``?unresolved=1`` (not yet
    adjudicated); ``?page=<n>`` pages through CONFLICTS_PER_PAGE pairs at a time. The filters
    and the page survive an adjudication, and the form then shows the grade just chosen.
    Each pair shows its document's title and text (escaped) beside the labels.
    """
    campaign = _lead_campaign(request, slug, campaign_id)
    scale = campaign.collection.scale
    topic = request.GET.get("topic", "").strip() or None
    assessor_ids = tuple(int(a) for a in request.GET.getlist("assessor") if a.isdigit())[:20]
    min_gap = _positive_int(request.GET.get("gap"))
    unresolved = request.GET.get("unresolved") == "1"
    assessors = {a.pk: str(a) for a in Assessor.objects.filter(campaign=campaign, pk__in=assessor_ids).select_related("user")}
    here = reverse("campaign-conflicts", args=[slug, campaign.pk])
    if request.GET:
        here += "?" + request.GET.urlencode()
    if request.method == "POST":
        form = forms.AdjudicateForm(request.POST, scale=scale)
        if form.is_valid():
            item = get_object_or_404(Item, pk=form.cleaned_data["item"], campaign=campaign)
            try:
                adjudicate(item=item, grade=form.cleaned_data["grade"], note=form.cleaned_data["note"], user=request.user)
            except ValidationError as error:
                messages.error(request, "; ".join(error.messages))
            else:
                messages.success(request, f"Final label {form.cleaned_data['grade']} set.")
            return redirect(f"{here}#item-{item.pk}")
        messages.error(request, "Choose a grade from the scale.")
    paginator = Paginator(disputed_item_ids(campaign=campaign, topic=topic, assessors=assessor_ids, min_gap=min_gap,
                                            unresolved=unresolved), CONFLICTS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    rows = conflict_rows(list(page.object_list))
    for row in rows:
        item = row["item"]
        done = row["adjudication"]
        initial = {"item": item.pk, **({"grade": done.grade, "note": done.note} if done else {})}
        row["form"] = forms.AdjudicateForm(initial=initial, scale=scale)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "judging/campaign_conflicts.html", {
        "collection": campaign.collection, "campaign": campaign, "rows": rows, "topic": topic, "page": page,
        "assessor_names": [assessors.get(a, f"#{a}") for a in assessor_ids], "assessor_ids": assessor_ids,
        "gap": min_gap, "unresolved": unresolved, "filtered": bool(topic or assessor_ids or min_gap or unresolved),
        "page_query": query.urlencode(), "topics": campaign.collection.topics.order_by("qid").values_list("qid", flat=True),
    })


def _compare(a: QrelsVersion, b: QrelsVersion) -> dict:
    """Count what changed between two frozen versions: pairs added, removed, relabelled."""
    left = qrels_from_text(a.content, name=f"qrels v{a.number}")
    right = qrels_from_text(b.content, name=f"qrels v{b.number}")
    shared = left.keys() & right.keys()
    return {
        "a": a, "b": b,
        "only_a": len(left.keys() - right.keys()),
        "only_b": len(right.keys() - left.keys()),
        "changed": sum(1 for key in shared if left[key] != right[key]),
        "same": sum(1 for key in shared if left[key] == right[key]),
    }


@login_required
def campaign_qrels(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Freeze a qrels version under a rule, list frozen versions and compare two of them."""
    campaign = _lead_campaign(request, slug, campaign_id)
    form = forms.FreezeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            version = qrels_freeze(campaign=campaign, user=request.user, **form.freeze_options())
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"Qrels version {version.number} frozen ({version.num_judgments} labels).")
            if version.aggregation_warning:
                messages.warning(request, f"Version {version.number}: {version.aggregation_warning}.")
            return redirect("campaign-qrels", slug=slug, campaign_id=campaign.pk)
    versions = list(
        QrelsVersion.objects.filter(collection=campaign.collection).defer("content").order_by("-number")
    )
    comparison = None
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if a.isdigit() and b.isdigit():
        pair = {v.number: v for v in QrelsVersion.objects.filter(collection=campaign.collection, number__in=[a, b])}
        if int(a) in pair and int(b) in pair:
            try:
                comparison = _compare(pair[int(a)], pair[int(b)])
            except MetricsInputError as error:  # a version edited outside the app; never written by a freeze
                messages.error(request, f"Cannot compare: {error}")
    return render(request, "judging/campaign_qrels.html", {
        "collection": campaign.collection, "campaign": campaign, "form": form, "versions": versions,
        "comparison": comparison, "sampled": campaign.pool.strategy == Pool.Strategy.SAMPLE,
    })


@login_required
@require_GET
def qrels_download(request: HttpRequest, slug: str, campaign_id: int, number: int, fmt: str = "txt") -> HttpResponseBase:
    """Download a frozen qrels version exactly as frozen (TREC format), or as CSV/JSONL rows (.csv, .jsonl)."""
    campaign = _lead_campaign(request, slug, campaign_id)
    version = get_object_or_404(QrelsVersion, collection=campaign.collection, number=number)
    stem = f"{campaign.collection.slug}-qrels-v{version.number}"
    if fmt in CONTENT_TYPES:
        return streaming_download(qrels_lines(version=version, fmt=fmt), filename=f"{stem}.{fmt}",
                                  content_type=CONTENT_TYPES[fmt])
    if fmt != "txt":
        raise Http404("Unknown export format.")
    response = HttpResponse(version.content, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}.txt"'
    return response


@login_required
@require_GET
def judgments_download(request: HttpRequest, slug: str, campaign_id: int, fmt: str) -> HttpResponseBase:
    """Stream every individual judgment (CSV or JSONL) with assessor, kind, time and revision count."""
    campaign = _lead_campaign(request, slug, campaign_id)
    if fmt not in CONTENT_TYPES:
        raise Http404("Unknown export format.")
    return streaming_download(judgments_lines(campaign=campaign, fmt=fmt),
                              filename=f"campaign-{campaign.pk}-judgments.{fmt}", content_type=CONTENT_TYPES[fmt])


@login_required
@require_GET
def final_labels_download(request: HttpRequest, slug: str, campaign_id: int, fmt: str = "csv") -> HttpResponseBase:
    """Download the current final labels under ?rule= with each pair's confidence (CSV or JSONL), without freezing."""
    campaign = _lead_campaign(request, slug, campaign_id)
    rule = request.GET.get("rule", QrelsVersion.Rule.MAJORITY)
    if rule not in RULES or fmt not in CONTENT_TYPES:
        raise Http404("Unknown rule or format.")
    return streaming_download(final_labels_lines(campaign=campaign, rule=rule, fmt=fmt),
                              filename=f"campaign-{campaign.pk}-final-labels-{rule}.{fmt}",
                              content_type=CONTENT_TYPES[fmt])


@login_required
@require_GET
def prels_download(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Download the prels (``qid docno grade stratum prob``) of a campaign on a sampled pool under ?rule=.

    A campaign on another kind of pool (or whose pool's runs changed) is sent back to the
    qrels page with the reason, rather than to a bare error page.
    """
    campaign = _lead_campaign(request, slug, campaign_id)
    rule = request.GET.get("rule", QrelsVersion.Rule.ADJUDICATED)
    if rule not in RULES:
        raise Http404("Unknown rule.")
    try:
        prels = campaign_prels(campaign=campaign, rule=rule)
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
        return redirect("campaign-qrels", slug=slug, campaign_id=campaign.pk)
    response = HttpResponse(prels.text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-prels-{rule}.txt"'
    return response
