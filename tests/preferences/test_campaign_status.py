"""A lead closes and reopens a preference campaign: no work while closed, audited, leads only (page and API)."""
from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from preferences.models import PrefAssessor, PrefCampaign, PrefLease
from preferences.services import allocation, judgments
from preferences.services.campaigns import campaign_set_status

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_sbs):
    return make_sbs()


def expert(campaign, user):
    return PrefAssessor.objects.get(campaign=campaign, user=user)


def test_closing_stops_work_drops_leases_and_refuses_submits_until_reopened(campaign, alice, lead):
    row = expert(campaign, alice)
    leased = allocation.item_next(assessor=row)
    assert leased is not None and PrefLease.objects.filter(item__campaign=campaign).exists()
    assert campaign_set_status(campaign=campaign, status="closed", user=lead) is True
    assert not PrefLease.objects.filter(item__campaign=campaign).exists()
    row.campaign.refresh_from_db()
    assert allocation.item_next(assessor=row) is None
    with pytest.raises(ValidationError):
        judgments.judgment_submit(assessor=row, item=leased, choice=1, token="closed-1")
    assert campaign_set_status(campaign=campaign, status="closed", user=lead) is False  # unchanged: no log line
    assert campaign_set_status(campaign=campaign, status="active", user=lead) is True
    row.campaign.refresh_from_db()
    assert allocation.item_next(assessor=row) is not None
    messages = [json.loads(e.change_message) for e in LogEntry.objects.order_by("pk")]
    assert messages == [{"kind": "status", "from": "active", "to": "closed"},
                        {"kind": "status", "from": "closed", "to": "active"}]
    with pytest.raises(ValidationError):
        campaign_set_status(campaign=campaign, status="paused", user=lead)


def test_lead_closes_and_reopens_from_the_results_page(client, campaign, lead):
    client.force_login(lead)
    url = reverse("pref-campaign-results", args=[campaign.pk])
    assert "Close campaign" in client.get(url).content.decode()
    response = client.post(reverse("pref-campaign-status", args=[campaign.pk]), {"status": "closed"})
    assert response.status_code == 302 and response["Location"] == url
    campaign.refresh_from_db()
    assert campaign.status == PrefCampaign.Status.CLOSED
    assert "Reopen campaign" in client.get(url).content.decode()
    assert client.post(reverse("pref-campaign-status", args=[campaign.pk]), {"status": "bogus"}).status_code == 400


@pytest.mark.parametrize("who, status", [("alice", 403), ("mallory", 404), (None, 302)])
def test_only_leads_may_close_a_campaign(client, campaign, who, status, request):
    if who:
        client.force_login(request.getfixturevalue(who))
    assert client.post(reverse("pref-campaign-status", args=[campaign.pk]), {"status": "closed"}).status_code == status
    campaign.refresh_from_db()
    assert campaign.status == PrefCampaign.Status.ACTIVE and not LogEntry.objects.exists()


@pytest.mark.parametrize("who, status", [("lead", 200), ("alice", 403), ("mallory", 404), (None, 401)])
def test_status_api_for_leads_only(campaign, who, status, request):
    api = APIClient()
    if who:
        api.force_authenticate(request.getfixturevalue(who))
    response = api.post(reverse("api-pref-status", args=[campaign.pk]), {"status": "closed"}, format="json")
    assert response.status_code == status
    campaign.refresh_from_db()
    assert campaign.status == ("closed" if status == 200 else "active")
    if status == 200:
        assert response.json() == {"id": campaign.pk, "status": "closed", "changed": True}
        again = api.post(reverse("api-pref-status", args=[campaign.pk]), {"status": "closed"}, format="json")
        assert again.json()["changed"] is False
        assert api.post(reverse("api-pref-status", args=[campaign.pk]), {"status": "x"}, format="json").status_code == 400
