"""Preference API: a collection's campaigns (list, start one), a campaign's results and status (leads only)."""
from __future__ import annotations

from dataclasses import asdict

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from collections_app.access import collection_for_user
from preferences import access, serializers
from preferences.plan_serializer import PrefCampaignCreateSerializer
from preferences.services.campaigns import campaign_set_status, campaign_start
from preferences.services.results import campaign_results


def _tally(t) -> dict:
    return {**asdict(t), "n": t.n}


def _summary(campaign, items: int) -> dict:
    return {"id": campaign.pk, "name": campaign.name, "kind": campaign.kind, "status": campaign.status, "items": items}


class CampaignListAPI(APIView):
    """List a collection's preference campaigns, or start one with the lead's form's options (leads only)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=serializers.CampaignSummarySerializer(many=True))
    def get(self, request, slug):
        collection = collection_for_user(request.user, slug, lead_only=True)
        campaigns = collection.pref_campaigns.annotate(n_items=Count("items"))
        return Response(serializers.CampaignSummarySerializer([_summary(c, c.n_items) for c in campaigns],
                                                              many=True).data)

    @extend_schema(request=PrefCampaignCreateSerializer, responses={201: serializers.CampaignSummarySerializer})
    def post(self, request, slug):
        """Start a campaign: outsiders get 404 and assessors 403 before any field is looked at; problems
        with what is judged or the options are 400 field errors with the form's messages."""
        collection = collection_for_user(request.user, slug, lead_only=True)
        data = PrefCampaignCreateSerializer(data=request.data, collection=collection)
        data.is_valid(raise_exception=True)
        campaign = campaign_start(collection=collection, user=request.user, **data.validated_data)
        return Response(serializers.CampaignSummarySerializer(_summary(campaign, campaign.items.count())).data,
                        status=status.HTTP_201_CREATED)


class ResultsAPI(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=serializers.ResultsSerializer)
    def get(self, request, campaign_id):
        campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
        r = campaign_results(campaign)
        agreement = None
        if r.agreement is not None:
            g = r.agreement
            agreement = {"statistic": "krippendorff", "value": g.value, "n_items": g.n_items,
                         "raw_agreement": g.raw_agreement, "ci_low": g.ci_low, "ci_high": g.ci_high,
                         "undefined_reason": g.undefined_reason}
        return Response(serializers.ResultsSerializer({
            "id": campaign.pk, "name": campaign.name, "kind": campaign.kind,
            "system_a": campaign.run_a.tag if campaign.run_a else "A",
            "system_b": campaign.run_b.tag if campaign.run_b else "B",
            "overall": _tally(r.overall), "topic_votes": _tally(r.topic_votes),
            "per_topic": {qid: _tally(t) for qid, t in r.per_topic.items()},
            "position_bias": _tally(r.position), "agreement": agreement,
            "gold": {"correct": r.gold_correct, "answered": r.gold_answered},
            "excluded": {"judgments": r.excluded_judgments, "gold": r.excluded_gold,
                         "assessors": r.excluded_assessors},
            "assessors": [{"id": a.id, "name": a.name, "kind": a.kind, "judgments": a.judgments,
                           "gold_correct": a.gold_correct, "gold_answered": a.gold_answered,
                           "median_seconds": a.median_seconds, "blocked": a.blocked,
                           "blocked_reason": a.blocked_reason} for a in r.assessors],
        }).data)


class StatusAPI(APIView):
    """Close or reopen a preference campaign (leads of its collection only)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=serializers.StatusSerializer, responses=serializers.StatusResultSerializer)
    def post(self, request, campaign_id):
        campaign = access.campaign_for_user(request.user, campaign_id, lead_only=True)
        body = serializers.StatusSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        changed = campaign_set_status(campaign=campaign, status=body.validated_data["status"], user=request.user)
        return Response(serializers.StatusResultSerializer(
            {"id": campaign.pk, "status": campaign.status, "changed": changed}).data)
