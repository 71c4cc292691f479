"""Crowd integrity in relevance campaigns: no impersonation, no fake-worker floods, per-worker codes, audited refusals.

Each test plays a hostile worker as the issue's probe did: a second browser presenting
someone else's PROLIFIC_PID, made-up ids from one address, a code earned by another worker.
"""
from __future__ import annotations

import csv
import io
import json
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from campaign_core.services.audit import audit_entries, audit_messages
from judging.models import Assessor, Judgment
from judging.services import crowd
from tests.judging.conftest import build_gold

pytestmark = pytest.mark.django_db

VICTIM = {"PROLIFIC_PID": "victim", "STUDY_ID": "study-1", "SESSION_ID": "s-1"}


@pytest.fixture
def campaign(make_campaign):
    return make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=3, crowd_study_id="study-1")


def _url(name, campaign, *args):
    return reverse(name, args=[campaign.crowd_token, *args])


def _submit(client, campaign, item, grade=1):
    body = {"item": item, "grade": grade, "client_token": str(uuid.uuid4()), "active_seconds": 1.0}
    return client.post(_url("crowd-submit", campaign), data=json.dumps(body), content_type="application/json")


def _start(client, campaign, params=VICTIM, ip="10.0.0.1"):
    response = client.get(_url("crowd-entry", campaign), params, REMOTE_ADDR=ip)
    if response.status_code == 302:
        client.post(_url("crowd-consent", campaign), {"consent": "yes"})
    return response


def _refusals(campaign):
    return [data for _, data in audit_messages(audit_entries(campaign=campaign, kinds=["crowd_refused"]), ["crowd_refused"])]


def _finish(client, campaign):
    state = client.get(_url("crowd-state", campaign)).json()
    while state.get("current"):
        state = _submit(client, campaign, state["current"]["item"]).json()
    return state


def test_a_second_browser_with_someone_elses_id_gets_neither_their_history_nor_their_batch(campaign):
    victim = Client()
    _start(victim, campaign)
    first = victim.get(_url("crowd-state", campaign)).json()["current"]["item"]
    _submit(victim, campaign, first, grade=2)

    intruder = Client()
    response = intruder.get(_url("crowd-entry", campaign), VICTIM, REMOTE_ADDR="10.6.6.6")
    assert response.status_code == 403 and 'data-code="bound_elsewhere"' in response.content.decode()
    for name in ("crowd-state", "crowd-back"):
        refused = intruder.get(_url(name, campaign))
        assert refused.status_code == 403 and "grade" not in refused.content.decode()
    assert intruder.get(_url("crowd-judge", campaign)).status_code == 404
    assert _submit(intruder, campaign, first, grade=0).status_code == 403
    assert list(Judgment.objects.values_list("grade", flat=True)) == [2]  # the victim's label stands
    refusal = _refusals(campaign)
    assert refusal and refusal[0]["code"] == "bound_elsewhere" and refusal[0]["worker_id"] == "victim"
    assert refusal[0]["by"] == "system" and "10.6.6.6" not in json.dumps(refusal)  # a keyed hash, not the address


def test_the_victims_own_browser_keeps_working_after_the_attempt(campaign):
    victim, intruder = Client(), Client()
    _start(victim, campaign)
    intruder.get(_url("crowd-entry", campaign), VICTIM)
    assert victim.get(_url("crowd-state", campaign)).json()["current"] is not None
    assert victim.get(_url("crowd-entry", campaign), VICTIM)["Location"] == _url("crowd-judge", campaign)


def test_only_the_secret_resume_link_moves_a_worker_to_another_browser(campaign):
    victim = Client()
    _start(victim, campaign)
    worker = Assessor.objects.get(kind="crowd")
    stranger = Client()
    wrong = stranger.get(_url("crowd-resume", campaign, "not-the-secret"))
    assert wrong.status_code == 403 and stranger.get(_url("crowd-state", campaign)).status_code == 403
    assert _refusals(campaign)[0]["code"] == "bad_resume"
    other_device = Client()
    assert other_device.get(_url("crowd-resume", campaign, worker.session_key))["Location"] == _url("crowd-judge", campaign)
    assert other_device.get(_url("crowd-state", campaign)).status_code == 200


