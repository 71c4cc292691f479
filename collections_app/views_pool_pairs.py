"""The lead's page for a pool from a list of pairs: a qrels set to re-judge, or a file of pairs."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from collections_app import forms
from collections_app.access import collection_for_user
from collections_app.importers.errors import ImportFailed
from collections_app.services.pools import pool_from_pairs


@login_required
def pool_from_pairs_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Create a pool (strategy "pairs") from a qrels set or an uploaded list of pairs, in the request."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    form = forms.PoolFromPairsForm(request.POST or None, request.FILES or None, collection=collection)
    problems = None
    if request.method == "POST" and form.is_valid():
        try:
            pool = pool_from_pairs(collection=collection, name=form.cleaned_data["name"],
                                   source=form.cleaned_data["file"], qrels_set=form.cleaned_data["qrels_set"],
                                   user=request.user)
        except ImportFailed as failed:
            problems = failed
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"Pool {pool.name} created with {pool.pairs.count()} pairs.")
            return redirect("pool-detail", slug=slug, name=pool.name)
    return render(request, "collections_app/pool_from_pairs.html",
                  {"collection": collection, "form": form, "problems": problems})
