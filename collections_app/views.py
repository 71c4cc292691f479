"""Lead pages: thin views over selectors, forms and services.

Every view resolves its collection through ``collection_for_user``: outsiders get 404,
assessors may look, only leads may change anything. Long work is handed to a job.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from collections_app import forms, selectors
from collections_app.access import collection_for_user, collections_visible_to, role_in
from collections_app.models import Job, Membership, Run
from collections_app.pool_stats import pool_stats
from collections_app.services import collections as collection_services
from collections_app.services import pools as pool_services
from collections_app.services import runs
from collections_app.tasks import job_start

UPLOAD_KINDS = {
    "topics": (Job.Kind.TOPICS, "Topics", "TREC topic file (<top> … </top>), TSV (qid, title, …) or JSONL."),
    "documents": (Job.Kind.DOCUMENTS, "Documents", "TREC <DOC> file, JSONL ({docno, title, text}) or TSV; .gz accepted."),
    "runs": (Job.Kind.RUNS, "Runs", "TREC run files: qid Q0 docno rank score tag; one tag per file; .gz accepted."),
    "qrels": (Job.Kind.QRELS, "Qrels", "TREC qrels: qid iteration docno grade, e.g. from an earlier round."),
}
PAIRS_PER_PAGE = 100


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """List the collections the user belongs to, with their sizes and the user's role."""
    collections = (
        collections_visible_to(request.user)
        .annotate(
            num_topics=Count("topics", distinct=True),
            num_runs=Count("runs", distinct=True),
            num_pools=Count("pools", distinct=True),
        )
        .order_by("name")
    )
    roles = selectors.roles_by_collection(request.user)
    rows = [(collection, roles.get(collection.pk, "lead")) for collection in collections]
    return render(request, "collections_app/home.html", {"rows": rows})


@login_required
def collection_create(request: HttpRequest) -> HttpResponse:
    """Create a collection with a scale preset; the creator becomes its lead."""
    form = forms.CollectionCreateForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        collection = collection_services.collection_create(**form.cleaned_data, created_by=request.user)
        messages.success(request, f"Collection {collection.slug} created. Upload topics, documents and runs next.")
        return redirect("collection-detail", slug=collection.slug)
    return render(request, "collections_app/collection_create.html", {"form": form})


TOPICS_PER_PAGE = 25


@login_required
def collection_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """Show a collection's overview: topics, document count, runs, pools, qrels sets, members, jobs."""
    collection = collection_for_user(request.user, slug)
    systems = collection.viewer_sees_systems  # blind assessors see no runs, pools or jobs (they name runs)
    context = {
        "collection": collection,
        "role": role_in(request.user, collection),
        "sees_systems": systems,
        "topics": Paginator(collection.topics.all(), TOPICS_PER_PAGE).get_page(request.GET.get("topics_page")),
        "topics_open": "topics_page" in request.GET,
        "num_documents": collection.documents.count(),
        "runs": Run.objects.filter(collection=collection).order_by("tag") if systems else Run.objects.none(),
        "pools": (selectors.pools_for(collection, with_gold=collection.viewer_role == Membership.Role.LEAD)
                  if systems else []),
        "qrels_sets": collection.qrels_sets.order_by("imported_at"),
        "members": selectors.members_of(collection),
        "jobs": selectors.jobs_for(collection)[:10] if systems else [],
    }
    return render(request, "collections_app/collection_detail.html", context)


@login_required
@require_POST
def collection_blindness(request: HttpRequest, slug: str) -> HttpResponse:
    """Let a lead open runs and evaluation to the collection's assessors, or keep them blind."""
    from collections_app.services.collections import collection_set_assessors_see_systems

    collection = collection_for_user(request.user, slug, lead_only=True)
    visible = request.POST.get("assessors_see_systems") == "1"
    collection_set_assessors_see_systems(collection=collection, visible=visible)
    if visible:
        messages.success(request, "Assessors of this collection can now see runs, pools and evaluation.")
    else:
        messages.success(request, "Assessors of this collection are blind to runs, pools and evaluation again.")
    return redirect("collection-detail", slug=slug)


