"""A lead pauses, resumes and finishes a relevance campaign: no work while stopped, audited, leads only."""
from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from judging.models import Campaign, Lease
from judging.services.allocation import item_next
from judging.services.campaigns import campaign_set_status
from judging.services.judgments import judgment_submit
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


def status_url(campaign):
    return reverse("campaign-status", args=[campaign.collection.slug, campaign.pk])


def test_pausing_drops_leases_stops_work_and_submits_until_resumed(campaign, alice, lead):
    worker = expert(campaign, alice)
    leased = item_next(assessor=worker)
    assert leased is not None and Lease.objects.filter(item__campaign=campaign).exists()
    campaign_set_status(campaign=campaign, status="paused", user=lead)
    assert not Lease.objects.filter(item__campaign=campaign).exists()
    worker.campaign.refresh_from_db()
    assert item_next(assessor=worker) is None
    with pytest.raises(ValidationError):
        judgment_submit(assessor=worker, item=leased, grade=1, client_token="paused-1")
    campaign_set_status(campaign=campaign, status="paused", user=lead)  # unchanged: nothing logged
    campaign_set_status(campaign=campaign, status="active", user=lead)
    worker.campaign.refresh_from_db()
    assert item_next(assessor=worker) is not None
    assert [json.loads(e.change_message) for e in LogEntry.objects.order_by("pk")] == [
        {"kind": "status", "from": "active", "to": "paused"}, {"kind": "status", "from": "paused", "to": "active"}]


def test_lead_pauses_finishes_and_reopens_from_the_campaign_page(client, campaign, lead):
    client.force_login(lead)
    detail = reverse("campaign-detail", args=[campaign.collection.slug, campaign.pk])
    html = client.get(detail).content.decode()
    assert 'value="paused">Pause</button>' in html and 'value="finished">Finish</button>' in html
    response = client.post(status_url(campaign), {"status": "paused"})
    assert response.status_code == 302 and response["Location"] == detail
    assert 'value="active">Resume</button>' in client.get(detail).content.decode()
    client.post(status_url(campaign), {"status": "finished"})
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.FINISHED
    assert 'value="active">Reopen</button>' in client.get(detail).content.decode()
    assert client.post(status_url(campaign), {"status": "asleep"}).status_code == 400
    assert client.get(status_url(campaign)).status_code == 405


@pytest.mark.parametrize("who, code", [("alice", 403), ("mallory", 404), (None, 302)])
def test_only_leads_change_the_status(client, campaign, who, code, request):
    if who:
        client.force_login(request.getfixturevalue(who))
    assert client.post(status_url(campaign), {"status": "finished"}).status_code == code
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.ACTIVE and not LogEntry.objects.exists()


@pytest.mark.parametrize("who, code", [("lead", 200), ("alice", 403), ("mallory", 404), (None, 401)])
def test_status_api_for_leads_only(campaign, who, code, request):
    api = APIClient()
    if who:
        api.force_authenticate(request.getfixturevalue(who))
    url = reverse("api-campaign-status", args=[campaign.pk])
    response = api.post(url, {"status": "paused"}, format="json")
    assert response.status_code == code
    campaign.refresh_from_db()
    assert campaign.status == ("paused" if code == 200 else "active")
    if code == 200:
        assert response.json() == {"id": campaign.pk, "status": "paused", "changed": True}
        assert api.post(url, {"status": "paused"}, format="json").json()["changed"] is False
        assert api.post(url, {"status": "asleep"}, format="json").status_code == 400
