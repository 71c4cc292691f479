"""Judging pages: experts' workspace, crowd batch pages, leads' campaign pages."""
from django.urls import path

from judging.views import assessor, crowd, dashboard, imports, lead, settings

campaigns = "c/<slug:slug>/campaigns/"
campaign = campaigns + "<int:campaign_id>/"
urlpatterns = [
    path("judge/<int:campaign_id>/", assessor.judge_page, name="judge"),
    path("judge/<int:campaign_id>/state.json", assessor.judge_state, name="judge-state"),
    path("judge/<int:campaign_id>/submit.json", assessor.judge_submit, name="judge-submit"),
    path("judge/<int:campaign_id>/back.json", assessor.judge_back, name="judge-back"),
    path("crowd/<str:token>/", crowd.crowd_entry, name="crowd-entry"),
    path("crowd/<str:token>/resume/<str:secret>/", crowd.crowd_resume, name="crowd-resume"),
    path("crowd/<str:token>/consent/", crowd.crowd_consent_page, name="crowd-consent"),
    path("crowd/<str:token>/judge/", crowd.crowd_judge_page, name="crowd-judge"),
    path("crowd/<str:token>/state.json", crowd.crowd_state, name="crowd-state"),
    path("crowd/<str:token>/submit.json", crowd.crowd_submit, name="crowd-submit"),
    path("crowd/<str:token>/back.json", crowd.crowd_back, name="crowd-back"),
    path("crowd/<str:token>/complete/", crowd.crowd_complete_page, name="crowd-complete"),
    path("crowd/<str:token>/stopped/", crowd.crowd_stopped, name="crowd-stopped"),
    path(campaigns, lead.campaign_list, name="campaign-list"),
    path(campaigns + "new/", lead.campaign_new, name="campaign-new"),
    path(campaigns + "import/", imports.judgments_import_page, name="judgments-import"),
    path(campaigns + "dashboard/", dashboard.collection_dashboard_page, name="collection-dashboard"),
    path(campaign, lead.campaign_detail, name="campaign-detail"),
    path(campaign + "status/", lead.campaign_status, name="campaign-status"),
    path(campaign + "keys/", settings.campaign_settings, name="campaign-settings"),
    path(campaign + "dashboard/", dashboard.campaign_dashboard_page, name="campaign-dashboard"),
    path(campaign + "rejudge/", dashboard.campaign_rejudge, name="campaign-rejudge"),
    path(campaign + "assessors/", dashboard.campaign_assessors_page, name="campaign-assessors"),
    path(campaign + "low-agreement/", dashboard.campaign_low_agreement_page, name="campaign-low-agreement"),
    path(campaign + "assessors/<int:assessor_id>/block/", dashboard.campaign_assessor_block,
         name="campaign-assessor-block"),
    path(campaign + "conflicts/", lead.campaign_conflicts, name="campaign-conflicts"),
    path(campaign + "qrels/", lead.campaign_qrels, name="campaign-qrels"),
    path(campaign + "qrels/v<int:number>.txt", lead.qrels_download, name="campaign-qrels-download"),
    path(campaign + "final-labels.csv", lead.final_labels_download, name="campaign-final-labels"),
    path(campaign + "final-labels.<str:fmt>", lead.final_labels_download, name="campaign-final-labels-export"),
    path(campaign + "qrels/v<int:number>.<str:fmt>", lead.qrels_download, name="campaign-qrels-export"),
    path(campaign + "prels.txt", lead.prels_download, name="campaign-prels-download"),
    path(campaign + "crowd-settings/", crowd.crowd_settings, name="campaign-crowd-settings"),
    path(campaign + "crowd-workers.csv", crowd.crowd_workers_download, name="campaign-crowd-workers"),
    path(campaign + "judgments.<str:fmt>", lead.judgments_download, name="campaign-judgments-export"),
]
