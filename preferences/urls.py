"""Preference judging pages (side-by-side and document-pair campaigns)."""
from django.urls import path

from preferences import views

urlpatterns = [
    path("c/<slug:slug>/preferences/", views.campaign_list, name="pref-campaign-list"),
    path("c/<slug:slug>/preferences/new/", views.campaign_new, name="pref-campaign-new"),
    path("preferences/<int:campaign_id>/", views.campaign_results, name="pref-campaign-results"),
    path("preferences/<int:campaign_id>/status/", views.campaign_status, name="pref-campaign-status"),
    path("preferences/<int:campaign_id>/prefs.txt", views.campaign_export, name="pref-campaign-export"),
    path("preferences/<int:campaign_id>/judgments.<str:fmt>", views.campaign_judgments, name="pref-campaign-judgments"),
    path("preferences/<int:campaign_id>/assessors/<int:assessor_id>/block/", views.assessor_block,
         name="pref-assessor-block"),
    path("preferences/<int:campaign_id>/judge/", views.judge, name="pref-judge"),
    path("pcrowd/<str:token>/", views.crowd_entry, name="pref-crowd"),
    path("pcrowd/<str:token>/judge/", views.crowd_judge, name="pref-crowd-judge"),
    path("pcrowd/<str:token>/resume/<str:secret>/", views.crowd_resume, name="pref-crowd-resume"),
    path("pcrowd/<str:token>/complete/", views.crowd_complete, name="pref-crowd-complete"),
    path("preferences/<int:campaign_id>/crowd-settings/", views.crowd_settings, name="pref-crowd-settings"),
    path("preferences/<int:campaign_id>/crowd-workers.csv", views.crowd_workers_download, name="pref-crowd-workers"),
]
