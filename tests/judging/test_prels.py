"""Prels of a campaign on a sampled pool: the exact text, its downloads, and who may fetch them.

The case (tests/evaluation/sampled_case.py) is a real sampled pool built by ``pool_build`` from
two runs over two topics, with a campaign whose assessor labels nine of the eleven drawn pairs.
"""
from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from collections_app.models import PoolPair, Run
from judging.services.prels import campaign_prels
from judging.services.qrels import final_labels, qrels_text
from metrics.sampling import parse_prels
from tests.conftest import PASSWORD
from tests.evaluation.sampled_case import DRAWN, LABELS, PRELS_TEXT, build_sampled_case
from tests.judging.conftest import build_pool

pytestmark = pytest.mark.django_db


@pytest.fixture
def sampled(collection, lead, alice, tmp_path):
    return build_sampled_case(collection, lead=lead, assessors=[alice], tmp_path=tmp_path)


@pytest.fixture
def ordinary(make_campaign):
    """A campaign on the judging tests' depth pool (not sampled)."""
    return make_campaign(name="depth campaign")


def lines(text: str, qid: str, docno: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"{qid} {docno} "))


# --- the service ---------------------------------------------------------------------------------

def test_the_pool_stores_exactly_the_drawn_pairs(sampled):
    stored = {}
    for qid, docno in PoolPair.objects.filter(pool=sampled.pool).values_list("topic__qid", "docno"):
        stored.setdefault(qid, set()).add(docno)
    assert stored == DRAWN


def test_prels_text_of_a_small_sampled_campaign_is_exact(sampled):
    prels = campaign_prels(campaign=sampled, rule="majority")
    assert prels.text == PRELS_TEXT
    assert (prels.topics, prels.pooled, prels.sampled, prels.judged) == (2, 17, 11, 9)
    assert parse_prels(prels.text) == prels.prels


def test_every_rule_gives_the_judged_grades_and_unjudged_drawn_pairs_stay_minus_one(sampled):
    for rule in ("primary", "majority", "adjudicated"):
        prels = campaign_prels(campaign=sampled, rule=rule).prels
        assert {(q, d): p.grade for q, docs in prels.items() for d, p in docs.items() if p.judged} == LABELS
        assert prels["7"]["d06"].grade == prels["12"]["e2"].grade == -1  # drawn, not judged yet


def test_a_label_added_later_appears_in_the_prels(sampled, alice):
    from judging.models import Assessor, Item
    from judging.services.judgments import judgment_submit

    item = Item.objects.get(campaign=sampled, pair__docno="d06")
    judgment_submit(assessor=Assessor.objects.get(campaign=sampled, user=alice), item=item, grade=2,
                    active_seconds=1.0, client_token="late")
    assert lines(campaign_prels(campaign=sampled, rule="majority").text, "7", "d06") == "7 d06 2 3-6 0.5"


def test_a_non_sampled_campaign_gets_a_clear_error(ordinary):
    with pytest.raises(ValidationError) as error:
        campaign_prels(campaign=ordinary, rule="majority")
    assert error.value.code == "not_sampled"
    assert "not a sampled pool" in error.value.messages[0] and "'pool'" in error.value.messages[0]


def test_pairs_left_out_as_already_judged_take_the_imported_grade(collection, lead, alice, tmp_path):
    # d05 and d08 are drawn but were judged in imported qrels, so the pool left them out; d03 was
    # not drawn, so its imported grade must not enter (its probability describes the draw only).
    imported = {("7", "d05"): 2, ("7", "d08"): -1, ("7", "d03"): 2}
    labels = {key: grade for key, grade in LABELS.items() if key not in imported}
    campaign = build_sampled_case(collection, lead=lead, assessors=[alice], tmp_path=tmp_path, labels=labels,
                                  imported=imported)
    assert not PoolPair.objects.filter(pool=campaign.pool, docno__in=["d05", "d08"]).exists()
    text = campaign_prels(campaign=campaign, rule="majority").text
    assert lines(text, "7", "d05") == "7 d05 2 3-6 0.5"
    assert lines(text, "7", "d08") == "7 d08 0 3-6 0.5"  # a negative grade is judged non-relevant, not -1
    assert lines(text, "7", "d03") == "7 d03 -1 3-6 0.5"
    assert text.replace("7 d05 2 ", "7 d05 1 ") == PRELS_TEXT


def test_a_drawn_pair_serving_as_gold_keeps_its_known_grade(collection, lead, alice, tmp_path):
    campaign = build_sampled_case(collection, lead=lead, assessors=[alice], tmp_path=tmp_path,
                                  labels={k: g for k, g in LABELS.items() if k != ("7", "d01")},
                                  imported={("7", "d01"): 3}, exclude_judged=False, gold_qrels="prior", gold_rate=0.1)
    assert campaign.items.get(is_gold=True).pair.docno == "d01"
    assert ("7", "d01") not in final_labels(campaign=campaign, rule="majority")
    text = campaign_prels(campaign=campaign, rule="majority").text
    assert lines(text, "7", "d01") == "7 d01 3 1-2 1"


