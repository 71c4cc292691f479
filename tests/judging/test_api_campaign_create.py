"""POST /api/campaigns/: a lead starts a campaign with the form's options, checked by the same plan."""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from judging.forms import CampaignCreateForm
from judging.models import Campaign, Item
from tests.conftest import logged_in, make_collection, make_user
from tests.judging.conftest import build_gold, build_pool

pytestmark = pytest.mark.django_db

URL = "/api/campaigns/"


def create(client, body):
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def body(**options):
    return {"collection": "demo", "name": "round one", "pool": "pool", **options}


def test_a_lead_starts_a_campaign_and_gets_it_as_the_detail_endpoint_shows_it(client, collection, pool, lead):
    response = create(logged_in(client, lead), body(overlap="replicate", judgments_per_pair=2, order="random", seed=3))
    assert response.status_code == 201, response.content
    campaign = Campaign.objects.get(name="round one")
    assert response["Location"] == reverse("api-campaign", args=[campaign.pk])
    data = response.json()
    detail = client.get(reverse("api-campaign", args=[campaign.pk])).json()
    assert data == detail
    assert data["role"] == "lead" and data["collection"] == "demo" and data["pool"] == "pool"
    campaign.refresh_from_db()
    assert (campaign.overlap, campaign.judgments_per_pair, campaign.order, campaign.seed) == ("replicate", 2, "random", 3)
    assert campaign.created_by == lead and campaign.items.count() == 20
    pool.refresh_from_db()
    assert pool.frozen


def test_assessors_left_out_are_the_collections_assessors_as_the_form_ticks_them(client, collection, pool, lead):
    assert create(logged_in(client, lead), body()).status_code == 201
    campaign = Campaign.objects.get(name="round one")
    assert sorted(campaign.assessors.values_list("user__username", flat=True)) == ["alice", "bob"]


def test_an_explicit_empty_list_starts_a_campaign_without_experts(client, collection, pool, lead):
    assert create(logged_in(client, lead), body(assessors=[], crowd_enabled=True)).status_code == 201
    assert not Campaign.objects.get(name="round one").assessors.exists()


FORM_DEFAULTS = {
    "split": "shared_queue", "overlap": "none", "judgments_per_pair": 1, "overlap_fraction": 0, "calibration_size": 0,
    "order": "pool", "seed": 0, "lease_seconds": 600, "gold_rate": 0, "gold_accuracy_threshold": 0,
    "crowd_batch_size": 20,
}


def _stored(campaign: Campaign) -> tuple[dict, list, list]:
    """A campaign's settings, assessors and laid-out items, without what names or dates it."""
    skip = {"id", "name", "created_at", "crowd_token"}
    fields = {f.attname: getattr(campaign, f.attname) for f in Campaign._meta.concrete_fields if f.attname not in skip}
    people = sorted(campaign.assessors.values_list("user__username", "kind"))
    items = list(Item.objects.filter(campaign=campaign).order_by("position").values_list(
        "position", "pair__topic__qid", "pair__docno", "required_judgments", "is_calibration", "is_gold",
        "gold_grade", "primary_assessor__user__username"))
    return fields, people, items


@pytest.mark.parametrize("options", [
    {"split": "by_topic", "overlap": "calibration", "calibration_size": 3, "order": "random", "seed": 11},
    {"overlap": "fraction", "overlap_fraction": 0.25, "seed": 5, "lease_seconds": 120, "gold_rate": 0.2,
     "gold_accuracy_threshold": 0.7, "crowd_enabled": True, "crowd_batch_size": 6, "crowd_instructions": "Be quick.",
     "crowd_completion_code": "C0DE", "crowd_completion_url": "https://app.prolific.com/submissions/complete?cc=C0DE"},
])
def test_creating_through_the_api_stores_what_the_form_stores(client, collection, pool, lead, alice, bob, options):
    gold = build_gold(collection, [("401", "T1-D2", 2), ("402", "T2-D1", 0), ("403", "T3-D5", 3), ("404", "T4-D4", 1)])
    with_gold = {"gold_qrels": gold.pk} if "gold_rate" in options else {}
    logged_in(client, lead)
    page = client.post(reverse("campaign-new", args=["demo"]), {
        **FORM_DEFAULTS, **options, **with_gold, "name": "by form", "pool": pool.pk, "assessors": [alice.pk, bob.pk]})
    assert page.status_code == 302, page.content.decode()[:2000]
    api = create(client, body(name="by api", assessors=["bob", "alice"], **options,
                              **({"gold_qrels": "gold"} if with_gold else {})))
    assert api.status_code == 201, api.content
    by_form, by_api = Campaign.objects.get(name="by form"), Campaign.objects.get(name="by api")
    assert _stored(by_api) == _stored(by_form)
    assert any(item[5] for item in _stored(by_api)[2]) == bool(with_gold)


# --- every rule of the plan, with the form's message on the same field ----------------------------

