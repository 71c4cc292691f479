"""Model-assessor pages, under a campaign of a collection."""
from django.urls import path

from model_assessors import views

campaign = "c/<slug:slug>/campaigns/<int:campaign_id>/models/"
urlpatterns = [
    path(campaign, views.judges_page, name="model-judges"),
    path(campaign + "calibration/", views.calibration_page, name="model-calibration"),
    path(campaign + "order/", views.order_by_uncertainty, name="model-order"),
    path(campaign + "<int:judge_id>/", views.judge_page, name="model-judge"),
    path(campaign + "<int:judge_id>/run/", views.run_start_view, name="model-run-start"),
    path(campaign + "runs/<int:run_id>/cancel/", views.run_cancel_view, name="model-run-cancel"),
    path(campaign + "runs/<int:run_id>/progress.json", views.run_progress, name="model-run-progress"),
]
