"""Lead pages for collections, runs and pools."""
from django.urls import path

from collections_app import views

urlpatterns = [
    path("", views.home, name="home"),
]
