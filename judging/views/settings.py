"""The lead's page for how a campaign is judged: label keys (with clash checks) and guidelines."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from campaign_core.guidelines import render_markdown
from campaign_core.keys import RESERVED
from collections_app.models import Topic
from judging import forms
from judging.services.guidelines import campaign_set_keys_and_guidelines
from judging.views.lead import _lead_campaign


@login_required
def campaign_settings(request: HttpRequest, slug: str, campaign_id: int) -> HttpResponse:
    """Show and change the campaign's keys, its guidelines and the guidelines of its topics."""
    campaign = _lead_campaign(request, slug, campaign_id)
    topics = list(
        Topic.objects.filter(collection=campaign.collection, pool_pairs__pool_id=campaign.pool_id).distinct().order_by("qid")
    )
    form = forms.CampaignKeysForm(request.POST if request.method == "POST" else None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        changed = {
            t.qid: request.POST.get(f"topic_{t.pk}", t.guidelines).strip()
            for t in topics if request.POST.get(f"topic_{t.pk}", t.guidelines).strip() != t.guidelines
        }
        try:
            campaign_set_keys_and_guidelines(
                campaign=campaign, keys=form.keys(), guidelines=form.cleaned_data["guidelines"], topic_guidelines=changed,
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, "Keys and guidelines saved.")
            return redirect("campaign-settings", slug=slug, campaign_id=campaign.pk)
    context = {
        "collection": campaign.collection, "campaign": campaign, "form": form, "topics": topics,
        "reserved": sorted(k for k in RESERVED if k.strip()), "preview": render_markdown(campaign.guidelines),
    }
    return render(request, "judging/campaign_settings.html", context)
