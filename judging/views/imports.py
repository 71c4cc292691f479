"""The lead's page for importing judgments made elsewhere (one service: judging.services.imported)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from collections_app.access import collection_for_user
from collections_app.importers.errors import ImportFailed
from judging import forms
from judging.models import Campaign
from judging.services.imported import judgments_import


@login_required
def judgments_import_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show the upload form; import the file in the request (bulk writes: 100k labels in seconds)."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    form = forms.JudgmentsImportForm(request.POST or None, request.FILES or None)
    problems = None
    if request.method == "POST" and form.is_valid():
        try:
            summary = judgments_import(collection=collection, source=form.cleaned_data["file"],
                                       campaign_name=form.cleaned_data["campaign"], user=request.user,
                                       format=form.cleaned_data["format"] or None)
        except ImportFailed as failed:
            problems = failed
        else:
            for warning in summary.warnings:
                messages.warning(request, warning)
            messages.success(request, f"{summary.line()} ({summary.details['revisions']} revisions, "
                                      f"{summary.details['new_assessors']} new assessors).")
            return redirect("campaign-detail", slug=slug, campaign_id=summary.details["campaign_id"])
    imported = Campaign.objects.filter(collection=collection, origin=Campaign.Origin.IMPORTED).order_by("name")
    return render(request, "judging/judgments_import.html",
                  {"collection": collection, "form": form, "problems": problems, "imported": imported})
