"""The judging API: it works for the right person, hides other labels, and refuses everyone else."""
from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from judging.models import Adjudication, Item, Judgment, QrelsVersion
from tests.conftest import PASSWORD
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_campaign, alice):
    """A campaign judged by alice only; bob assesses the collection but not this campaign."""
    return make_campaign(assessors=[alice], crowd_enabled=True, crowd_batch_size=2)


def as_user(client, user):
    if user is not None:
        assert client.login(username=user.username, password=PASSWORD)
    return client


def post(client, url, body=None):
    return client.post(url, data=json.dumps(body or {}), content_type="application/json")


def submit(client, campaign, item, grade, token=None, **extra):
    body = {"item": item, "grade": grade, "client_token": token or uuid.uuid4().hex, **extra}
    return post(client, reverse("api-campaign-submit", args=[campaign.pk]), body)


def next_item(client, campaign):
    return post(client, reverse("api-campaign-next", args=[campaign.pk]))


# --- the assessor's workflow -------------------------------------------------------------------

def test_next_returns_topic_document_and_scale_and_leases_the_pair(client, campaign, alice):
    response = next_item(as_user(client, alice), campaign)
    assert response.status_code == 200
    data = response.json()
    assert data["topic"]["qid"] == "401" and data["document"]["docno"] == "T1-D1"
    assert [s["grade"] for s in data["scale"]] == [0, 1, 2, 3] and data["judgment"] is None
    assert next_item(client, campaign).json()["item"] == data["item"]  # reload: same pair


def test_next_never_shows_other_assessors_labels_or_gold(make_campaign, client, alice, bob):
    campaign = make_campaign(assessors=[alice, bob], overlap="replicate", judgments_per_pair=2)
    b = expert(campaign, bob)
    from judging.services.allocation import item_next
    from judging.services.judgments import judgment_submit

    judgment_submit(assessor=b, item=item_next(assessor=b), grade=3, comment="secret-note", client_token="b1")
    body = next_item(as_user(client, alice), campaign).content.decode()
    assert "secret-note" not in body and "gold" not in body and '"judgment": null' in body.replace('":null', '": null')


def test_submit_is_idempotent_and_a_revision_keeps_history(client, campaign, alice):
    item = next_item(as_user(client, alice), campaign).json()["item"]
    first = submit(client, campaign, item, 1, token="tok-1")
    again = submit(client, campaign, item, 1, token="tok-1")
    assert first.status_code == again.status_code == 200 and first.json()["id"] == again.json()["id"]
    revised = submit(client, campaign, item, 3, token="tok-2").json()
    assert revised["grade"] == 3 and revised["revision_count"] == 1
    assert Judgment.objects.count() == 1


def test_submit_errors_carry_codes(client, campaign, alice):
    item = next_item(as_user(client, alice), campaign).json()["item"]
    bad = submit(client, campaign, item, 9)
    assert bad.status_code == 400 and bad.json()["code"] == "bad_grade"
    missing = post(client, reverse("api-campaign-submit", args=[campaign.pk]), {"item": item})
    assert missing.status_code == 400 and missing.json()["code"] == "required"
    assert submit(client, campaign, 10**9, 1).status_code == 404
    skipped = submit(client, campaign, item, None, skipped=True, skip_reason="broken")
    assert skipped.status_code == 200 and skipped.json()["skipped"] is True


def test_submit_to_a_paused_campaign_is_a_conflict(client, campaign, alice):
    from judging.services.campaigns import campaign_set_status

    item = next_item(as_user(client, alice), campaign).json()["item"]
    campaign_set_status(campaign=campaign, status="paused")
    response = submit(client, campaign, item, 1)
    assert response.status_code == 409 and response.json()["code"] == "campaign_closed"


def test_empty_queue_answers_204(client, make_campaign, alice):
    campaign = make_campaign(assessors=[alice])
    as_user(client, alice)
    for _ in range(20):
        submit(client, campaign, next_item(client, campaign).json()["item"], 0)
    assert next_item(client, campaign).status_code == 204


def test_previous_walks_back_through_my_judgments(client, campaign, alice):
    as_user(client, alice)
    items = []
    for grade in (1, 2):
        items.append(next_item(client, campaign).json()["item"])
        submit(client, campaign, items[-1], grade)
    url = reverse("api-campaign-previous", args=[campaign.pk])
    latest = client.get(url).json()
    assert latest["item"] == items[1] and latest["judgment"]["grade"] == 2
    earlier = client.get(url, {"before": latest["judgment"]["id"]}).json()
    assert earlier["item"] == items[0]
    assert client.get(url, {"before": earlier["judgment"]["id"]}).status_code == 204


