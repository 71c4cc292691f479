"""Judging pages: experts' workspace, crowd batch pages, leads' campaign pages."""
from importlib import import_module

from django.urls import path


def _view(name: str):
    """Return a view that imports ``judging.views.<module>.<function>`` on first use.

    The views depend on judging's services; importing them lazily keeps the project's
    URLconf importable while those services are still being written in parallel.
    """
    module_name, function_name = name.rsplit(".", 1)

    def view(request, *args, **kwargs):
        return getattr(import_module(f"judging.views.{module_name}"), function_name)(request, *args, **kwargs)

    view.__name__ = function_name
    return view


campaigns = "c/<slug:slug>/campaigns/"
campaign = campaigns + "<int:campaign_id>/"
urlpatterns = [
    path("judge/", _view("assessor.my_campaigns"), name="my-campaigns"),
    path("judge/<int:campaign_id>/", _view("assessor.judge_page"), name="judge"),
    path("judge/<int:campaign_id>/state.json", _view("assessor.judge_state"), name="judge-state"),
    path("judge/<int:campaign_id>/submit.json", _view("assessor.judge_submit"), name="judge-submit"),
    path("judge/<int:campaign_id>/back.json", _view("assessor.judge_back"), name="judge-back"),
    path("crowd/<str:token>/", _view("crowd.crowd_entry"), name="crowd-entry"),
    path("crowd/<str:token>/consent/", _view("crowd.crowd_consent_page"), name="crowd-consent"),
    path("crowd/<str:token>/judge/", _view("crowd.crowd_judge_page"), name="crowd-judge"),
    path("crowd/<str:token>/state.json", _view("crowd.crowd_state"), name="crowd-state"),
    path("crowd/<str:token>/submit.json", _view("crowd.crowd_submit"), name="crowd-submit"),
    path("crowd/<str:token>/back.json", _view("crowd.crowd_back"), name="crowd-back"),
    path("crowd/<str:token>/complete/", _view("crowd.crowd_complete_page"), name="crowd-complete"),
    path("crowd/<str:token>/stopped/", _view("crowd.crowd_stopped"), name="crowd-stopped"),
    path(campaigns, _view("lead.campaign_list"), name="campaign-list"),
    path(campaigns + "new/", _view("lead.campaign_new"), name="campaign-new"),
    path(campaign, _view("lead.campaign_detail"), name="campaign-detail"),
    path(campaign + "conflicts/", _view("lead.campaign_conflicts"), name="campaign-conflicts"),
    path(campaign + "qrels/", _view("lead.campaign_qrels"), name="campaign-qrels"),
    path(campaign + "qrels/v<int:number>.txt", _view("lead.qrels_download"), name="campaign-qrels-download"),
    path(campaign + "judgments.<str:fmt>", _view("lead.judgments_download"), name="campaign-judgments-export"),
]
