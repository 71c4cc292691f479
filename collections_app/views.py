"""Lead pages: thin views over selectors and services."""
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from collections_app.access import collections_visible_to


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """List the collections the user belongs to."""
    collections = collections_visible_to(request.user).order_by("name")
    return render(request, "collections_app/home.html", {"collections": collections})
