"""Leads' campaign pages: create from a pool, overview, conflicts and adjudication, qrels versions, export."""
from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from judging.models import Adjudication, Campaign, Item, QrelsVersion
from tests.browser.factories import make_pool
from tests.conftest import logged_in


@pytest.fixture
def campaign(replicated_campaign):
    return replicated_campaign


def _judge(client, user, campaign, grades):
    """Let a user judge pairs in order through the JSON endpoint; return the judged item ids."""
    logged_in(client, user)
    items = []
    for grade in grades:
        state = client.get(reverse("judge-state", args=[campaign.pk])).json()
        item = state["current"]["item"]
        body = {"item": item, "grade": grade, "client_token": str(uuid.uuid4())}
        response = client.post(reverse("judge-submit", args=[campaign.pk]), data=json.dumps(body), content_type="application/json")
        assert response.status_code == 200, response.content
        items.append(item)
    client.logout()
    return items


def test_lead_creates_a_campaign_from_a_pool(client, collection, lead, alice, bob):
    pool = make_pool(collection)
    logged_in(client, lead)
    form = client.get(reverse("campaign-new", args=[collection.slug])).content.decode()
    assert "p1" in form and "alice" in form
    response = client.post(reverse("campaign-new", args=[collection.slug]), {
        "name": "first round", "pool": pool.pk, "assessors": [alice.pk, bob.pk], "split": "shared_queue",
        "overlap": "replicate", "judgments_per_pair": 2, "overlap_fraction": 0, "calibration_size": 0,
        "order": "random", "seed": 7, "lease_seconds": 300, "gold_rate": 0, "gold_accuracy_threshold": 0,
        "crowd_batch_size": 10,
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name="first round")
    assert response["Location"] == reverse("campaign-detail", args=[collection.slug, campaign.pk])
    assert campaign.order == "random" and campaign.seed == 7 and campaign.lease_seconds == 300
    assert set(campaign.assessors.values_list("user__username", flat=True)) == {"alice", "bob"}
    assert Item.objects.filter(campaign=campaign).count() == pool.pairs.count()


def test_invalid_campaign_form_shows_errors_and_creates_nothing(client, collection, lead):
    logged_in(client, lead)
    response = client.post(reverse("campaign-new", args=[collection.slug]), {"name": ""})
    assert response.status_code == 200 and b"This field is required" in response.content
    assert not Campaign.objects.exists()


def test_the_form_refuses_a_plan_that_breaks_a_rule_with_the_plans_message(client, collection, lead, alice):
    pool = make_pool(collection)
    logged_in(client, lead)
    response = client.post(reverse("campaign-new", args=[collection.slug]), {
        "name": "greedy gold", "pool": pool.pk, "assessors": [alice.pk], "split": "shared_queue",
        "overlap": "none", "judgments_per_pair": 1, "overlap_fraction": 0, "calibration_size": 0,
        "order": "pool", "seed": 0, "lease_seconds": 300, "gold_rate": 0.7, "gold_accuracy_threshold": 0,
        "crowd_batch_size": 10,
    })
    page = response.content.decode()
    assert response.status_code == 200
    assert "The gold rate must lie in [0, 0.5]." in page and "A gold rate needs gold qrels." in page
    assert not Campaign.objects.exists()


def test_overview_shows_progress_assessors_and_crowd_link(client, campaign, lead, alice):
    _judge(client, alice, campaign, [1, 2])
    logged_in(client, lead)
    body = client.get(reverse("campaign-detail", args=[campaign.collection.slug, campaign.pk])).content.decode()
    assert "Judged <strong>2</strong>" in body
    assert "alice" in body and "bob" in body


def test_conflicts_list_disagreements_and_adjudication_sets_final_label(client, campaign, lead, alice, bob):
    items_a = _judge(client, alice, campaign, [0])
    items_b = _judge(client, bob, campaign, [3])
    assert items_a == items_b
    logged_in(client, lead)
    url = reverse("campaign-conflicts", args=[campaign.collection.slug, campaign.pk])
    body = client.get(url).content.decode()
    assert "D1-1" in body and "alice" in body and "bob" in body
    response = client.post(url, {"item": items_a[0], "grade": 2, "note": "narrative says batteries count"})
    assert response.status_code == 302
    adjudication = Adjudication.objects.get(item_id=items_a[0])
    assert adjudication.grade == 2 and adjudication.decided_by == lead
    assert "narrative says batteries count" in client.get(url).content.decode()


def test_freeze_download_and_compare_qrels_versions(client, campaign, lead, alice, bob):
    _judge(client, alice, campaign, [1, 0])
    _judge(client, bob, campaign, [1, 0])
    logged_in(client, lead)
    url = reverse("campaign-qrels", args=[campaign.collection.slug, campaign.pk])
    assert client.post(url, {"rule": "majority", "description": "first"}).status_code == 302
    _judge(client, alice, campaign, [3])
    _judge(client, bob, campaign, [3])
    logged_in(client, lead)
    assert client.post(url, {"rule": "majority", "description": "second"}).status_code == 302
    v1, v2 = QrelsVersion.objects.order_by("number")
    download = client.get(reverse("campaign-qrels-download", args=[campaign.collection.slug, campaign.pk, v1.number]))
    assert download.content.decode() == v1.content
    assert download.content.decode().splitlines()[0] == "401 0 D1-1 1"
    body = client.get(url, {"a": v1.number, "b": v2.number}).content.decode()
    assert 'id="comparison"' in body and f"only in v{v2.number}: 1" in body


def test_comparing_a_version_with_a_malformed_line_names_the_line_instead_of_dropping_it(client, campaign, lead,
                                                                                        alice, bob):
    _judge(client, alice, campaign, [1])
    _judge(client, bob, campaign, [1])
    logged_in(client, lead)
    url = reverse("campaign-qrels", args=[campaign.collection.slug, campaign.pk])
    client.post(url, {"rule": "majority", "description": "first"})
    client.post(url, {"rule": "majority", "description": "second"})
    v1, v2 = QrelsVersion.objects.order_by("number")
    QrelsVersion.objects.filter(pk=v2.pk).update(content=v2.content + "401 0 D1-9\n")  # edited outside the app
    body = client.get(url, {"a": v1.number, "b": v2.number}, follow=True).content.decode()
    line = len(v2.content.splitlines()) + 1
    assert f"Cannot compare: qrels v{v2.number}:{line}: expected 4 whitespace-separated fields" in body
    assert 'id="comparison"' not in body


def test_judgments_export_in_csv_and_jsonl(client, campaign, lead, alice):
    _judge(client, alice, campaign, [2])
    logged_in(client, lead)
    base = (campaign.collection.slug, campaign.pk)
    csv_body = b"".join(client.get(reverse("campaign-judgments-export", args=[*base, "csv"])).streaming_content).decode()
    assert len(csv_body.strip().splitlines()) == 2
    jsonl = b"".join(client.get(reverse("campaign-judgments-export", args=[*base, "jsonl"])).streaming_content).decode()
    assert len(jsonl.strip().splitlines()) == 1 and json.loads(jsonl)["grade"] == 2
    assert client.get(reverse("campaign-judgments-export", args=[*base, "xml"])).status_code == 404
