"""The "My judging" page: my relevance campaigns with my progress, then my preference campaigns."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from judging.selectors import assessor_campaign_rows
from preferences.access import campaigns_for_assessor as preference_campaigns_for_assessor


@login_required
def my_campaigns(request: HttpRequest) -> HttpResponse:
    """List the active campaigns I judge in, with my progress in each, and my preference campaigns."""
    return render(request, "judging/my_campaigns.html", {
        "rows": assessor_campaign_rows(user=request.user),
        "preference_campaigns": preference_campaigns_for_assessor(request.user),
    })
