from django.urls import path

from ops import views

urlpatterns = [path("healthz", views.healthz, name="healthz")]
