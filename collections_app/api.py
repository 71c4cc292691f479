"""The collections API: validate, call a service (or enqueue a job), serialize.

Every endpoint goes through ``collection_for_user``: outsiders get 404, assessors may
read, and only leads may change a collection. Endpoints that name systems (runs, pools with
their runs and per-pair run ranks, jobs whose parameters name runs) set ``systems = True``:
assessors are blind to them unless a lead opens them (``Collection.assessors_see_systems``).
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collections_app import selectors, serializers
from collections_app.access import collection_for_user, collections_visible_to
from collections_app.filters import DocumentFilter, PoolPairFilter, RunFilter
from collections_app.models import Collection, Document, Job, Membership, Pool, PoolPair, QrelsSet, Run, Topic
from collections_app.pool_stats import pool_stats
from collections_app.services import collections as collection_services
from collections_app.services import pools as pool_services
from collections_app.services import runs
from collections_app.tasks import job_start


class CollectionScoped:
    """Mixin: resolve the collection from the URL through the access gate."""

    kwargs: dict
    request: Request
    systems = False  # True where the answer names systems: assessors then need the lead's opening

    def collection(self, *, lead_only: bool = False) -> Collection:
        cache = f"_collection_{lead_only}"
        if not hasattr(self, cache):
            # Re-raise as DRF exceptions so the error body carries its code like every other error.
            try:
                found = collection_for_user(
                    self.request.user, self.kwargs["slug"], lead_only=lead_only, systems=self.systems
                )
            except Http404:
                raise exceptions.NotFound("No such collection.") from None
            except DjangoPermissionDenied as exc:
                raise exceptions.PermissionDenied(str(exc)) from None
            setattr(self, cache, found)
        return getattr(self, cache)

    def collection_for_method(self) -> Collection:
        return self.collection(lead_only=self.request.method not in ("GET", "HEAD", "OPTIONS"))

    def viewer_is_lead(self) -> bool:
        return self.collection().viewer_role == Membership.Role.LEAD

    def visible_pools(self):
        """Return the pools the caller may see: gold companion pools are for leads only."""
        return selectors.pools_for(self.collection(), with_gold=self.viewer_is_lead())


def get_object_or_404(queryset, **lookup):
    """Return the one object matching the lookup or raise DRF's NotFound (the API's error shape)."""
    obj = queryset.filter(**lookup).first()
    if obj is None:
        raise exceptions.NotFound(f"No such {queryset.model._meta.verbose_name}.")
    return obj


def _job_response(job: Job) -> Response:
    return Response(serializers.JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class CollectionListCreate(generics.ListCreateAPIView):
    """List the collections you belong to; create one (you become its lead)."""

    serializer_class = serializers.CollectionSerializer

    def get_queryset(self):
        return collections_visible_to(self.request.user).order_by("name")

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "roles": selectors.roles_by_collection(self.request.user)}

    @extend_schema(request=serializers.CollectionCreateSerializer, responses={201: serializers.CollectionSerializer})
    def post(self, request: Request, *args, **kwargs) -> Response:
        data = serializers.CollectionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        collection = collection_services.collection_create(**data.validated_data, created_by=request.user)
        context = {"roles": selectors.roles_by_collection(request.user)}
        return Response(serializers.CollectionSerializer(collection, context=context).data, status=status.HTTP_201_CREATED)


class CollectionDetail(CollectionScoped, generics.RetrieveUpdateAPIView):
    """Show a collection; leads may change its name, description and guidelines."""

    serializer_class = serializers.CollectionSerializer
    http_method_names = ["get", "patch", "put", "head", "options"]

    def get_object(self) -> Collection:
        return self.collection_for_method()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "roles": selectors.roles_by_collection(self.request.user)}


class MemberListCreate(CollectionScoped, APIView):
    """List a collection's members; leads add a member or change a role."""

    @extend_schema(responses=serializers.MembershipSerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        members = selectors.members_of(self.collection())
        return Response(serializers.MembershipSerializer(members, many=True).data)

    @extend_schema(request=serializers.MembershipInputSerializer, responses={200: serializers.MembershipSerializer})
    def post(self, request: Request, slug: str) -> Response:
        collection = self.collection(lead_only=True)
        data = serializers.MembershipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = collection_services.membership_set(collection=collection, user=data.validated_data["username"],
                                    role=data.validated_data["role"])
        return Response(serializers.MembershipSerializer(membership).data)


class _UploadMixin(CollectionScoped):
    parser_classes = [MultiPartParser, FormParser]
    job_kind: str

    def post(self, request: Request, slug: str) -> Response:
        collection = self.collection(lead_only=True)
        data = serializers.FilesUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = {key: value for key, value in data.validated_data.items() if key != "file"}
        job = job_start(collection=collection, kind=self.job_kind, uploads=[data.validated_data["file"]],
                        parameters=params, user=request.user)
        return _job_response(job)


class TopicList(_UploadMixin, generics.ListAPIView):
    """List a collection's topics; leads upload a topics file (imported as a background job)."""

    queryset = Topic.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.TopicSerializer
    parser_classes = [MultiPartParser, FormParser, JSONParser]
    job_kind = Job.Kind.TOPICS

    def get_queryset(self):
        return Topic.objects.filter(collection=self.collection()).order_by("qid")

    @extend_schema(request=serializers.FilesUploadSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class DocumentList(_UploadMixin, generics.ListAPIView):
    """List and filter a collection's documents; leads upload a documents file (a background job)."""

    queryset = Document.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.DocumentSerializer
    filterset_class = DocumentFilter
    job_kind = Job.Kind.DOCUMENTS

    def get_queryset(self):
        return self.collection().documents.order_by("docno")

    @extend_schema(request=serializers.FilesUploadSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class DocumentDetail(CollectionScoped, generics.RetrieveAPIView):
    serializer_class = serializers.DocumentSerializer

    def get_object(self):
        return get_object_or_404(self.collection().documents, docno=self.kwargs["docno"])


class QrelsList(_UploadMixin, generics.ListAPIView):
    """List imported qrels sets; leads upload a TREC qrels file (a background job)."""

    queryset = QrelsSet.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.QrelsSetSerializer
    job_kind = Job.Kind.QRELS

    def get_queryset(self):
        return QrelsSet.objects.filter(collection=self.collection()).order_by("imported_at", "id")

    @extend_schema(request=serializers.FilesUploadSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        return super().post(request, slug)


class RunList(CollectionScoped, generics.ListAPIView):
    """List a collection's runs; leads upload one or many TREC run files (a background job)."""

    systems = True

    queryset = Run.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.RunSerializer
    filterset_class = RunFilter
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return Run.objects.filter(collection=self.collection()).order_by("tag")

    @extend_schema(request=serializers.RunsUploadSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        collection = self.collection(lead_only=True)
        data = serializers.RunsUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        params = {key: value for key, value in data.validated_data.items() if key != "files"}
        job = job_start(collection=collection, kind=Job.Kind.RUNS, uploads=data.validated_data["files"],
                        parameters=params, user=request.user)
        return _job_response(job)


class RunDetail(CollectionScoped, generics.RetrieveDestroyAPIView):
    """Show a run; leads delete it unless a frozen pool was built from it."""

    systems = True

    serializer_class = serializers.RunSerializer

    def get_object(self) -> Run:
        return get_object_or_404(Run.objects.filter(collection=self.collection_for_method()), tag=self.kwargs["tag"])

    def perform_destroy(self, instance: Run) -> None:
        runs.run_delete(run=instance)


class PoolList(CollectionScoped, generics.ListAPIView):
    """List a collection's pools; leads build a new one (a background job)."""

    systems = True

    queryset = Pool.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.PoolSerializer
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    def get_queryset(self):
        return self.visible_pools()

    @extend_schema(request=serializers.PoolBuildSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str) -> Response:
        collection = self.collection(lead_only=True)
        data = serializers.PoolBuildSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = job_start(collection=collection, kind=Job.Kind.POOL, parameters=dict(data.validated_data),
                        user=request.user)
        return _job_response(job)


class PoolDetail(CollectionScoped, generics.RetrieveDestroyAPIView):
    """Show a pool; leads delete it while it is not frozen."""

    systems = True

    serializer_class = serializers.PoolSerializer

    def get_object(self):
        self.collection_for_method()
        return get_object_or_404(self.visible_pools(), name=self.kwargs["name"])

    def perform_destroy(self, instance) -> None:
        pool_services.pool_delete(pool=instance)


class PoolDeepen(CollectionScoped, APIView):
    """Deepen a depth pool (e.g. k=10 to k=20) without duplicating its pairs (a background job)."""

    systems = True

    @extend_schema(request=serializers.PoolDeepenSerializer, responses={202: serializers.JobSerializer})
    def post(self, request: Request, slug: str, name: str) -> Response:
        collection = self.collection(lead_only=True)
        pool = get_object_or_404(collection.pools, name=name)
        data = serializers.PoolDeepenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = job_start(collection=collection, kind=Job.Kind.POOL, user=request.user,
                        parameters={"deepen": pool.name, "depth": data.validated_data["depth"]})
        return _job_response(job)


class PoolStats(CollectionScoped, APIView):
    """Return a pool's statistics: sizes per topic, contributions and unique documents per run, overlap."""

    systems = True

    @extend_schema(responses={200: OpenApiResponse(description="pool_stats() dictionary")})
    def get(self, request: Request, slug: str, name: str) -> Response:
        pool = get_object_or_404(self.visible_pools(), name=name)
        return Response(pool_stats(pool))


class PoolPairList(CollectionScoped, generics.ListAPIView):
    """List a pool's pairs in judging order (paginated; filter by qid)."""

    systems = True

    queryset = PoolPair.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.PoolPairSerializer
    filterset_class = PoolPairFilter

    def get_queryset(self):
        pool = get_object_or_404(self.visible_pools(), name=self.kwargs["name"])
        if not self.viewer_is_lead() and selectors.pool_pairs_reveal_gold(pool):
            # The pool's campaign mixes in gold pairs from a companion pool: the list would single them out.
            raise exceptions.PermissionDenied("This pool's pairs are shown to leads only while gold checks run.")
        return selectors.pool_pairs(pool)


class JobList(CollectionScoped, generics.ListAPIView):
    """List a collection's background jobs, newest first."""

    systems = True

    queryset = Job.objects.none()  # for the schema; get_queryset scopes to the collection
    serializer_class = serializers.JobSerializer

    def get_queryset(self):
        return selectors.jobs_for(self.collection())


class JobDetail(CollectionScoped, generics.RetrieveAPIView):
    """Show one background job: status, progress, then result or problems."""

    systems = True

    serializer_class = serializers.JobSerializer

    def get_object(self) -> Job:
        return get_object_or_404(selectors.jobs_for(self.collection()), pk=self.kwargs["pk"])
