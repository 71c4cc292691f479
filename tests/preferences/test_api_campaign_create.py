"""POST /api/collections/<slug>/preference-campaigns/: the lead's form as an API, checked by the same plan."""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from preferences.forms import CampaignForm
from preferences.models import PrefCampaign, PrefItem
from tests.conftest import make_collection

pytestmark = pytest.mark.django_db

URL = reverse("api-pref-campaigns", args=["demo"])

FORM_DEFAULTS = {"depth": 10, "judgments_per_item": 1, "seed": 0, "gold_rate": 0, "gold_accuracy_threshold": 0,
                 "gold_min_answers": 3, "crowd_batch_size": 10, "lease_seconds": 600}


def create(client, user, body, url=URL):
    if user is not None:
        client.force_login(user)
    return client.post(url, data=json.dumps(body), content_type="application/json")


def sbs_body(chosen, **options):
    return {"name": "via api", "kind": "sbs", "run_a": "alpha", "run_b": "beta",
            "topics": [t.qid for t in chosen[:3]], **options}


def _stored(campaign: PrefCampaign) -> tuple[dict, list, list]:
    """A campaign's settings, assessors and items, without what names or dates it (placement hashes the name)."""
    skip = {"id", "name", "created_at", "crowd_token"}
    fields = {f.attname: getattr(campaign, f.attname) for f in PrefCampaign._meta.concrete_fields
              if f.attname not in skip}
    people = sorted(campaign.assessors.values_list("user__username", "kind"))
    items = list(PrefItem.objects.filter(campaign=campaign).order_by("position").values_list(
        "position", "topic__qid", "a_docnos", "b_docnos", "is_gold", "required_judgments"))
    return fields, people, items


def test_a_lead_starts_a_side_by_side_campaign_as_the_form_would(client, sbs, lead, alice):
    topics, run_a, run_b = sbs
    options = {"depth": 5, "judgments_per_item": 2, "seed": 4, "gold_rate": 0.3, "gold_accuracy_threshold": 0.6,
               "gold_min_answers": 2, "crowd_enabled": True, "crowd_batch_size": 4, "lease_seconds": 120,
               "crowd_completion_code": "CODE"}
    client.force_login(lead)
    page = client.post(reverse("pref-campaign-new", args=["demo"]), {
        **FORM_DEFAULTS, **options, "name": "via form", "kind": "sbs", "run_a": run_a.pk, "run_b": run_b.pk,
        "topics": [t.pk for t in topics[:3]], "gold_topics": [topics[3].pk], "assessors": [alice.pk]})
    assert page.status_code == 302, page.content.decode()[:2000]
    response = create(client, None, sbs_body(topics, gold_topics=[topics[3].qid], assessors=["alice"], **options))
    assert response.status_code == 201, response.content
    campaign = PrefCampaign.objects.get(name="via api")
    assert response.json() == {"id": campaign.pk, "name": "via api", "kind": "sbs", "status": "active", "items": 4}
    by_form = _stored(PrefCampaign.objects.get(name="via form"))
    by_api = _stored(campaign)
    assert by_api[0] == by_form[0] and by_api[1] == by_form[1]
    # left/right placement hashes the campaign's name: compare what each item shows, not which side
    assert [(p, q, sorted([a, b]), g, r) for p, q, a, b, g, r in by_api[2]] == [
        (p, q, sorted([a, b]), g, r) for p, q, a, b, g, r in by_form[2]]


def test_a_lead_starts_a_document_pair_campaign(client, sbs, lead):
    response = create(client, lead, {"name": "pairs", "kind": "pair", "pairs": [["501", "T1-D1", "T1-D2"]],
                                     "gold_pairs": [["502", "T2-D1", "T2-D60"]], "judgments_per_item": 2})
    assert response.status_code == 201, response.content
    campaign = PrefCampaign.objects.get(name="pairs")
    assert campaign.depth == 1 and campaign.judgments_per_item == 2
    assert sorted(campaign.items.values_list("is_gold", flat=True)) == [False, True]


