"""Judging API routes, mounted under /api/."""
from django.urls import path

from judging import api

prefix = "campaigns/<int:campaign_id>/"
urlpatterns = [
    path("campaigns/", api.CampaignList.as_view(), name="api-campaigns"),
    path("collections/<slug:slug>/judgments/import/", api.JudgmentsImport.as_view(), name="api-judgments-import"),
    path(prefix, api.CampaignDetail.as_view(), name="api-campaign"),
    path(prefix + "next/", api.NextItem.as_view(), name="api-campaign-next"),
    path(prefix + "judgments/", api.SubmitJudgment.as_view(), name="api-campaign-submit"),
    path(prefix + "judgments/previous/", api.PreviousJudgment.as_view(), name="api-campaign-previous"),
    path(prefix + "status/", api.CampaignStatus.as_view(), name="api-campaign-status"),
    path(prefix + "dashboard/", api.Dashboard.as_view(), name="api-campaign-dashboard"),
    path(prefix + "rejudge/", api.Rejudge.as_view(), name="api-campaign-rejudge"),
    path(prefix + "assessors/<int:assessor_id>/block/", api.AssessorBlock.as_view(), name="api-campaign-assessor-block"),
    path(prefix + "progress/", api.Progress.as_view(), name="api-campaign-progress"),
    path(prefix + "conflicts/", api.Conflicts.as_view(), name="api-campaign-conflicts"),
    path(prefix + "adjudications/", api.Adjudicate.as_view(), name="api-campaign-adjudicate"),
    path(prefix + "qrels/", api.QrelsVersions.as_view(), name="api-campaign-qrels"),
    path(prefix + "qrels/<int:number>/", api.QrelsDownload.as_view(), name="api-campaign-qrels-download"),
    path(prefix + "prels/", api.PrelsDownload.as_view(), name="api-campaign-prels"),
    path(prefix + "export/<str:fmt>/", api.JudgmentsExport.as_view(), name="api-campaign-export"),
]