def test_the_binding_cookie_is_signed_and_http_only(campaign):
    client = Client()
    _start(client, campaign)
    name = f"qs_crowd_judging_{campaign.pk}"
    cookie = client.cookies[name]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    worker = Assessor.objects.get(kind="crowd")
    forged = Client()
    forged.cookies[name] = worker.session_key  # the secret without the signature
    assert forged.get(_url("crowd-state", campaign)).status_code == 403


@pytest.mark.parametrize("params, code", [
    ({"PROLIFIC_PID": "p", "STUDY_ID": "another-study"}, "wrong_study"),
    ({"PROLIFIC_PID": "p"}, "wrong_study"),
    ({}, "anonymous_off"),
])
def test_links_for_another_study_or_without_an_id_are_refused(campaign, params, code):
    response = Client().get(_url("crowd-entry", campaign), params)
    assert response.status_code == 403 and f'data-code="{code}"' in response.content.decode()
    assert not Assessor.objects.filter(kind="crowd").exists()
    assert _refusals(campaign)[0]["code"] == code


def test_an_mturk_link_must_carry_the_expected_hit(make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_hit_id="HIT-1")
    refused = Client().get(_url("crowd-entry", campaign), {"workerId": "W", "assignmentId": "A", "hitId": "HIT-2"})
    assert refused.status_code == 403 and 'data-code="wrong_hit"' in refused.content.decode()
    assert Client().get(_url("crowd-entry", campaign), {"workerId": "W", "assignmentId": "A", "hitId": "HIT-1"}).status_code == 302


def test_a_flood_of_made_up_ids_from_one_address_is_capped_per_hour(campaign):
    statuses = [_start(Client(), campaign, {**VICTIM, "PROLIFIC_PID": f"fake-{n}"}).status_code for n in range(8)]
    assert statuses == [302] * 5 + [403] * 3  # the default: 5 new workers per address and hour
    assert Assessor.objects.filter(kind="crowd").count() == 5
    assert _start(Client(), campaign, {**VICTIM, "PROLIFIC_PID": "elsewhere"}, ip="10.0.0.2").status_code == 302
    refusals = _refusals(campaign)
    assert [r["code"] for r in refusals] == ["too_many_from_address"]  # audited once, not once per attempt


def test_the_worker_cap_holds_whatever_the_address(make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_max_workers=2, crowd_max_new_per_ip_hour=0)
    statuses = [_start(Client(), campaign, {"PROLIFIC_PID": f"p{n}"}, ip=f"10.1.0.{n}").status_code for n in range(4)]
    assert statuses == [302, 302, 403, 403] and Assessor.objects.filter(kind="crowd").count() == 2
    assert _refusals(campaign)[0]["code"] == "campaign_full"


def test_anonymous_entry_when_the_lead_allows_it_is_capped_too(make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_anonymous_allowed=True, crowd_max_new_per_ip_hour=2)
    statuses = [Client().get(_url("crowd-entry", campaign)).status_code for _ in range(3)]
    assert statuses == [302, 302, 403]
    assert set(Assessor.objects.values_list("platform", flat=True)) == {"link"}


def test_completion_codes_are_per_worker_unguessable_shown_once_and_valid_only_for_their_worker(campaign):
    codes = {}
    for pid in ("w1", "w2"):
        client = Client()
        _start(client, campaign, {**VICTIM, "PROLIFIC_PID": pid})
        assert _finish(client, campaign)["redirect"] == _url("crowd-complete", campaign)
        page = client.get(_url("crowd-complete", campaign)).content.decode()
        codes[pid] = Assessor.objects.get(worker_id=pid).completion_code
        assert f'id="completion-code">{codes[pid]}<' in page and 'id="copy-code"' in page
        again = client.get(_url("crowd-complete", campaign)).content.decode()
        assert codes[pid] not in again and 'id="code-already-shown"' in again
    assert codes["w1"] != codes["w2"] and all(len(c) == 16 for c in codes.values())  # 16 base-32 letters: 80 bits
    assert crowd.crowd_code_check(campaign=campaign, worker_id="w1", code=codes["w1"])
    assert crowd.crowd_code_check(campaign=campaign, worker_id="w1", code=codes["w1"].lower())
    assert not crowd.crowd_code_check(campaign=campaign, worker_id="w1", code=codes["w2"])
    assert not crowd.crowd_code_check(campaign=campaign, worker_id="nobody", code=codes["w1"])


