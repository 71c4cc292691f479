"""Preference judging API routes."""
from django.urls import path

from preferences import api

urlpatterns = [
    path("collections/<slug:slug>/preference-campaigns/", api.CampaignListAPI.as_view(), name="api-pref-campaigns"),
    path("preference-campaigns/<int:campaign_id>/results/", api.ResultsAPI.as_view(), name="api-pref-results"),
    path("preference-campaigns/<int:campaign_id>/status/", api.StatusAPI.as_view(), name="api-pref-status"),
]
