"""Expert assessors' pages: my campaigns and the judging page with its JSON endpoints."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from judging.access import assessor_for_user, campaign_for_user, campaigns_for_assessor
from judging.models import Assessor
from judging.selectors import progress_for_assessor
from judging.views import workspace
from preferences.access import campaigns_for_assessor as pref_campaigns_for_assessor


def _assessor(request: HttpRequest, campaign_id: int) -> Assessor:
    """Resolve the campaign (404 for outsiders) and the user's own assessor row (403 otherwise)."""
    campaign = campaign_for_user(request.user, campaign_id)
    return assessor_for_user(campaign=campaign, user=request.user)


@login_required
def my_campaigns(request: HttpRequest) -> HttpResponse:
    """List the active campaigns I judge in, with my progress in each, and my preference campaigns."""
    campaigns = campaigns_for_assessor(request.user).select_related("collection")
    assessors = {
        a.campaign_id: a
        for a in Assessor.objects.filter(user=request.user, campaign__in=campaigns).select_related("campaign")
    }
    rows = []
    for campaign in campaigns:
        assessor = assessors.get(campaign.pk)
        progress = progress_for_assessor(assessor=assessor) if assessor else {"done": 0, "assigned": 0}
        rows.append({"campaign": campaign, "progress": progress})
    preference_campaigns = pref_campaigns_for_assessor(request.user)
    return render(request, "judging/my_campaigns.html", {"rows": rows, "preference_campaigns": preference_campaigns})


@login_required
@require_GET
def judge_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Render the judging page; the first pair and the preloaded next one are inlined."""
    assessor = _assessor(request, campaign_id)
    urls = {
        "state": reverse("judge-state", args=[campaign_id]),
        "submit": reverse("judge-submit", args=[campaign_id]),
        "back": reverse("judge-back", args=[campaign_id]),
        "done": reverse("my-campaigns"),
    }
    context = workspace.page_context(assessor=assessor, urls=urls)
    return render(request, "judging/judge.html", context)


def _json_login_required(view):
    def wrapped(request: HttpRequest, *args, **kwargs):
        if not request.user.is_authenticated:
            return JsonResponse({"detail": "Log in first.", "code": "not_authenticated"}, status=401)
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


@_json_login_required
@require_GET
def judge_state(request: HttpRequest, campaign_id: int) -> JsonResponse:
    """Return the current pair, the preloaded next pair and my progress."""
    return workspace.handle_state(request, _assessor(request, campaign_id))


@_json_login_required
@require_POST
def judge_submit(request: HttpRequest, campaign_id: int) -> JsonResponse:
    """Record one judgment (idempotent on client_token) and return the next state."""
    return workspace.handle_submit(request, _assessor(request, campaign_id))


@_json_login_required
@require_GET
def judge_back(request: HttpRequest, campaign_id: int) -> JsonResponse:
    """Return my judgment before the given one, to revisit or revise."""
    return workspace.handle_back(request, _assessor(request, campaign_id))
