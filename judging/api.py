"""The judging API: validate, call a service, serialize. Every endpoint goes through the access gate.

Campaign endpoints answer outsiders with 404 (``campaign_for_user``); judging endpoints
need the user's own expert ``Assessor`` row (403 ``not_assessor`` otherwise); lead endpoints
need a lead of the campaign's collection (403). Crowd workers have no account and use the
crowd pages, not this API. Item payloads carry the topic, the document, the scale and the
caller's own judgment only — never gold flags or other assessors' labels (blind judging).
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign_core.exports import CONTENT_TYPES, streaming_download
from campaign_core.services.quality import assessor_block, assessor_unblock
from collections_app.access import collection_for_user
from collections_app.models import Membership
from judging import selectors, serializers
from judging.access import (
    NotAssessor,
    assessor_for_user,
    campaign_for_user,
    campaigns_for_assessor,
    judging_assessor,
)
from judging.dashboard.choices import choice
from judging.dashboard.selectors import campaign_dashboard, forget_stamp
from judging.models import Assessor, Campaign, Item, Judgment, QrelsVersion
from judging.plan_serializer import CampaignCreateSerializer
from judging.refusals import REFUSAL_STATUS
from judging.services.allocation import item_next
from judging.services.campaigns import campaign_create, campaign_set_status
from judging.services.exports import judgments_lines
from judging.services.imported import judgments_import
from judging.services.judgments import judgment_previous, judgment_submit
from judging.services.prels import campaign_prels
from judging.services.qrels import adjudicate, qrels_freeze
from judging.services.rejudge import rejudge_request

EXPORT_TYPES = CONTENT_TYPES


class ServiceRefused(exceptions.APIException):
    """A service's ValidationError whose code deserves a status other than 400."""

    def __init__(self, error: ValidationError, status_code: int):
        self.status_code = status_code
        super().__init__(detail=" ".join(error.messages), code=error.code or "invalid")


def _refused(error: ValidationError) -> Exception:
    code = getattr(error, "code", None)
    return ServiceRefused(error, REFUSAL_STATUS[code]) if code in REFUSAL_STATUS else error


class CampaignScoped:
    """Mixin: resolve the campaign (and the caller's assessor row) through the access gate."""

    kwargs: dict
    request: Request

    def campaign(self, *, lead_only: bool = False) -> Campaign:
        try:
            return campaign_for_user(self.request.user, self.kwargs["campaign_id"], lead_only=lead_only)
        except Http404:
            raise exceptions.NotFound("No such campaign.") from None
        except DjangoPermissionDenied as exc:
            raise exceptions.PermissionDenied(str(exc)) from None

    def assessor(self) -> Assessor:
        """Return the caller's assessor row, campaign and collection joined (one query when it exists)."""
        try:
            return judging_assessor(user=self.request.user, campaign_id=self.kwargs["campaign_id"])
        except Http404:
            raise exceptions.NotFound("No such campaign.") from None
        except NotAssessor as exc:
            raise exceptions.PermissionDenied(str(exc), code="not_assessor") from None
        except DjangoPermissionDenied as exc:
            raise exceptions.PermissionDenied(str(exc), code="blocked") from None


def _led_collection(request: Request, slug: str):
    """Return the collection ``slug`` for one of its leads: 404 for outsiders, 403 for its other members."""
    try:
        return collection_for_user(request.user, slug, lead_only=True)
    except Http404:
        raise exceptions.NotFound("No such collection.") from None
    except DjangoPermissionDenied as exc:
        raise exceptions.PermissionDenied(str(exc)) from None


def _scale(assessor) -> list:
    return assessor.campaign.collection.scale