def test_the_judging_page_of_a_crowd_worker_has_no_per_topic_progress(campaign):
    client = Client()
    _start(client, campaign)
    html = client.get(_url("crowd-judge", campaign)).content.decode()
    assert 'id="topic-progress-block" hidden' in html


def test_the_lead_exports_workers_with_codes_counts_gold_accuracy_and_status(client, collection, make_campaign, lead,
                                                                            alice):
    gold = build_gold(collection, [("401", "T1-D1", 0), ("402", "T2-D1", 0)])
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=4, gold_qrels=gold, gold_rate=0.5,
                             crowd_max_new_per_ip_hour=0)
    done, started, blocked = Client(), Client(), Client()
    _start(done, campaign, {"PROLIFIC_PID": "=HYPERLINK(\"x\")"})
    _finish(done, campaign)
    done.get(_url("crowd-complete", campaign))
    _start(started, campaign, {"PROLIFIC_PID": "p2"})
    _start(blocked, campaign, {"PROLIFIC_PID": "p3"})
    Assessor.objects.filter(worker_id="p3").update(blocked=True, blocked_reason="gold accuracy 0/3")
    url = reverse("campaign-crowd-workers", args=[collection.slug, campaign.pk])
    client.force_login(alice)
    assert client.get(url).status_code == 403
    client.force_login(lead)
    rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
    finished = Assessor.objects.get(worker_id__startswith="=")
    assert [r["status"] for r in rows] == ["completed", "judging", "blocked"]
    assert rows[0]["platform_id"] == "'=HYPERLINK(\"x\")"  # opened as text, never as a formula
    assert rows[0]["completion_code"] == finished.completion_code and rows[0]["judged"] == "4"
    correct, answered = crowd.gold_accuracy(assessor=finished)
    assert (rows[0]["gold_correct"], rows[0]["gold_answered"]) == (str(correct), str(answered)) and answered == 2
    assert rows[1]["completion_code"] == "" and rows[1]["gold_accuracy"] == ""


def test_the_lead_sets_expected_ids_and_caps_and_the_change_is_audited(client, collection, campaign, lead, alice):
    url = reverse("campaign-crowd-settings", args=[collection.slug, campaign.pk])
    settings = {"crowd_study_id": "S-9", "crowd_hit_id": "", "crowd_max_workers": "50",
                "crowd_max_new_per_ip_hour": "20", "crowd_anonymous_allowed": "on"}
    client.force_login(alice)
    assert client.post(url, settings).status_code == 403
    client.force_login(lead)
    assert client.post(url, settings).status_code == 302
    campaign.refresh_from_db()
    assert (campaign.crowd_study_id, campaign.crowd_max_workers, campaign.crowd_max_new_per_ip_hour,
            campaign.crowd_anonymous_allowed) == ("S-9", 50, 20, True)
    entry = audit_messages(audit_entries(campaign=campaign, kinds=["crowd_settings"]), ["crowd_settings"])
    assert entry[0][0].user == lead and entry[0][1]["crowd_study_id"] == "S-9"
    assert client.post(url, {**settings, "crowd_max_workers": "-1"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.crowd_max_workers == 50


def test_the_lead_sees_refused_entries_on_the_campaign_page(client, collection, campaign, lead):
    _start(Client(), campaign)
    Client().get(_url("crowd-entry", campaign), VICTIM, REMOTE_ADDR="10.6.6.6")
    client.force_login(lead)
    page = client.get(reverse("campaign-detail", args=[collection.slug, campaign.pk])).content.decode()
    assert 'id="crowd-refusals"' in page and "bound_elsewhere" in page and "victim" in page
