"""Leads' stopping aid: per topic, relevant found so far and how many probably remain."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from collections_app.access import collection_for_user
from judging.access import campaign_for_user
from judging.services.adaptive import is_adaptive, stopping_table


@login_required
def campaign_stopping(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show the stopping table (leads of the campaign's collection only; others get 403/404)."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    campaign = campaign_for_user(request.user, campaign_id, lead_only=True)
    if campaign.collection_id != collection.pk:
        raise Http404("No such campaign.")
    rows = stopping_table(campaign)
    return render(request, "judging/adaptive_stopping.html", {
        "collection": collection, "campaign": campaign, "rows": rows, "adaptive": is_adaptive(campaign),
    })
