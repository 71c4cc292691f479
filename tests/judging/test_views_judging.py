"""The expert judging page and its JSON endpoints, through Django's test client."""
from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from judging.models import Judgment, JudgmentRevision
from tests.browser.factories import make_campaign
from tests.conftest import logged_in


@pytest.fixture
def campaign(replicated_campaign):
    return replicated_campaign


def _state(client, campaign):
    response = client.get(reverse("judge-state", args=[campaign.pk]))
    assert response.status_code == 200, response.content
    return response.json()


def _submit(client, campaign, item, grade, *, token=None, **extra):
    body = {"item": item, "grade": grade, "client_token": token or str(uuid.uuid4()), "active_seconds": 3.5, **extra}
    return client.post(reverse("judge-submit", args=[campaign.pk]), data=json.dumps(body), content_type="application/json")


def test_assessor_sees_judging_page_with_first_pair_inlined(client, campaign, alice):
    logged_in(client, alice)
    response = client.get(reverse("judge", args=[campaign.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="judge-initial"' in body
    assert "Judge carefully." in body  # the collection's guidelines
    assert "<kbd>3</kbd> Perfectly relevant" in body  # label buttons show their keys


def test_state_returns_current_and_preloaded_next_without_gold_flags(client, campaign, alice):
    state = _state(logged_in(client, alice), campaign)
    assert state["current"]["item"] != state["next"]["item"]
    assert "is_gold" not in json.dumps(state) and "gold" not in state["current"]
    assert state["current"]["terms"] == ["solar", "energy", "storage", "1"] or "solar" in state["current"]["terms"]
    assert state["progress"]["done"] == 0


def test_submit_records_one_judgment_with_active_time_and_advances(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    response = _submit(client, campaign, first, 2)
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["current"]["item"] != first
    assert data["progress"]["done"] == 1
    judgment = Judgment.objects.get(item_id=first, assessor__user=alice)
    assert judgment.grade == 2 and judgment.active_seconds == pytest.approx(3.5)


def test_repeated_client_token_records_one_judgment(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    token = str(uuid.uuid4())
    assert _submit(client, campaign, first, 1, token=token).status_code == 200
    assert _submit(client, campaign, first, 1, token=token).status_code == 200
    assert Judgment.objects.filter(assessor__user=alice).count() == 1
    assert JudgmentRevision.objects.count() == 0


def test_back_shows_my_earlier_label_and_revising_keeps_history(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    _submit(client, campaign, first, 0)
    back = client.get(reverse("judge-back", args=[campaign.pk])).json()["previous"]
    assert back["item"] == first and back["judgment"]["grade"] == 0
    assert _submit(client, campaign, first, 3).status_code == 200
    judgment = Judgment.objects.get(item_id=first, assessor__user=alice)
    assert judgment.grade == 3
    revision = JudgmentRevision.objects.get(judgment=judgment)
    assert (revision.old_grade, revision.new_grade) == (0, 3)


def test_skip_records_reason_without_grade(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    response = _submit(client, campaign, first, None, skipped=True, skip_reason="broken document")
    assert response.status_code == 200, response.content
    judgment = Judgment.objects.get(item_id=first, assessor__user=alice)
    assert judgment.skipped and judgment.grade is None and judgment.skip_reason == "broken document"


def test_grade_outside_the_scale_is_refused(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    response = _submit(client, campaign, first, 9)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_grade"
    assert not Judgment.objects.exists()


def test_malformed_submit_is_refused(client, campaign, alice):
    logged_in(client, alice)
    response = client.post(reverse("judge-submit", args=[campaign.pk]), data="not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "malformed"


def test_item_of_another_campaign_is_not_found(client, collection, campaign, lead, alice):
    other = make_campaign(collection, lead=lead, assessors=[alice], name="round 2", pool=campaign.pool)
    logged_in(client, alice)
    foreign = other.items.first().pk
    assert _submit(client, campaign, foreign, 1).status_code == 404


def test_queue_end_shows_no_current_pair(client, campaign, alice):
    logged_in(client, alice)
    state = _state(client, campaign)
    while state["current"]:
        state = _submit(client, campaign, state["current"]["item"], 1).json()
    assert state["next"] is None
    assert state["progress"]["done"] == state["progress"]["assigned"] == campaign.items.count()


def test_my_campaigns_lists_progress(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    _submit(client, campaign, first, 1)
    body = client.get(reverse("my-campaigns")).content.decode()
    assert campaign.name in body and f"1 / {campaign.items.count()}" in body


def _page_queries(client, campaign) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(reverse("judge", args=[campaign.pk]))  # takes the lease first
    with CaptureQueriesContext(connection) as captured:
        assert client.get(reverse("judge", args=[campaign.pk])).status_code == 200
    return len(captured)


def test_judging_page_queries_do_not_grow_with_the_campaign(client, collection, lead, alice, django_assert_max_num_queries):
    from tests.browser.factories import make_pool

    small = make_campaign(collection, lead=lead, assessors=[alice], name="small",
                          pool=make_pool(collection, topics=1, docs_per_topic=2, name="small"))
    logged_in(client, alice)
    expected = _page_queries(client, small)
    large = make_campaign(collection, lead=lead, assessors=[alice], name="large", pool=_bigger_pool(collection))
    assert _page_queries(client, large) == expected
    client.get(reverse("judge", args=[large.pk]))
    with django_assert_max_num_queries(25):
        client.get(reverse("judge", args=[large.pk]))


def _bigger_pool(collection):
    """Give a pool with more topics and documents than the small one, reusing fresh qids."""
    from collections_app.models import Document, Pool, PoolPair, Topic

    pool = Pool.objects.create(collection=collection, name="big", strategy=Pool.Strategy.DEPTH)
    order = 0
    for t in range(5):
        topic = Topic.objects.create(collection=collection, qid=f"9{t}", title=f"wind power {t}")
        for d in range(6):
            document = Document.objects.create(collection=collection, docno=f"W{t}-{d}", text="wind power " * 20)
            order += 1
            PoolPair.objects.create(pool=pool, topic=topic, docno=document.docno, document=document,
                                    judging_order=order, best_rank=d + 1, run_ranks={"r": d + 1})
    return pool


def test_paused_campaign_offers_no_pair_and_refuses_submits(client, campaign, alice):
    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    campaign.status = "paused"
    campaign.save(update_fields=["status"])
    state = _state(client, campaign)
    assert state["current"] is None and state["closed"] is True
    response = _submit(client, campaign, first, 1)
    assert response.status_code == 409 and response.json()["code"] == "campaign_closed"
    assert not Judgment.objects.exists()


def test_page_and_api_refuse_a_revision_in_a_paused_campaign_alike(client, campaign, alice):
    from rest_framework.test import APIClient

    logged_in(client, alice)
    first = _state(client, campaign)["current"]["item"]
    assert _submit(client, campaign, first, 1).status_code == 200
    campaign.status = "paused"
    campaign.save(update_fields=["status"])
    page = _submit(client, campaign, first, 3)
    api = APIClient()
    api.force_authenticate(alice)
    answer = api.post(reverse("api-campaign-submit", args=[campaign.pk]),
                      {"item": first, "grade": 3, "client_token": "api-rev"}, format="json")
    assert (page.status_code, page.json()["code"]) == (answer.status_code, answer.json()["code"]) == (
        409, "campaign_closed")
    assert Judgment.objects.get(item_id=first, assessor__user=alice).grade == 1
    assert not JudgmentRevision.objects.exists()


@pytest.mark.parametrize("body", [{"grade": 1, "client_token": "t"}, {"item": 1, "grade": 1},
                                  {"item": 1, "client_token": "t"}, {"item": "x", "grade": 1, "client_token": "t"},
                                  [1, 2]])
def test_a_submit_the_api_serializer_rejects_is_malformed_and_saves_nothing(client, campaign, alice, body):
    logged_in(client, alice)
    response = client.post(reverse("judge-submit", args=[campaign.pk]), data=json.dumps(body),
                           content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "malformed"
    assert not Judgment.objects.exists()
