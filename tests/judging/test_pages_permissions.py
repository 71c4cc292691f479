"""Every judging page for every persona: lead, assessor, other assessor, crowd worker, outsider, anonymous."""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from judging.models import Judgment
from tests.browser.factories import make_campaign
from tests.conftest import PASSWORD


@pytest.fixture
def campaign(collection, lead, alice):
    """A campaign with alice only: bob assesses the collection but not this campaign."""
    return make_campaign(collection, lead=lead, assessors=[alice], crowd_enabled=True, crowd_batch_size=3)


def _as(client, user):
    if user is not None:
        client.login(username=user.username, password=PASSWORD)
    return client


def _as_worker(client, campaign):
    """Enter as a Prolific worker: the session now holds a crowd identity but no account."""
    response = client.get(
        reverse("crowd-entry", args=[campaign.crowd_token]),
        {"PROLIFIC_PID": "w1", "STUDY_ID": "s1", "SESSION_ID": "x1"},
    )
    assert response.status_code == 302
    return client


def _expert_pages(campaign):
    return [
        reverse("judge", args=[campaign.pk]),
        reverse("judge-state", args=[campaign.pk]),
        reverse("judge-back", args=[campaign.pk]),
    ]


def _lead_pages(campaign):
    slug = campaign.collection.slug
    return [
        reverse("campaign-list", args=[slug]),
        reverse("campaign-new", args=[slug]),
        reverse("campaign-detail", args=[slug, campaign.pk]),
        reverse("campaign-conflicts", args=[slug, campaign.pk]),
        reverse("campaign-qrels", args=[slug, campaign.pk]),
        reverse("campaign-judgments-export", args=[slug, campaign.pk, "csv"]),
        reverse("campaign-judgments-export", args=[slug, campaign.pk, "jsonl"]),
    ]


def test_assessor_opens_own_judging_pages(client, campaign, alice):
    _as(client, alice)
    for url in _expert_pages(campaign) + [reverse("my-campaigns")]:
        assert client.get(url).status_code == 200, url


def test_assessor_is_refused_lead_pages(client, campaign, alice):
    _as(client, alice)
    for url in _lead_pages(campaign):
        assert client.get(url).status_code == 403, url


def test_other_assessor_of_the_collection_cannot_judge_this_campaign(client, campaign, bob):
    _as(client, bob)
    for url in _expert_pages(campaign):
        assert client.get(url).status_code == 403, url
    response = client.post(
        reverse("judge-submit", args=[campaign.pk]),
        data=json.dumps({"item": campaign.items.first().pk, "grade": 1, "client_token": "t-bob"}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not Judgment.objects.exists()
    assert campaign.name not in client.get(reverse("my-campaigns")).content.decode()


def test_outsider_gets_404_everywhere(client, campaign, mallory):
    _as(client, mallory)
    for url in _expert_pages(campaign) + _lead_pages(campaign):
        assert client.get(url).status_code == 404, url


def test_anonymous_is_sent_to_login_or_refused(client, campaign):
    for url in [reverse("judge", args=[campaign.pk])] + _lead_pages(campaign):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    assert client.get(reverse("judge-state", args=[campaign.pk])).status_code == 401


def test_crowd_worker_has_no_expert_or_lead_access(client, campaign):
    _as_worker(client, campaign)
    assert client.get(reverse("judge-state", args=[campaign.pk])).status_code == 401
    for url in [reverse("judge", args=[campaign.pk])] + _lead_pages(campaign):
        assert client.get(url).status_code == 302, url


def test_lead_opens_every_lead_page(client, campaign, lead):
    _as(client, lead)
    for url in _lead_pages(campaign):
        assert client.get(url).status_code == 200, url


def test_lead_pages_404_for_a_campaign_of_another_collection(client, campaign, lead):
    from tests.conftest import make_collection

    make_collection("other", lead=lead)
    _as(client, lead)
    url = reverse("campaign-detail", args=["other", campaign.pk])
    assert client.get(url).status_code == 404


def test_missing_campaign_is_404(client, campaign, alice):
    _as(client, alice)
    assert client.get(reverse("judge", args=[campaign.pk + 999])).status_code == 404


def test_crowd_pages_need_a_crowd_session(client, campaign, alice):
    _as(client, alice)  # an account is no crowd identity
    token = campaign.crowd_token
    assert client.get(reverse("crowd-judge", args=[token])).status_code == 404
    assert client.get(reverse("crowd-state", args=[token])).status_code == 403


def test_crowd_link_of_a_campaign_without_crowd_mode_is_404(client, collection, lead, alice):
    closed = make_campaign(collection, lead=lead, assessors=[alice], name="closed")
    response = client.get(reverse("crowd-entry", args=[closed.crowd_token]), {"PROLIFIC_PID": "w1"})
    assert response.status_code == 404