def test_progress_for_assessor_and_lead(client, campaign, alice, lead):
    as_user(client, alice)
    submit(client, campaign, next_item(client, campaign).json()["item"], 1)
    mine = client.get(reverse("api-campaign-progress", args=[campaign.pk])).json()
    assert mine["mine"]["done"] == 1 and mine["mine"]["assigned"] == 20 and "campaign" not in mine
    client.logout()
    led = as_user(client, lead).get(reverse("api-campaign-progress", args=[campaign.pk])).json()
    assert led["mine"] is None and led["campaign"]["judged"] == 1 and led["campaign"]["required"] == 20


def test_campaign_list_shows_mine_with_roles(client, campaign, alice, lead, bob):
    assert [c["role"] for c in as_user(client, alice).get(reverse("api-campaigns")).json()] == ["assessor"]
    client.logout()
    assert [c["role"] for c in as_user(client, lead).get(reverse("api-campaigns")).json()] == ["lead"]
    client.logout()
    assert as_user(client, bob).get(reverse("api-campaigns")).json() == []


# --- the lead's endpoints ----------------------------------------------------------------------

def test_conflicts_adjudication_freeze_download_and_export(client, make_campaign, alice, bob, lead):
    campaign = make_campaign(assessors=[alice, bob], overlap="replicate", judgments_per_pair=2)
    for user, grade in ((alice, 0), (bob, 2)):
        as_user(client, user)
        submit(client, campaign, next_item(client, campaign).json()["item"], grade)
        client.logout()
    as_user(client, lead)
    conflicts = client.get(reverse("api-campaign-conflicts", args=[campaign.pk])).json()
    assert len(conflicts) == 1 and sorted(x["grade"] for x in conflicts[0]["labels"]) == [0, 2]
    item = conflicts[0]["item"]
    response = post(client, reverse("api-campaign-adjudicate", args=[campaign.pk]), {"item": item, "grade": 1, "note": "n"})
    assert response.status_code == 200 and Adjudication.objects.get(item_id=item).grade == 1
    bad = post(client, reverse("api-campaign-adjudicate", args=[campaign.pk]), {"item": item, "grade": 7})
    assert bad.status_code == 400 and bad.json()["code"] == "bad_grade"
    frozen = post(client, reverse("api-campaign-qrels", args=[campaign.pk]), {"rule": "adjudicated", "description": "v"})
    assert frozen.status_code == 201 and frozen.json()["number"] == 1 and frozen.json()["num_judgments"] == 1
    listed = client.get(reverse("api-campaign-qrels", args=[campaign.pk])).json()
    assert [v["number"] for v in listed] == [1]
    download = client.get(reverse("api-campaign-qrels-download", args=[campaign.pk, 1]))
    assert download.content == b"401 0 T1-D1 1\n" and download["X-Checksum-SHA256"] == QrelsVersion.objects.get().checksum
    assert client.get(reverse("api-campaign-qrels-download", args=[campaign.pk, 2])).status_code == 404
    csv_body = b"".join(client.get(reverse("api-campaign-export", args=[campaign.pk, "csv"])).streaming_content).decode()
    assert len(csv_body.splitlines()) == 3 and csv_body.startswith("judgment_id,assessor_id,assessor,kind")
    jsonl = b"".join(client.get(reverse("api-campaign-export", args=[campaign.pk, "jsonl"])).streaming_content).decode()
    assert sorted(json.loads(line)["grade"] for line in jsonl.splitlines()) == [0, 2]
    assert client.get(reverse("api-campaign-export", args=[campaign.pk, "xml"])).status_code == 404


