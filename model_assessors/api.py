"""The model-assessor API: list and add judges, start runs, follow them, read the calibration summary.

Leads only (the judging access gate: outsiders 404, other members 403); judges and runs of another
campaign are 404. Validate → call a service → serialize.
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.access import campaign_for_user
from model_assessors.models import ModelJudge, ModelRun
from model_assessors.report import judge_report
from model_assessors.serializers import JudgeSerializer, RunStartSerializer
from model_assessors.services.judges import judge_create
from model_assessors.services.runs import run_start
from model_assessors.views import run_payload


def _result(result) -> dict | None:
    if result is None:
        return None
    return {"value": result.value, "ci_low": result.ci_low, "ci_high": result.ci_high, "n_items": result.n_items,
            "undefined_reason": result.undefined_reason}


class _LeadScoped:
    kwargs: dict
    request: Request

    def campaign(self):
        return campaign_for_user(self.request.user, self.kwargs["campaign_id"], lead_only=True)

    def judge(self) -> ModelJudge:
        return get_object_or_404(ModelJudge.objects.select_related("campaign__collection", "assessor"),
                                 pk=self.kwargs["judge_id"], campaign=self.campaign())


class JudgeList(_LeadScoped, APIView):
    """List the campaign's model judges, or add one (its default prompt follows the collection's scale)."""

    @extend_schema(responses=JudgeSerializer(many=True))
    def get(self, request: Request, campaign_id: int) -> Response:
        judges = ModelJudge.objects.filter(campaign=self.campaign())
        return Response(JudgeSerializer(judges, many=True).data)

    @extend_schema(request=JudgeSerializer, responses={201: JudgeSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.campaign()
        serializer = JudgeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        judge = judge_create(campaign=campaign, name=data.pop("name"), base_url=data.pop("base_url"),
                             model=data.pop("model"), api_key_env=data.pop("api_key_env", ""), user=request.user, **data)
        return Response(JudgeSerializer(judge).data, status=status.HTTP_201_CREATED)


class RunList(_LeadScoped, APIView):
    """List a judge's runs, newest first, or start one (``resume``: replace a run whose worker stopped)."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: int, judge_id: int) -> Response:
        return Response([run_payload(r) for r in self.judge().runs.all()[:50]])

    @extend_schema(request=RunStartSerializer, responses={202: dict})
    def post(self, request: Request, campaign_id: int, judge_id: int) -> Response:
        judge = self.judge()
        serializer = RunStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = run_start(judge=judge, user=request.user, resume=serializer.validated_data["resume"])
        return Response(run_payload(run), status=status.HTTP_202_ACCEPTED)


class RunDetail(_LeadScoped, APIView):
    """Show one run's status and progress."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: int, run_id: int) -> Response:
        run = get_object_or_404(ModelRun, pk=run_id, judge__campaign=self.campaign())
        return Response(run_payload(run))


class Calibration(_LeadScoped, APIView):
    """Summarise a judge against the humans: κ with intervals per human, per topic, the confusion matrix, the planner."""

    @extend_schema(responses=dict)
    def get(self, request: Request, campaign_id: int, judge_id: int) -> Response:
        report = judge_report(self.judge())
        reference = report.against_reference
        return Response({
            "judge": report.judge.pk, "labels": report.n_labels,
            "against_reference": None if reference is None else {
                "n_items": reference.n_items, "kappa": _result(reference.kappa),
                "kappa_linear": _result(reference.kappa_linear), "kappa_binary": _result(reference.kappa_binary),
                "percent": _result(reference.percent)},
            "against_humans": [{"assessor": name, "n_items": c.n_items, "kappa": _result(c.kappa),
                                "kappa_binary": _result(c.kappa_binary), "percent": _result(c.percent)}
                               for name, c in report.against_humans],
            "topics": [{"qid": qid, "kappa": _result(graded), "kappa_binary": _result(binary)}
                       for qid, graded, binary in report.topics],
            "confusion": report.confusion,
            "plans": [{"target": p.target, "more_judgments": p.more_judgments, "current_kappa": p.current_kappa}
                      for p in report.plans],
            "pairs_for_interval": report.pairs_for_interval,
        })
