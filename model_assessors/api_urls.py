"""Model-assessor API routes, mounted under /api/."""
from django.urls import path

from model_assessors import api

prefix = "campaigns/<int:campaign_id>/model-judges/"
urlpatterns = [
    path(prefix, api.JudgeList.as_view(), name="api-model-judges"),
    path(prefix + "<int:judge_id>/runs/", api.RunList.as_view(), name="api-model-runs"),
    path(prefix + "<int:judge_id>/calibration/", api.Calibration.as_view(), name="api-model-calibration"),
    path("campaigns/<int:campaign_id>/model-runs/<int:run_id>/", api.RunDetail.as_view(), name="api-model-run"),
]