@login_required
def upload(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """Accept an upload (topics, documents, runs or qrels) and hand it to a background job."""
    if kind not in UPLOAD_KINDS:
        raise Http404("No such upload.")
    collection = collection_for_user(request.user, slug, lead_only=True)
    job_kind, label, help_text = UPLOAD_KINDS[kind]
    form_class = forms.RunsUploadForm if kind == "runs" else forms.SingleUploadForm
    form = form_class(request.POST, request.FILES) if request.method == "POST" else form_class()
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        uploads = data.pop("files") if kind == "runs" else [data.pop("file")]
        job = job_start(collection=collection, kind=job_kind, uploads=uploads, parameters=data, user=request.user)
        return redirect("job-detail", slug=collection.slug, pk=job.pk)
    context = {"collection": collection, "form": form, "kind": kind, "label": label, "help_text": help_text}
    return render(request, "collections_app/upload.html", context)


@login_required
def job_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Show a job's progress (the page polls the API) and then its result or its problems."""
    collection = collection_for_user(request.user, slug, systems=True)
    job = get_object_or_404(Job, collection=collection, pk=pk)
    return render(request, "collections_app/job_detail.html", {"collection": collection, "job": job})


@login_required
def pool_build(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a pool build as a background job."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    tags = list(Run.objects.filter(collection=collection).order_by("tag").values_list("tag", flat=True))
    form = forms.PoolBuildForm(request.POST if request.method == "POST" else None, run_tags=tags)
    if request.method == "POST" and form.is_valid():
        job = job_start(collection=collection, kind=Job.Kind.POOL, parameters=form.parameters(), user=request.user)
        return redirect("job-detail", slug=collection.slug, pk=job.pk)
    return render(request, "collections_app/pool_build.html", {"collection": collection, "form": form})


@login_required
def pool_detail(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """Show a pool: per-topic sizes, per-run contributions and unique documents, and its pairs."""
    collection = collection_for_user(request.user, slug, systems=True)
    is_lead = collection.viewer_role == Membership.Role.LEAD
    pool = get_object_or_404(selectors.pools_for(collection, with_gold=is_lead), name=name)
    pairs = selectors.pool_pairs(pool)
    qid = request.GET.get("qid")
    if qid:
        pairs = pairs.filter(topic__qid=qid)
    # A pool whose campaign mixes in companion gold pairs lists its pairs to leads only (the list would single them out).
    pairs_hidden = not is_lead and selectors.pool_pairs_reveal_gold(pool)
    page = Paginator(pairs.none() if pairs_hidden else pairs, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "collection": collection, "pool": pool, "stats": pool_stats(pool), "page": page, "qid": qid or "",
        "role": collection.viewer_role, "pairs_hidden": pairs_hidden,
    }
    return render(request, "collections_app/pool_detail.html", context)


@login_required
@require_POST
def pool_deepen(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """Start deepening a depth pool as a background job."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    pool = get_object_or_404(collection.pools, name=name)
    form = forms.PoolDeepenForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give a whole depth of at least 1.")
        return redirect("pool-detail", slug=slug, name=name)
    job = job_start(collection=collection, kind=Job.Kind.POOL, user=request.user,
                    parameters={"deepen": pool.name, "depth": form.cleaned_data["depth"]})
    return redirect("job-detail", slug=slug, pk=job.pk)


@login_required
@require_POST
def pool_delete(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """Delete a pool that is not frozen."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    pool = get_object_or_404(collection.pools, name=name)
    try:
        pool_services.pool_delete(pool=pool)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("pool-detail", slug=slug, name=name)
    messages.success(request, f"Pool {name} deleted.")
    return redirect("collection-detail", slug=slug)


@login_required
@require_POST
def run_delete(request: HttpRequest, slug: str, tag: str) -> HttpResponse:
    """Delete a run unless a frozen pool was built from it."""
    collection = collection_for_user(request.user, slug, lead_only=True)
    run = get_object_or_404(Run, collection=collection, tag=tag)
    try:
        runs.run_delete(run=run)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"Run {tag} deleted.")
    return redirect("collection-detail", slug=slug)


@login_required
def members(request: HttpRequest, slug: str) -> HttpResponse:
    """List a collection's members; leads add people by username or change their role."""
    collection = collection_for_user(request.user, slug)
    is_lead = role_in(request.user, collection) == Membership.Role.LEAD
    form = forms.MemberForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        collection = collection_for_user(request.user, slug, lead_only=True)
        if form.is_valid():
            user, role = form.cleaned_data["username"], form.cleaned_data["role"]
            collection_services.membership_set(collection=collection, user=user, role=role)
            messages.success(request, f"{user.username} is now {role} of {collection.slug}.")
            return redirect("collection-members", slug=slug)
    context = {"collection": collection, "members": selectors.members_of(collection), "form": form, "is_lead": is_lead}
    return render(request, "collections_app/members.html", context)
