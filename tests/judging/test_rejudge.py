"""Send disagreed pairs to one more assessor: the service (raise by one, audit, idempotency) and its POST view."""
from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from collections_app.models import Membership
from judging.models import Assessor, Item
from judging.services.judgments import judgment_submit
from judging.services.rejudge import rejudge_history, rejudge_request
from tests.conftest import make_user
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


@pytest.fixture
def disputed(collection, make_campaign, alice, bob):
    """Alice and bob judge every pair twice-overlapped; carol is a third assessor who has judged nothing.

    Disagreements on positions 1 and 2 (topic 401) and 6 (topic 402); agreement elsewhere.
    """
    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=2)
    a, b = expert(campaign, alice), expert(campaign, bob)
    for position in range(1, 11):
        item = Item.objects.get(campaign=campaign, position=position)
        judgment_submit(assessor=a, item=item, grade=1, client_token=f"a{position}")
        judgment_submit(assessor=b, item=item, grade=2 if position in (1, 2, 6) else 1, client_token=f"b{position}")
    return campaign


def required(campaign):
    return dict(Item.objects.filter(campaign=campaign).values_list("position", "required_judgments"))


def test_topic_request_raises_only_that_topics_disputed_items_by_one(disputed, lead):
    before = required(disputed)
    result = rejudge_request(campaign=disputed, user=lead, token="t1", topic="401")
    after = required(disputed)
    assert {p for p in after if after[p] != before[p]} == {1, 2}
    assert after[1] == before[1] + 1 == 3 and not result.replay and len(result.raised) == 2


def test_pair_request_selects_items_both_assessors_labelled(disputed, lead, alice, bob):
    a, b = expert(disputed, alice), expert(disputed, bob)
    result = rejudge_request(campaign=disputed, user=lead, token="t2", assessors=(a.pk, b.pk))
    assert sorted(Item.objects.get(pk=pk).position for pk in result.raised) == [1, 2, 6]


def test_replayed_token_changes_nothing_and_history_records_the_request(disputed, lead):
    rejudge_request(campaign=disputed, user=lead, token="same", topic="401")
    snapshot = required(disputed)
    again = rejudge_request(campaign=disputed, user=lead, token="same", topic="401")
    assert again.replay and required(disputed) == snapshot
    assert LogEntry.objects.count() == 1
    entry = json.loads(LogEntry.objects.get().change_message)
    assert entry["token"] == "same" and entry["topic"] == "401" and len(entry["raised"]) == 2
    history = rejudge_history(campaign=disputed)
    assert history[0]["user"] == "lead" and len(history[0]["raised"]) == 2


def test_items_that_no_assessor_could_take_are_left_alone(disputed, lead):
    rejudge_request(campaign=disputed, user=lead, token="x1", topic="401")  # required 3 = three assessors
    result = rejudge_request(campaign=disputed, user=lead, token="x2", topic="401")
    assert result.raised == () and len(result.skipped) == 2
    assert required(disputed)[1] == 3


def test_blocked_assessors_do_not_count_as_available(disputed, lead, alice):
    Assessor.objects.filter(campaign=disputed, user__username="carol").update(blocked=True)
    result = rejudge_request(campaign=disputed, user=lead, token="b1", topic="401")
    assert result.raised == () and len(result.skipped) == 2


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"token": "k"}, "no_filter"), ({"token": "", "topic": "401"}, "bad_token"),
    ({"token": "k", "assessors": (999999,)}, "bad_assessor"),
])
def test_bad_requests_are_refused(disputed, lead, kwargs, code):
    with pytest.raises(ValidationError) as error:
        rejudge_request(campaign=disputed, user=lead, **kwargs)
    assert error.value.code == code
    assert LogEntry.objects.count() == 0


def test_lead_posts_rejudge_and_returns_to_the_dashboard(client, disputed, lead):
    client.force_login(lead)
    target = reverse("campaign-rejudge", args=[disputed.collection.slug, disputed.pk])
    response = client.post(target, {"token": "v1", "topic": "402", "back": "stat=fleiss&binary=1"})
    dashboard = reverse("campaign-dashboard", args=[disputed.collection.slug, disputed.pk])
    assert response.status_code == 302 and response["Location"] == dashboard + "?stat=fleiss&binary=1"
    assert required(disputed)[6] == 3
    client.post(target, {"token": "v1", "topic": "402"})
    assert required(disputed)[6] == 3
    response = client.post(target, {"token": "v2", "topic": "402", "back": "//evil.example/"})
    assert response["Location"] == dashboard


def test_rejudge_refuses_everyone_but_leads_and_get(client, disputed, alice, mallory, lead):
    target = reverse("campaign-rejudge", args=[disputed.collection.slug, disputed.pk])
    before = required(disputed)
    response = client.post(target, {"token": "p", "topic": "401"})
    assert response.status_code == 302 and "/login" in response["Location"]
    client.force_login(alice)
    assert client.post(target, {"token": "p", "topic": "401"}).status_code == 403
    client.force_login(mallory)
    assert client.post(target, {"token": "p", "topic": "401"}).status_code == 404
    client.force_login(lead)
    assert client.get(target).status_code == 405
    assert required(disputed) == before


def test_rejudge_needs_the_csrf_token(disputed, lead):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(lead)
    target = reverse("campaign-rejudge", args=[disputed.collection.slug, disputed.pk])
    assert strict.post(target, {"token": "c", "topic": "401"}).status_code == 403
    assert required(disputed)[1] == 2


def test_allocation_serves_the_raised_pairs_to_a_new_assessor_only(disputed, lead, alice, collection):
    from judging.services.allocation import item_next

    Item.objects.filter(campaign=disputed, position__gt=10).update(required_judgments=0)  # keep the queue short
    rejudge_request(campaign=disputed, user=lead, token="alloc", topic="401")
    assert item_next(assessor=expert(disputed, alice)) is None  # alice judged both raised pairs already
    carol = Assessor.objects.get(campaign=disputed, user__username="carol")
    served = []
    while (item := item_next(assessor=carol)) is not None:
        served.append(item.position)
        judgment_submit(assessor=carol, item=item, grade=1, client_token=f"carol-{item.position}")
    assert sorted(served) == [1, 2]


def test_rejudge_api_for_leads_with_replay_and_errors(disputed, lead, alice, mallory):
    from rest_framework.test import APIClient

    target = reverse("api-campaign-rejudge", args=[disputed.pk])
    api = APIClient()
    assert api.post(target, {"token": "a1", "topic": "401"}, format="json").json()["code"] == "not_authenticated"
    api.force_authenticate(alice)
    assert api.post(target, {"token": "a1", "topic": "401"}, format="json").status_code == 403
    api.force_authenticate(mallory)
    assert api.post(target, {"token": "a1", "topic": "401"}, format="json").status_code == 404
    assert required(disputed)[1] == 2
    api.force_authenticate(lead)
    first = api.post(target, {"token": "a1", "topic": "401"}, format="json")
    assert first.status_code == 200 and first.json()["replay"] is False and len(first.json()["raised"]) == 2
    again = api.post(target, {"token": "a1", "topic": "401"}, format="json").json()
    assert again == {**first.json(), "replay": True} and required(disputed)[1] == 3
    refused = api.post(target, {"token": "a2"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "no_filter"
    assert api.post(target, {"topic": "401"}, format="json").status_code == 400
