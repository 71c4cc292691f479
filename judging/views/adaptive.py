"""Leads' stopping aid: per topic, relevant found so far and how many probably remain."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from judging.access import lead_campaign_for_user
from judging.services.adaptive import is_adaptive, stopping_table


@login_required
def campaign_stopping(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show the stopping table (leads of the campaign's collection only; others get 403/404)."""
    campaign = lead_campaign_for_user(request.user, slug, campaign_id)
    rows = stopping_table(campaign)
    return render(request, "judging/adaptive_stopping.html", {
        "collection": campaign.collection, "campaign": campaign, "rows": rows, "adaptive": is_adaptive(campaign),
    })
