"""The judging API's one-query access gate (``judging_assessor``) refuses exactly as the two-step gate did."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from collections_app.models import Membership
from judging.models import Assessor, Lease

pytestmark = pytest.mark.django_db


def api_as(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def next_call(user, campaign_id):
    return api_as(user).post(reverse("api-campaign-next", args=[campaign_id]))


def test_an_assessor_of_the_campaign_gets_work(make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    assert next_call(alice, campaign.pk).status_code == 200


def test_an_assessor_whose_membership_was_removed_gets_404_and_no_lease(make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    Membership.objects.filter(user=alice).delete()
    response = next_call(alice, campaign.pk)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert not Lease.objects.exists()


def test_a_member_who_does_not_judge_the_campaign_gets_403_not_assessor(make_campaign, alice, bob):
    campaign = make_campaign(assessors=[alice])
    response = next_call(bob, campaign.pk)
    assert response.status_code == 403 and response.json()["code"] == "not_assessor"


def test_an_outsider_and_a_missing_campaign_get_404(make_campaign, alice, mallory):
    campaign = make_campaign(assessors=[alice])
    assert next_call(mallory, campaign.pk).status_code == 404
    assert next_call(alice, campaign.pk + 1000).status_code == 404


def test_a_blocked_assessor_gets_403_blocked(make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    Assessor.objects.filter(campaign=campaign, user=alice).update(blocked=True)
    response = next_call(alice, campaign.pk)
    assert response.status_code == 403 and response.json()["code"] == "blocked"
    assert not Lease.objects.exists()


def test_a_superuser_assessor_judges_without_a_membership(make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    Membership.objects.filter(user=alice).delete()
    alice.is_superuser = True
    alice.save(update_fields=["is_superuser"])
    assert next_call(alice, campaign.pk).status_code == 200


def test_submitting_a_pair_of_another_campaign_is_404_and_changes_nothing(make_campaign, alice):
    mine = make_campaign(assessors=[alice])
    other = make_campaign(assessors=[alice])
    foreign = other.items.first()
    response = api_as(alice).post(reverse("api-campaign-submit", args=[mine.pk]),
                                  {"item": foreign.pk, "grade": 1, "client_token": "t-1"}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    foreign.refresh_from_db()
    assert foreign.judgment_count == 0 and not foreign.judgments.exists()
