"""Pages of adaptive judging (stopping aid) and the budget planner."""
from django.urls import path

from judging.views import adaptive

urlpatterns: list = [
    path("c/<slug:slug>/campaigns/<int:campaign_id>/stopping/", adaptive.campaign_stopping, name="campaign-stopping"),
]