class CampaignList(APIView):
    """List my campaigns: the active ones I judge in, and every campaign of collections I lead; start one."""

    @extend_schema(responses=serializers.CampaignSerializer(many=True))
    def get(self, request: Request) -> Response:
        judged = list(campaigns_for_assessor(request.user).select_related("collection", "pool"))
        led = list(
            Campaign.objects.filter(
                collection__memberships__user=request.user, collection__memberships__role=Membership.Role.LEAD
            ).select_related("collection", "pool").order_by("-created_at", "-id")
        )
        roles = {c.pk: "assessor" for c in judged} | {c.pk: "lead" for c in led}
        seen, campaigns = set(), []
        for campaign in led + judged:
            if campaign.pk not in seen:
                seen.add(campaign.pk)
                campaigns.append(campaign)
        return Response(serializers.CampaignSerializer(campaigns, many=True, context={"roles": roles}).data)

    @extend_schema(request=CampaignCreateSerializer, responses={201: serializers.CampaignSerializer})
    def post(self, request: Request) -> Response:
        """Start a campaign over a pool of a collection I lead, with the lead's form's options.

        The collection comes first: outsiders get 404 and its assessors 403 before any field is
        looked at. Problems with the options are 400 field errors with the plan's messages;
        refusals that need the database (a taken name, an empty pool) are 400 with their code.
        """
        slug = request.data.get("collection") if isinstance(request.data, dict) else None
        if not isinstance(slug, str) or not slug:
            raise exceptions.ValidationError({"collection": [exceptions.ErrorDetail(
                "The slug of a collection you lead is required.", code="required")]})
        collection = _led_collection(request, slug)
        data = CampaignCreateSerializer(data=request.data, collection=collection)
        data.is_valid(raise_exception=True)
        options = data.validated_data
        campaign = campaign_create(collection=collection, pool=options["pool"], name=options["name"],
                                   created_by=request.user, assessors=options["assessors"], plan=options["plan"])
        body = serializers.CampaignSerializer(campaign, context={"roles": {campaign.pk: "lead"}}).data
        return Response(body, status=status.HTTP_201_CREATED,
                        headers={"Location": reverse("api-campaign", args=[campaign.pk])})