@pytest.mark.parametrize("options, field, code", [
    ({"split": "sideways"}, "split", "bad_split"),
    ({"overlap": "twice"}, "overlap", "bad_overlap"),
    ({"order": "alphabetical"}, "order", "bad_order"),
    ({"judgments_per_pair": 0}, "judgments_per_pair", "bad_overlap"),
    ({"judgments_per_pair": 21}, "judgments_per_pair", "bad_overlap"),
    ({"overlap_fraction": 1.5}, "overlap_fraction", "bad_fraction"),
    ({"calibration_size": -1}, "calibration_size", "bad_size"),
    ({"seed": 2**31}, "seed", "bad_size"),
    ({"lease_seconds": 29}, "lease_seconds", "bad_size"),
    ({"lease_seconds": 86401}, "lease_seconds", "bad_size"),
    ({"gold_rate": 0.6}, "gold_rate", "bad_fraction"),  # and "needs gold qrels", on gold_qrels
    ({"gold_rate": 0.2}, "gold_qrels", "bad_gold"),
    ({"gold_accuracy_threshold": 1.5}, "gold_accuracy_threshold", "bad_fraction"),
    ({"crowd_batch_size": 0}, "crowd_batch_size", "bad_size"),
    ({"crowd_batch_size": 1001}, "crowd_batch_size", "bad_size"),
])
def test_a_plan_rule_is_a_400_field_error_with_the_forms_message(client, collection, pool, lead, options, field, code):
    response = create(logged_in(client, lead), body(**options))
    assert response.status_code == 400
    data = response.json()
    assert data["code"] == code and list(data["errors"])[0] == field
    form = CampaignCreateForm({**FORM_DEFAULTS, **options, "name": "x", "pool": pool.pk}, collection=collection)
    assert not form.is_valid()
    assert data["errors"][field] == form.errors[field]
    assert not Campaign.objects.exists()


def test_every_problem_is_reported_at_once(client, collection, pool, lead):
    response = create(logged_in(client, lead), body(split="sideways", lease_seconds=1, gold_rate=0.9))
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"split", "lease_seconds", "gold_rate", "gold_qrels"}


@pytest.mark.parametrize("options, field", [
    ({"judgments_per_pair": "two"}, "judgments_per_pair"),
    ({"pool": "no such pool"}, "pool"),
    ({"gold_qrels": "no such qrels", "gold_rate": 0.1}, "gold_qrels"),
    ({"assessors": ["mallory"]}, "assessors"),
    ({"name": ""}, "name"),
    ({"crowd_completion_url": "not a url"}, "crowd_completion_url"),
])
def test_values_that_do_not_parse_or_name_nothing_in_the_collection_are_field_errors(
        client, collection, pool, lead, mallory, options, field):
    response = create(logged_in(client, lead), body(**options))
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Campaign.objects.exists()


def test_a_pool_or_gold_qrels_of_another_collection_cannot_be_named(client, collection, pool, lead):
    other = make_collection("other", lead=lead)
    build_pool(other, name="theirs")
    build_gold(other, [("401", "T1-D1", 1)], name="their gold")
    response = create(logged_in(client, lead), body(pool="theirs", gold_qrels="their gold", gold_rate=0.1))
    assert response.status_code == 400 and set(response.json()["errors"]) == {"pool", "gold_qrels"}


def test_the_collection_is_required(client, collection, pool, lead):
    response = create(logged_in(client, lead), {"name": "x", "pool": "pool"})
    assert response.status_code == 400 and response.json()["errors"] == {"collection": [
        "The slug of a collection you lead is required."]}


@pytest.mark.parametrize("name, pool_name, code", [("taken", "pool", "duplicate_name"), ("fresh", "empty", "empty_pool")])
def test_refusals_that_need_the_database_come_from_the_service_with_their_code(
        client, collection, pool, lead, name, pool_name, code):
    from collections_app.models import Pool

    Pool.objects.create(collection=collection, name="empty", strategy=Pool.Strategy.DEPTH)
    assert create(logged_in(client, lead), body(name="taken")).status_code == 201
    response = create(client, body(name=name, pool=pool_name))
    assert response.status_code == 400 and response.json()["code"] == code
    assert Campaign.objects.count() == 1


# --- who may start a campaign --------------------------------------------------------------------

def test_anonymous_callers_are_asked_to_authenticate(client, collection, pool):
    response = create(client, body())
    assert response.status_code == 401
    assert not Campaign.objects.exists()


def test_an_assessor_of_the_collection_is_forbidden(client, collection, pool, alice):
    response = create(logged_in(client, alice), body())
    assert response.status_code == 403
    assert not Campaign.objects.exists()


def test_an_outsider_and_another_collections_lead_see_no_such_collection(client, collection, pool, mallory):
    make_collection("theirs", lead=mallory)
    for slug in ("demo", "nowhere"):
        response = create(logged_in(client, mallory), body(collection=slug))
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert not Campaign.objects.exists()


def test_the_outsider_learns_nothing_from_field_errors(client, collection, pool, mallory):
    response = create(logged_in(client, mallory), body(split="sideways", pool="nothing"))
    assert response.status_code == 404 and "errors" not in response.json()


def test_a_token_authenticated_lead_may_start_a_campaign(client, collection, pool, lead):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=lead)
    response = client.post(URL, data=json.dumps(body()), content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 201


def test_a_second_lead_added_to_the_collection_may_start_one_too(client, collection, pool):
    from collections_app.models import Membership

    other_lead = make_user("carol")
    Membership.objects.create(collection=collection, user=other_lead, role=Membership.Role.LEAD)
    assert create(logged_in(client, other_lead), body()).status_code == 201


def test_the_schema_describes_the_request_and_the_201_response():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    post = schema["paths"]["/api/campaigns/"]["post"]
    request = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = schema["components"]["schemas"][request]
    assert {"collection", "name", "pool"} <= set(fields["required"])
    assert {"assessors", "split", "overlap", "judgments_per_pair", "gold_qrels", "crowd_batch_size"} <= set(
        fields["properties"])
    assert set(post["responses"]) == {"201"}
