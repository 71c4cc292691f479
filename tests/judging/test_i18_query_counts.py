"""The judging API's hot path stays cheap: a guard on the SQL statements of one next and one submit.

The load suite measures latency and throughput; what decides them is how many statements each
call sends, which this pins (transaction control — BEGIN, SAVEPOINT, RELEASE, COMMIT — left
out, as SQLite and PostgreSQL report it differently). A change that adds a query to the path
fails here and must say why in the expected numbers.
"""
from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from judging.models import Judgment, Lease

pytestmark = pytest.mark.django_db

CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")

# next: token, assessor (+ campaign, collection, membership), assessor lock, held lease,
# candidate (SKIP LOCKED), re-check with the pair's topic and document, lease upsert.
NEXT_QUERIES = 7
# submit: token, assessor, assessor lock, item lock, judgment by token or (item, me),
# lease delete, judgment insert, count bump.
SUBMIT_QUERIES = 8
# a resubmit with the same token: token, assessor, assessor lock, item lock, judgment by token.
REPLAY_QUERIES = 5


def statements(captured: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if not q["sql"].lstrip().upper().startswith(CONTROL)]


@pytest.fixture
def api(alice):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    return client


def test_one_next_and_one_submit_cost_a_fixed_number_of_queries(api, make_campaign, alice, bob):
    campaign = make_campaign(assessors=[alice, bob], overlap="replicate", judgments_per_pair=2)
    with CaptureQueriesContext(connection) as next_call:
        response = api.post(reverse("api-campaign-next", args=[campaign.pk]))
    assert response.status_code == 200
    item = response.json()["item"]
    assert response.json()["topic"]["qid"] and response.json()["document"]["docno"]
    body = {"item": item, "grade": 2, "client_token": uuid.uuid4().hex}
    with CaptureQueriesContext(connection) as submit_call:
        answer = api.post(reverse("api-campaign-submit", args=[campaign.pk]), body, format="json")
    assert answer.status_code == 200
    with CaptureQueriesContext(connection) as replay_call:
        again = api.post(reverse("api-campaign-submit", args=[campaign.pk]), body, format="json")
    assert again.json()["id"] == answer.json()["id"]
    assert Judgment.objects.filter(item_id=item, assessor__user=alice).count() == 1
    assert not Lease.objects.filter(item_id=item).exists()
    assert len(statements(next_call)) == NEXT_QUERIES, statements(next_call)
    assert len(statements(submit_call)) == SUBMIT_QUERIES, statements(submit_call)
    assert len(statements(replay_call)) == REPLAY_QUERIES, statements(replay_call)


def test_asking_again_for_the_held_pair_costs_no_more_than_a_claim(api, make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    first = api.post(reverse("api-campaign-next", args=[campaign.pk])).json()["item"]
    with CaptureQueriesContext(connection) as reload_call:
        again = api.post(reverse("api-campaign-next", args=[campaign.pk]))
    assert again.json()["item"] == first
    # token, assessor, assessor lock, held lease, lease renewal, the item with its topic and document
    assert len(statements(reload_call)) == 6, statements(reload_call)