def test_freeze_with_an_unknown_rule_is_refused(client, campaign, lead):
    response = post(as_user(client, lead), reverse("api-campaign-qrels", args=[campaign.pk]), {"rule": "vibes"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_choice"
    assert not QrelsVersion.objects.exists()


# --- permissions: every endpoint, every persona ------------------------------------------------

JUDGING = ["next", "submit", "previous"]
LEAD = ["conflicts", "adjudicate", "qrels", "freeze", "download", "export"]


def call(client, campaign, endpoint):
    pk = campaign.pk
    first = Item.objects.filter(campaign_id=pk).order_by("position").first()
    item = first.pk if first else 1
    return {
        "detail": lambda: client.get(reverse("api-campaign", args=[pk])),
        "next": lambda: post(client, reverse("api-campaign-next", args=[pk])),
        "submit": lambda: submit(client, campaign, item, 1),
        "previous": lambda: client.get(reverse("api-campaign-previous", args=[pk])),
        "progress": lambda: client.get(reverse("api-campaign-progress", args=[pk])),
        "conflicts": lambda: client.get(reverse("api-campaign-conflicts", args=[pk])),
        "adjudicate": lambda: post(client, reverse("api-campaign-adjudicate", args=[pk]), {"item": item, "grade": 1}),
        "qrels": lambda: client.get(reverse("api-campaign-qrels", args=[pk])),
        "freeze": lambda: post(client, reverse("api-campaign-qrels", args=[pk]), {"rule": "majority"}),
        "download": lambda: client.get(reverse("api-campaign-qrels-download", args=[pk, 1])),
        "export": lambda: client.get(reverse("api-campaign-export", args=[pk, "csv"])),
    }[endpoint]()


ALL = ["detail", "progress", *JUDGING, *LEAD]


@pytest.mark.parametrize("endpoint", ALL)
def test_anonymous_is_refused_everywhere(client, campaign, endpoint):
    response = call(client, campaign, endpoint)
    assert response.status_code in (401, 403) and response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("endpoint", ALL)
def test_an_outsider_sees_no_campaign(client, campaign, mallory, endpoint):
    response = call(as_user(client, mallory), campaign, endpoint)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


@pytest.mark.parametrize("endpoint", ALL)
def test_a_missing_campaign_is_not_found(client, campaign, lead, endpoint):
    campaign.pk = 10**8
    assert call(as_user(client, lead), campaign, endpoint).status_code == 404


@pytest.mark.parametrize("endpoint", ["progress", *JUDGING])
def test_another_assessor_of_the_collection_cannot_judge_this_campaign(client, campaign, bob, endpoint):
    response = call(as_user(client, bob), campaign, endpoint)
    assert response.status_code == 403 and response.json()["code"] == "not_assessor"
    assert not Judgment.objects.exists() and not campaign.items.filter(leases__isnull=False).exists()


@pytest.mark.parametrize("endpoint", LEAD)
def test_assessors_are_refused_lead_endpoints(client, campaign, alice, bob, endpoint):
    for user in (alice, bob):
        response = call(as_user(client, user), campaign, endpoint)
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
        client.logout()
    assert not Adjudication.objects.exists() and not QrelsVersion.objects.exists()


@pytest.mark.parametrize("endpoint", JUDGING)
def test_the_lead_does_not_judge_without_being_an_assessor(client, campaign, lead, endpoint):
    assert call(as_user(client, lead), campaign, endpoint).status_code == 403


@pytest.mark.parametrize("endpoint", ALL)
def test_a_crowd_worker_session_gets_nothing_from_the_api(client, campaign, endpoint):
    entry = client.get(reverse("crowd-entry", args=[campaign.crowd_token]), {"PROLIFIC_PID": "w1"})
    assert entry.status_code == 302  # the worker has a crowd session now
    response = call(client, campaign, endpoint)
    assert response.status_code in (401, 403) and response.json()["code"] == "not_authenticated"


def test_a_blocked_assessor_is_refused(client, campaign, alice):
    expert(campaign, alice).__class__.objects.filter(campaign=campaign, user=alice).update(blocked=True)
    response = next_item(as_user(client, alice), campaign)
    assert response.status_code == 403 and response.json()["code"] == "blocked"


@pytest.mark.parametrize("endpoint", ["detail", "progress", *JUDGING])
def test_the_assessor_reaches_their_endpoints(client, campaign, alice, endpoint):
    assert call(as_user(client, alice), campaign, endpoint).status_code in (200, 204)


@pytest.mark.parametrize("endpoint", ["detail", "progress", *LEAD])
def test_the_lead_reaches_lead_endpoints(client, campaign, lead, endpoint):
    from judging.services.qrels import qrels_freeze

    qrels_freeze(campaign=campaign, rule="majority", description="", user=lead)
    assert call(as_user(client, lead), campaign, endpoint).status_code in (200, 201)


def test_campaign_api_shows_its_keys_and_guidelines_read_only(client, campaign, alice, lead):
    from judging.services.guidelines import campaign_set_keys_and_guidelines

    campaign_set_keys_and_guidelines(campaign=campaign, keys={"2": "n"}, guidelines="Read the **whole** page.")
    client.force_login(alice)
    detail = client.get(reverse("api-campaign", args=[campaign.pk])).json()
    assert detail["keys"] == {"2": "n"} and detail["guidelines"] == "Read the **whole** page."
    listed = next(c for c in client.get(reverse("api-campaigns")).json() if c["id"] == campaign.pk)
    assert listed["keys"] == {"2": "n"} and listed["guidelines"] == "Read the **whole** page."


def test_campaign_detail_names_the_callers_role_as_the_list_does(client, campaign, alice, lead):
    """The detail endpoint once called everyone "assessor": it passed the serializer no roles."""
    for user, role in ((lead, "lead"), (alice, "assessor")):
        client.force_login(user)
        assert client.get(reverse("api-campaign", args=[campaign.pk])).json()["role"] == role
        listed = next(c for c in client.get(reverse("api-campaigns")).json() if c["id"] == campaign.pk)
        assert listed["role"] == role
