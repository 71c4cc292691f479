"""The budget planner page (lead only): start a simulation job, then show its table and plots."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe

from collections_app.access import collection_for_user
from collections_app.models import Job

from . import report
from .engine import Point, Report
from .forms import PlannerForm
from .tasks import KIND, planner_start


def _report_from_result(data: dict) -> Report:
    nan = float("nan")
    points = [Point(**{k: (nan if v is None and k in ("recall", "tau_map", "tau_ndcg10") else v)  # type: ignore[arg-type]  # the JSON of asdict(Point)
                       for k, v in p.items()}) for p in data["points"]]
    curves = {k: [tuple(x) for x in v] for k, v in data["curves"].items()}
    return Report(points, curves, data["complete_map"], data["complete_ndcg10"], data["findable_relevant"],
                  data["topics"], data["runs"], data["seed"])


@login_required
def planner(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the form and, with ``?job=``, that job's outcome; POST: start a simulation job."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    names = list(collection.qrels_sets.order_by("name").values_list("name", flat=True))
    form = PlannerForm(request.POST if request.method == "POST" else None, qrels_sets=names)
    if request.method == "POST" and form.is_valid():
        job = planner_start(collection=collection, parameters=form.parameters(), user=request.user)
        return redirect(reverse("planner", kwargs={"slug": slug}) + f"?job={job.pk}")
    context = {"collection": collection, "form": form, "job": None}
    job_id = request.GET.get("job", "")
    if job_id:
        job = get_object_or_404(Job, pk=job_id if job_id.isdigit() else 0, collection=collection, kind=KIND)
        context["job"] = job
        if job.status == Job.Status.SUCCEEDED:
            result = _report_from_result(job.result)
            # The SVG is built by report.py with every label escaped, so it is safe to inline.
            context.update(rows=report.rows(result), columns=report.COLUMNS, result=result,
                           discovery_svg=mark_safe(report.discovery_svg(result)),  # noqa: S308
                           tau_svg=mark_safe(report.tau_svg(result)))  # noqa: S308
    return render(request, "collections_app/planner.html", context)
