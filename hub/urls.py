"""The hub's one page, at the URL it has always had."""
from django.urls import path

from hub import views

urlpatterns = [
    path("judge/", views.my_campaigns, name="my-campaigns"),
]
