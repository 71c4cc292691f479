"""Evaluation pages (leaderboard, per-topic view, curves, significance, stability, pool bias)."""
from django.urls import path

from evaluation import exports, views

urlpatterns: list = [
    path("c/<slug:slug>/evaluation/", views.leaderboard_page, name="evaluation-leaderboard"),
    path("c/<slug:slug>/evaluation/per-topic.<str:fmt>", exports.per_topic_download, name="evaluation-per-topic"),
    path("c/<slug:slug>/evaluation/runs/<path:tag>/", views.run_topics_page, name="evaluation-run-topics"),
    path("c/<slug:slug>/evaluation/significance/", views.significance_page, name="evaluation-significance"),
    path("c/<slug:slug>/evaluation/stability/", views.stability_page, name="evaluation-stability"),
    path("c/<slug:slug>/evaluation/pool-bias/", views.pool_bias_page, name="evaluation-pool-bias"),
]
