"""ir_measures names choose the same leaderboard measure as trec_eval names (API, command, selectors)."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from evaluation.leaderboard import IR_MEASURES_NAMES, NAME_TO_REQUEST, measure_name
from metrics.aliases import output_name

pytestmark = pytest.mark.django_db


def test_each_ir_measures_name_is_the_same_measure_for_metrics():
    for alias, name in IR_MEASURES_NAMES.items():
        assert name in NAME_TO_REQUEST and output_name(alias) == name
        assert measure_name(alias) == measure_name(name) == name
    assert measure_name("nonsense") is None


def test_significance_api_takes_an_ir_measures_name(scored, lead):
    api = APIClient()
    api.force_authenticate(lead)
    url = reverse("api-evaluation-significance", kwargs={"slug": scored.slug}) + "?runs=4&seed=1&measure="
    by_alias, by_name = api.get(url + "nDCG%4010").json(), api.get(url + "ndcg_cut_10").json()
    assert by_alias == by_name and by_alias["measure"] == "ndcg_cut_10"
    assert api.get(url + "ERR%4010").status_code == 400


def test_evaluate_command_takes_ir_measures_names(scored):
    def run(*measures):
        out = io.StringIO()
        call_command("evaluate", scored.slug, *[x for m in measures for x in ("-m", m)], stdout=out)
        return out.getvalue()
    assert run("nDCG@10", "AP") == run("ndcg_cut.10", "map")
