"""Expert assessors' judging page with its JSON endpoints (the "My judging" hub is ``hub``)."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from judging.access import assessor_for_user, campaign_for_user
from judging.models import Assessor
from judging.views import workspace


def _assessor(request: HttpRequest, campaign_id: int) -> Assessor:
    """Resolve the campaign (404 for outsiders) and the user's own assessor row (403 otherwise)."""
    campaign = campaign_for_user(request.user, campaign_id)
    return assessor_for_user(campaign=campaign, user=request.user)


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