def test_a_pool_whose_runs_changed_is_refused(sampled):
    Run.objects.get(collection=sampled.collection, tag="runB").delete()
    with pytest.raises(ValidationError) as error:
        campaign_prels(campaign=sampled, rule="majority")
    assert error.value.code == "sample_changed"


# --- the page download ---------------------------------------------------------------------------

def page_url(campaign, rule="majority"):
    return reverse("campaign-prels-download", args=[campaign.collection.slug, campaign.pk]) + f"?rule={rule}"


def test_lead_downloads_prels_from_the_qrels_page(client, sampled, lead):
    client.force_login(lead)
    page = client.get(reverse("campaign-qrels", args=[sampled.collection.slug, sampled.pk])).content.decode()
    assert 'id="prels"' in page and page_url(sampled, "adjudicated") in page
    response = client.get(page_url(sampled))
    assert response.status_code == 200 and response.content.decode() == PRELS_TEXT
    assert response["Content-Type"].startswith("text/plain")
    assert f'campaign-{sampled.pk}-prels-majority.txt' in response["Content-Disposition"]
    default = client.get(reverse("campaign-prels-download", args=[sampled.collection.slug, sampled.pk]))
    assert default.content.decode() == PRELS_TEXT  # no rule: adjudicated (= majority without adjudications)
    assert client.get(page_url(sampled, "vibes")).status_code == 404


def test_the_qrels_page_of_an_ordinary_campaign_offers_no_prels_and_the_url_explains(client, ordinary, lead):
    client.force_login(lead)
    qrels_page = reverse("campaign-qrels", args=[ordinary.collection.slug, ordinary.pk])
    assert 'id="prels"' not in client.get(qrels_page).content.decode()
    response = client.get(page_url(ordinary), follow=True)
    assert response.redirect_chain == [(qrels_page, 302)]
    assert "not a sampled pool" in response.content.decode()


def test_prels_page_download_permissions(client, sampled, collection, alice, bob, mallory):
    url = page_url(sampled)
    response = client.get(url)
    assert response.status_code == 302 and "login" in response["Location"]
    for user, status in ((alice, 403), (bob, 403), (mallory, 404)):
        client.force_login(user)
        assert client.get(url).status_code == status, user.username
    client.force_login(collection.memberships.get(role="lead").user)
    missing = reverse("campaign-prels-download", args=[collection.slug, 999999])
    assert client.get(missing).status_code == 404


# --- the API -------------------------------------------------------------------------------------

def api_url(campaign, query="?rule=majority"):
    return reverse("api-campaign-prels", args=[campaign.pk]) + query


def test_api_prels_download(sampled, ordinary, lead):
    api = APIClient()
    api.force_authenticate(lead)
    response = api.get(api_url(sampled))
    assert response.status_code == 200 and response.content.decode() == PRELS_TEXT
    assert response["Content-Type"].startswith("text/plain")
    bad = api.get(api_url(sampled, "?rule=vibes"))
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_choice"
    refused = api.get(api_url(ordinary))
    assert refused.status_code == 400 and refused.json()["code"] == "not_sampled"
    assert "not a sampled pool" in refused.json()["detail"]


def test_api_prels_permissions(client, sampled, alice, mallory):
    url = api_url(sampled)
    anonymous = client.get(url)
    assert anonymous.status_code in (401, 403) and anonymous.json()["code"] == "not_authenticated"
    client.login(username=alice.username, password=PASSWORD)
    assert client.get(url).status_code == 403
    client.logout()
    client.login(username=mallory.username, password=PASSWORD)
    outsider = client.get(url)
    assert outsider.status_code == 404 and outsider.json()["code"] == "not_found"
    assert client.get(reverse("api-campaign-prels", args=[999999])).status_code == 404


# --- the command ---------------------------------------------------------------------------------

def export(*args) -> str:
    out = io.StringIO()
    call_command("export_qrels", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_export_qrels_prels_option(sampled, tmp_path):
    slug = sampled.collection.slug
    assert export(slug, "--campaign", str(sampled.pk), "--prels", "--rule", "majority") == PRELS_TEXT
    target = tmp_path / "campaign.prels"
    err = io.StringIO()
    call_command("export_qrels", slug, "--prels", "-o", str(target), stdout=io.StringIO(), stderr=err)
    assert target.read_text() == PRELS_TEXT
    assert "17 pooled documents, 11 sampled, 9 judged, 2 topics" in err.getvalue()
    # without --prels the command still prints the campaign's qrels
    assert export(slug, "--rule", "majority") == qrels_text(final_labels(campaign=sampled, rule="majority"))


def test_export_qrels_prels_refuses_ordinary_campaigns_and_mixed_options(sampled, collection, lead):
    pool = build_pool(collection, name="depth", topics=1, docs=2)
    from judging.services.campaigns import campaign_create

    ordinary = campaign_create(collection=collection, pool=pool, name="plain", created_by=lead, assessors=[])
    with pytest.raises(CommandError, match="not a sampled pool"):
        export(collection.slug, "--campaign", str(ordinary.pk), "--prels")
    with pytest.raises(CommandError, match="cannot be combined"):
        export(collection.slug, "--prels", "--judgments", "csv")