class CampaignDetail(CampaignScoped, APIView):
    """Show a campaign to a member of its collection."""

    @extend_schema(responses=serializers.CampaignSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign()
        role = "lead" if campaign.collection.viewer_role == Membership.Role.LEAD else "assessor"
        return Response(serializers.CampaignSerializer(campaign, context={"roles": {campaign.pk: role}}).data)


class NextItem(CampaignScoped, APIView):
    """Lease and return my next pair (the one I already hold first); 204 when my queue is empty."""

    @extend_schema(request=None, responses={200: dict, 204: None})
    def post(self, request: Request, campaign_id: int) -> Response:
        assessor = self.assessor()
        item = item_next(assessor=assessor)  # comes with its pair's topic and document
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(serializers.item_data(item, scale=_scale(assessor)))


class SubmitJudgment(CampaignScoped, APIView):
    """Record or revise my judgment of a pair; a repeated client_token returns the same judgment."""

    @extend_schema(request=serializers.SubmitSerializer, responses={200: serializers.MyJudgmentSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        assessor = self.assessor()
        data = serializers.SubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        try:  # the item by id: the service reads it once, under its lock (404 not_found if not in the campaign)
            judgment = judgment_submit(assessor=assessor, item=values.pop("item"), **values)
        except ValidationError as error:
            raise _refused(error) from None
        return Response(serializers.judgment_data(judgment))


class PreviousJudgment(CampaignScoped, APIView):
    """Return my judgment before ?before=<judgment id> (or my latest), with its pair, for the back key."""

    @extend_schema(responses={200: dict, 204: None})
    def get(self, request: Request, campaign_id: int) -> Response:
        assessor = self.assessor()
        before = None
        raw = request.query_params.get("before", "")
        if raw:
            before = Judgment.objects.filter(pk=int(raw) if raw.isdigit() else 0, assessor=assessor).first()
            if before is None:
                raise exceptions.NotFound("No such judgment of yours.")
        previous = judgment_previous(assessor=assessor, before=before)
        if previous is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        item = Item.objects.select_related("pair__topic", "pair__document").get(pk=previous.item_id)
        return Response(serializers.item_data(item, scale=_scale(assessor), judgment=previous))


class Progress(CampaignScoped, APIView):
    """Return my progress; a lead also gets the whole campaign's."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign()
        body: dict = {}
        try:
            body["mine"] = selectors.progress_for_assessor(
                assessor=assessor_for_user(campaign=campaign, user=request.user)
            )
        except DjangoPermissionDenied:
            body["mine"] = None
        try:
            self.campaign(lead_only=True)
        except exceptions.PermissionDenied:
            if body["mine"] is None:
                raise exceptions.PermissionDenied("You are not an assessor of this campaign.", code="not_assessor") from None
        else:
            body["campaign"] = selectors.campaign_progress(campaign=campaign)
        return Response(body)


class Conflicts(CampaignScoped, APIView):
    """List pairs whose labels disagree, with every label (lead only), a page at a time.

    Filters: ?topic=<qid>, ?assessor=<id> (repeatable), ?gap=<n> (labels at least n grades
    apart), ?unresolved=1 (not adjudicated). ?page=<n> (from 1) and ?page_size=<n> (default
    and most 500); the total is in the X-Total-Count header and the next page in a Link header.
    """

    @extend_schema(responses=dict, parameters=[serializers.ConflictFilterSerializer])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        params = request.query_params
        query = serializers.ConflictFilterSerializer(data={
            "topic": params.get("topic", ""), "assessor": params.getlist("assessor"), "gap": params.get("gap") or None,
            "unresolved": params.get("unresolved", "0"), "page": params.get("page", 1),
            "page_size": params.get("page_size", serializers.CONFLICTS_API_PAGE)})
        query.is_valid(raise_exception=True)
        options = query.validated_data
        filters = dict(campaign=campaign, topic=options["topic"] or None, assessors=tuple(options["assessor"]),
                       min_gap=options["gap"], unresolved=options["unresolved"])
        ids = selectors.disputed_item_ids(**filters)
        total = len(ids)
        start = (options["page"] - 1) * options["page_size"]
        rows = selectors.conflict_rows(ids[start:start + options["page_size"]])
        response = Response([serializers.conflict_data(row) for row in rows])
        response["X-Total-Count"] = str(total)
        if options["page"] * options["page_size"] < total:
            following = params.copy()
            following["page"] = str(options["page"] + 1)
            response["Link"] = f'<{request.build_absolute_uri(request.path)}?{following.urlencode()}>; rel="next"'
        return response


class Adjudicate(CampaignScoped, APIView):
    """Set the final label of a pair with a note (lead only)."""

    @extend_schema(request=serializers.AdjudicateSerializer, responses=dict)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        data = serializers.AdjudicateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = Item.objects.filter(pk=data.validated_data["item"], campaign=campaign).first()
        if item is None:
            raise exceptions.NotFound("No such pair in this campaign.")
        adjudication = adjudicate(item=item, grade=data.validated_data["grade"], note=data.validated_data["note"],
                                  user=request.user)
        return Response({"item": item.pk, "grade": adjudication.grade, "note": adjudication.note,
                         "decided_at": adjudication.decided_at.isoformat()})


class QrelsVersions(CampaignScoped, APIView):
    """List the collection's frozen qrels versions, or freeze a new one from this campaign (lead only)."""

    @extend_schema(responses=serializers.QrelsVersionSerializer(many=True))
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        versions = QrelsVersion.objects.filter(collection=campaign.collection).select_related("created_by").defer("content")
        return Response(serializers.QrelsVersionSerializer(versions.order_by("-number"), many=True).data)

    @extend_schema(request=serializers.FreezeSerializer, responses={201: serializers.QrelsVersionSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        data = serializers.FreezeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = qrels_freeze(campaign=campaign, user=request.user, **data.validated_data)
        return Response(serializers.QrelsVersionSerializer(version).data, status=status.HTTP_201_CREATED)


class QrelsDownload(CampaignScoped, APIView):
    """Download a frozen qrels version byte for byte (lead only)."""

    @extend_schema(responses={(200, "text/plain"): str})
    def get(self, request: Request, campaign_id: int, number: int) -> HttpResponse:
        campaign = self.campaign(lead_only=True)
        version = QrelsVersion.objects.filter(collection=campaign.collection, number=number).first()
        if version is None:
            raise exceptions.NotFound("No such qrels version.")
        response = HttpResponse(version.content, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.collection.slug}-qrels-v{number}.txt"'
        response["X-Checksum-SHA256"] = version.checksum
        return response


class PrelsDownload(CampaignScoped, APIView):
    """Download the prels of a campaign on a sampled pool under ?rule= (lead only; 400 not_sampled otherwise).

    One line per pooled document, ``qid docno grade stratum prob``: grade -1 for a document the
    sample did not draw or that is not judged yet. The input of infAP, xinfAP and infNDCG.
    """

    @extend_schema(parameters=[serializers.PrelsQuerySerializer], responses={(200, "text/plain"): str})
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        campaign = self.campaign(lead_only=True)
        query = serializers.PrelsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rule = query.validated_data["rule"]
        prels = campaign_prels(campaign=campaign, rule=rule)
        response = HttpResponse(prels.text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-prels-{rule}.txt"'
        return response


class JudgmentsExport(CampaignScoped, APIView):
    """Download every judgment of the campaign as CSV or JSONL (lead only)."""

    @extend_schema(responses={(200, "text/csv"): str})
    def get(self, request: Request, campaign_id: int, fmt: str) -> HttpResponseBase:
        campaign = self.campaign(lead_only=True)
        if fmt not in EXPORT_TYPES:
            raise exceptions.NotFound("Unknown export format; use csv or jsonl.")
        return streaming_download(judgments_lines(campaign=campaign, fmt=fmt),
                                  filename=f"campaign-{campaign.pk}-judgments.{fmt}", content_type=EXPORT_TYPES[fmt])


class Dashboard(CampaignScoped, APIView):
    """Return the campaign dashboard's data: progress, throughput, cost, assessors, agreement (lead only)."""

    @extend_schema(parameters=[serializers.DashboardQuerySerializer], responses=serializers.DashboardSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        query = serializers.DashboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        options = query.validated_data
        data = campaign_dashboard(campaign=campaign, stat=choice(options["stat"]), binary=options["binary"],
                                  rate=options["rate"], heatmap=options["heatmap"],
                                  include_cannot_judge=options["cannot_judge"])
        return Response(serializers.DashboardSerializer(data).data)


class Rejudge(CampaignScoped, APIView):
    """Raise the required judgments of disagreed pairs by one (lead only; idempotent by token; audited)."""

    @extend_schema(request=serializers.RejudgeSerializer, responses=serializers.RejudgeResultSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        data = serializers.RejudgeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = rejudge_request(campaign=campaign, user=request.user, token=data.validated_data["token"],
                                 topic=data.validated_data["topic"] or None,
                                 assessors=tuple(data.validated_data["assessors"]))
        forget_stamp(campaign)
        return Response({"raised": list(result.raised), "skipped": list(result.skipped), "replay": result.replay})


class AssessorBlock(CampaignScoped, APIView):
    """Block or unblock one assessor of the campaign (lead only; audited; an unblock waives the gold check)."""

    @extend_schema(request=serializers.AssessorBlockSerializer, responses=serializers.AssessorQualitySerializer)
    def post(self, request: Request, campaign_id: int, assessor_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        data = serializers.AssessorBlockSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assessor = Assessor.objects.select_related("user", "campaign").filter(campaign=campaign, pk=assessor_id).first()
        if assessor is None:
            raise exceptions.NotFound("No such assessor in this campaign.")
        if data.validated_data["action"] == "block":
            changed = assessor_block(assessor=assessor, user=request.user, reason=data.validated_data["reason"])
        else:
            changed = assessor_unblock(assessor=assessor, user=request.user)
        forget_stamp(campaign)
        assessor.refresh_from_db(fields=["blocked", "blocked_reason", "blocked_at", "gold_check_waived"])
        return Response(serializers.AssessorQualitySerializer({
            "id": assessor.pk, "name": str(assessor), "kind": assessor.kind, "blocked": assessor.blocked,
            "blocked_reason": assessor.blocked_reason, "blocked_at": assessor.blocked_at,
            "gold_check_waived": assessor.gold_check_waived, "changed": changed}).data)


class CampaignStatus(CampaignScoped, APIView):
    """Pause, resume or finish a campaign (lead only; audited; leases are dropped when it stops)."""

    @extend_schema(request=serializers.CampaignStatusSerializer, responses=serializers.CampaignStatusResultSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign(lead_only=True)
        data = serializers.CampaignStatusSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        before = campaign.status
        campaign_set_status(campaign=campaign, status=data.validated_data["status"], user=request.user)
        return Response(serializers.CampaignStatusResultSerializer(
            {"id": campaign.pk, "status": campaign.status, "changed": campaign.status != before}).data)


class JudgmentsImport(APIView):
    """Import a file of per-assessor labels into an imported campaign (leads of the collection only)."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=serializers.JudgmentsImportSerializer, responses={201: dict})
    def post(self, request: Request, slug: str) -> Response:
        collection = _led_collection(request, slug)
        data = serializers.JudgmentsImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        summary = judgments_import(collection=collection, source=data.validated_data["file"],
                                   campaign_name=data.validated_data["campaign"], user=request.user,
                                   format=data.validated_data.get("format") or None)
        return Response({"campaign": summary.details["campaign_id"], "campaign_name": summary.details["campaign"],
                         "judgments": summary.created, "rows": summary.lines,
                         "revisions": summary.details["revisions"], "new_pairs": summary.details["new_pairs"],
                         "new_assessors": summary.details["new_assessors"], "warnings": summary.warnings},
                        status=status.HTTP_201_CREATED)

