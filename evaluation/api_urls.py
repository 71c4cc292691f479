"""Evaluation API routes, mounted under /api/."""
from django.urls import path

from evaluation import api

prefix = "collections/<slug:slug>/evaluation/"
urlpatterns: list = [
    path(prefix + "leaderboard/", api.Leaderboard.as_view(), name="api-evaluation-leaderboard"),
    path(prefix + "runs/<path:tag>/topics/", api.RunTopics.as_view(), name="api-evaluation-run-topics"),
    path(prefix + "significance/", api.Significance.as_view(), name="api-evaluation-significance"),
    path(prefix + "stability/", api.Stability.as_view(), name="api-evaluation-stability"),
    path(prefix + "pool-bias/", api.PoolBias.as_view(), name="api-evaluation-pool-bias"),
]
