"""Evaluation API: results equal the services, permissions per endpoint, error shape, schema."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from evaluation.selectors import board
from tests.evaluation.conftest import RUNS

pytestmark = pytest.mark.django_db


def endpoints(slug):
    return {
        "leaderboard": reverse("api-evaluation-leaderboard", kwargs={"slug": slug}),
        "topics": reverse("api-evaluation-run-topics", kwargs={"slug": slug, "tag": "bm25.rm3"}),
        "significance": reverse("api-evaluation-significance", kwargs={"slug": slug}) + "?runs=4&seed=1",
        "stability": reverse("api-evaluation-stability", kwargs={"slug": slug}) + "?b=",
        "pool_bias": reverse("api-evaluation-pool-bias", kwargs={"slug": slug}) + "?by=group",
    }


@pytest.fixture
def api():
    return APIClient()


def stability_url(scored):
    token = f"set:{scored.qrels_sets.get().pk}"
    return reverse("api-evaluation-stability", kwargs={"slug": scored.slug}) + f"?a={token}&b={token}&measure=P_10"


def test_permissions_per_endpoint(api, scored, lead, alice, mallory):
    urls = endpoints(scored.slug)
    urls["stability"] = stability_url(scored)
    api.force_authenticate(lead)
    for name, url in urls.items():
        assert api.get(url).status_code == 200, name
    # Assessors are blind to systems by default: every evaluation endpoint refuses them ...
    api.force_authenticate(alice)
    for name, url in urls.items():
        assert api.get(url).status_code == 403, name
    # ... until a lead opens the collection's systems; stability and pool bias stay lead-only.
    scored.assessors_see_systems = True
    scored.save()
    for name, url in urls.items():
        assert api.get(url).status_code == (200 if name in ("leaderboard", "topics", "significance") else 403), name
    api.force_authenticate(mallory)
    for name, url in urls.items():
        response = api.get(url)
        assert response.status_code == 404 and response.json()["code"] == "not_found", name
    api.force_authenticate(None)
    for name, url in urls.items():
        assert api.get(url).status_code in (401, 403), name


def test_leaderboard_json_equals_board(api, scored, lead):
    api.force_authenticate(lead)
    data = api.get(endpoints(scored.slug)["leaderboard"] + "?sort=P_10&order=asc").json()
    assert [r["tag"] for r in data["runs"]] == [r.tag for r in board(scored, sort="P_10", descending=False).rows]
    assert sorted(r["tag"] for r in data["runs"]) == sorted(RUNS)
    assert all(len(r["curve"]) == 11 for r in data["runs"])
    assert data["relevance_level"] == 1 and data["source"]["token"].startswith("set:")


def test_pool_bias_and_stability_json(api, scored, lead):
    api.force_authenticate(lead)
    bias = api.get(endpoints(scored.slug)["pool_bias"].replace("by=group", "by=run") + "&depth=100").json()
    rows = {r["tag"]: r for r in bias["runs"]}
    assert rows["bm25.rm3"]["unique_relevant"] == 2 and rows["bm25.rm3"]["unique_by_topic"] == {"401": ["d5"], "402": ["e4"]}
    assert bias["removed"] == "unjudged" and bias["depth"] == 100
    stab = api.get(stability_url(scored)).json()
    assert stab["comparisons"][0]["swapped"] == [] and stab["comparisons"][0]["tau_ap"] == 1.0


def test_bad_inputs_get_coded_errors(api, scored, lead):
    api.force_authenticate(lead)
    url = endpoints(scored.slug)
    assert api.get(url["leaderboard"] + "?source=version:99").json()["code"] == "bad_source"
    assert api.get(url["leaderboard"] + "?sort=nope").status_code == 400
    assert api.get(url["stability"]).status_code == 400
    assert api.get(reverse("api-evaluation-run-topics", kwargs={"slug": scored.slug, "tag": "missing"})).json()["code"] == "bad_run"
    assert api.get(reverse("api-evaluation-stability", kwargs={"slug": scored.slug}) + "?campaign=999").json()["code"] == "bad_campaign"
