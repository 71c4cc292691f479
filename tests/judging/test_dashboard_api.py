"""GET /api/campaigns/<id>/dashboard/: the dashboard as JSON for leads, refused for everyone else."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judging.dashboard.choices import choice
from judging.dashboard.selectors import campaign_dashboard
from tests.judging.test_dashboard_views import GRADES, judge_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(make_campaign, alice, bob):
    campaign = make_campaign(overlap="replicate", judgments_per_pair=2)
    judge_all(campaign, [alice, bob])
    return campaign


def test_lead_gets_the_dashboard_json(judged, lead):
    api = APIClient()
    api.force_authenticate(lead)
    response = api.get(reverse("api-campaign-dashboard", args=[judged.pk]), {"stat": "cohen_quadratic", "rate": 30})
    assert response.status_code == 200
    body = response.json()
    assert body["statistic"]["key"] == "cohen_quadratic" and body["estimate"]["rate"] == 30
    assert body["progress"]["judged"] == 40 and len(body["matrix"]["cells"]) == 4
    direct = campaign_dashboard(campaign=judged, stat=choice("cohen_quadratic"))
    assert body["matrix"]["cells"][1]["value"] == pytest.approx(direct["matrix"]["cells"][1]["value"])
    assert [a["name"] for a in body["assessors"]] == ["alice", "bob"]
    assert {t["qid"] for t in body["topics"]} == {"401", "402", "403", "404"}


def test_bad_options_are_a_400(judged, lead):
    api = APIClient()
    api.force_authenticate(lead)
    assert api.get(reverse("api-campaign-dashboard", args=[judged.pk]), {"stat": "vibes"}).status_code == 400
    assert api.get(reverse("api-campaign-dashboard", args=[judged.pk]), {"rate": -1}).status_code == 400


def test_dashboard_api_refuses_everyone_but_leads(judged, alice, mallory):
    target = reverse("api-campaign-dashboard", args=[judged.pk])
    api = APIClient()
    anonymous = api.get(target)
    assert anonymous.status_code in (401, 403) and anonymous.json()["code"] == "not_authenticated"
    api.force_authenticate(alice)
    assert api.get(target).status_code == 403
    api.force_authenticate(mallory)
    assert api.get(target).status_code == 404
    api.force_authenticate(alice)
    assert api.get(reverse("api-campaign-dashboard", args=[999999])).status_code == 404


def test_grades_fixture_is_on_the_scale(judged):
    assert set(GRADES["alice"]) <= set(judged.collection.grades)


def test_conflicts_api_filters_by_topic_and_assessors(judged, lead, alice, bob):
    from tests.judging.conftest import expert

    api = APIClient()
    api.force_authenticate(lead)
    target = reverse("api-campaign-conflicts", args=[judged.pk])
    every = api.get(target).json()
    disputed = [p for p in range(20) if GRADES["alice"][p] != GRADES["bob"][p]]
    assert len(every) == len(disputed)
    topic = api.get(target, {"topic": "402"}).json()
    assert {row["qid"] for row in topic} == {"402"} and len(topic) == sum(1 for p in disputed if 5 <= p < 10)
    a, b = expert(judged, alice), expert(judged, bob)
    assert len(api.get(f"{target}?assessor={a.pk}&assessor={b.pk}").json()) == len(disputed)
    assert api.get(f"{target}?assessor=999999").json() == []
    assert api.get(f"{target}?assessor=x").status_code == 400