@pytest.mark.parametrize("options, field", [
    ({"depth": 21}, "depth"),
    ({"judgments_per_item": 0}, "judgments_per_item"),
    ({"seed": -2**31 - 1}, "seed"),
    ({"gold_rate": 0.6}, "gold_rate"),
    ({"gold_accuracy_threshold": 2}, "gold_accuracy_threshold"),
    ({"gold_min_answers": 51}, "gold_min_answers"),
    ({"lease_seconds": 10}, "lease_seconds"),
    ({"crowd_batch_size": 0}, "crowd_batch_size"),
    ({"run_b": None}, "run_b"),
    ({"run_b": "alpha"}, "run_b"),
    ({"topics": []}, "topics"),
])
def test_a_rule_is_a_400_field_error_with_the_forms_message(client, sbs, lead, collection, options, field):
    topics, run_a, run_b = sbs
    response = create(client, lead, sbs_body(topics, **options))
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field]
    as_form = {"run_b": {"alpha": run_a.pk, None: ""}}  # the form names runs by id, and "" is none chosen
    form_data = {**FORM_DEFAULTS, "name": "x", "kind": "sbs", "run_a": run_a.pk, "run_b": run_b.pk,
                 "topics": [t.pk for t in topics[:3]],
                 **{k: as_form[k][v] if k in as_form else v for k, v in options.items()}}
    form = CampaignForm(form_data, collection=collection)
    assert not form.is_valid()
    assert errors[field] == form.errors[field]
    assert not PrefCampaign.objects.exists()


def test_a_pair_with_an_unknown_qid_is_refused_on_its_field_with_the_forms_message(client, sbs, lead, collection):
    response = create(client, lead, {"name": "pairs", "kind": "pair", "pairs": [["501", "T1-D1", "T1-D2"],
                                                                                  ["999", "T1-D1", "T1-D2"]]})
    assert response.status_code == 400
    form = CampaignForm({**FORM_DEFAULTS, "name": "pairs", "kind": "pair", "pairs": "501 T1-D1 T1-D2\n999 T1-D1 T1-D2"},
                        collection=collection)
    assert not form.is_valid()
    assert response.json()["errors"] == {"pairs": form.errors["pairs"]} == {
        "pairs": ["Pairs, line 2: expected 'qid docnoA docnoB' with a known qid."]}


def test_names_that_are_not_in_the_collection_are_field_errors(client, sbs, lead):
    topics = sbs[0]
    other = make_collection("other", lead=lead)
    from collections_app.models import Run

    Run.objects.create(collection=other, tag="gamma", checksum="g" * 8)
    response = create(client, lead, sbs_body(topics, run_a="gamma", topics=["501", "999"], assessors=["nobody"]))
    assert response.status_code == 400 and set(response.json()["errors"]) == {"run_a", "topics", "assessors"}


def test_a_taken_name_is_refused_by_the_database_rule(client, sbs, lead):
    topics = sbs[0]
    assert create(client, lead, sbs_body(topics)).status_code == 201
    response = create(client, None, sbs_body(topics))
    assert response.status_code == 400 and response.json()["code"] == "duplicate_name"
    assert PrefCampaign.objects.count() == 1


@pytest.mark.parametrize("who, status", [("alice", 403), ("mallory", 404), (None, 401)])
def test_only_a_lead_of_the_collection_may_start_one(client, sbs, who, status, request):
    user = request.getfixturevalue(who) if who else None
    response = create(client, user, sbs_body(sbs[0]))
    assert response.status_code == status
    assert not PrefCampaign.objects.exists()


def test_another_collections_lead_cannot_start_one_here(client, sbs, mallory):
    make_collection("theirs", lead=mallory)
    assert create(client, mallory, sbs_body(sbs[0])).status_code == 404
    assert create(client, None, sbs_body(sbs[0]), url=reverse("api-pref-campaigns", args=["nowhere"])).status_code == 404


def test_the_schema_describes_the_request_and_the_201_response():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    post = schema["paths"]["/api/collections/{slug}/preference-campaigns/"]["post"]
    request = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = schema["components"]["schemas"][request]
    assert set(fields["required"]) == {"name", "kind"}
    assert {"run_a", "topics", "pairs", "depth", "gold_min_answers", "assessors"} <= set(fields["properties"])
    assert set(post["responses"]) == {"201"}


def test_the_form_shows_a_taken_name_instead_of_failing(client, sbs, lead):
    topics, run_a, run_b = sbs
    assert create(client, lead, sbs_body(topics, name="taken")).status_code == 201
    page = client.post(reverse("pref-campaign-new", args=["demo"]), {
        **FORM_DEFAULTS, "name": "taken", "kind": "sbs", "run_a": run_a.pk, "run_b": run_b.pk,
        "topics": [t.pk for t in topics[:3]]})
    assert page.status_code == 200 and "A campaign named &#x27;taken&#x27; already exists." in page.content.decode()
    assert PrefCampaign.objects.count() == 1
