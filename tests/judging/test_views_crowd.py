"""Crowd pages: platform entry, preview, consent, session identity, resume, completion, stop."""
from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from judging.models import Assessor, Judgment
from tests.browser.factories import make_campaign

PROLIFIC = {"PROLIFIC_PID": "pid-1", "STUDY_ID": "study-1", "SESSION_ID": "sess-1"}


@pytest.fixture
def campaign(collection, lead, alice):
    return make_campaign(
        collection, lead=lead, assessors=[alice], crowd_enabled=True, crowd_batch_size=3,
        crowd_completion_code="C0DE42", crowd_completion_url="https://app.prolific.com/submissions/complete",
        crowd_instructions="Read the topic first.",
    )


def _url(name, campaign):
    return reverse(name, args=[campaign.crowd_token])


def _enter(client, campaign, params=PROLIFIC):
    return client.get(_url("crowd-entry", campaign), params)


def _consent(client, campaign):
    return client.post(_url("crowd-consent", campaign), {"consent": "yes"})


def _submit(client, campaign, item, grade=1):
    body = {"item": item, "grade": grade, "client_token": str(uuid.uuid4()), "active_seconds": 1.0}
    return client.post(_url("crowd-submit", campaign), data=json.dumps(body), content_type="application/json")


def test_prolific_worker_enters_consents_and_lands_on_judging(client, campaign):
    response = _enter(client, campaign)
    assert response.status_code == 302 and response["Location"] == _url("crowd-consent", campaign)
    page = client.get(_url("crowd-consent", campaign)).content.decode()
    assert "Read the topic first." in page
    assert _consent(client, campaign)["Location"] == _url("crowd-judge", campaign)
    worker = Assessor.objects.get(campaign=campaign, kind="crowd")
    assert worker.worker_id == "pid-1" and worker.consented_at is not None
    assert client.get(_url("crowd-judge", campaign)).status_code == 200


def test_consent_is_required_before_judging(client, campaign):
    _enter(client, campaign)
    response = client.post(_url("crowd-consent", campaign), {})
    assert response.status_code == 200 and b"tick the box" in response.content
    assert client.get(_url("crowd-judge", campaign))["Location"] == _url("crowd-consent", campaign)
    assert client.get(_url("crowd-state", campaign)).status_code == 403


def test_mturk_preview_shows_instructions_only(client, campaign):
    response = _enter(client, campaign, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "h1"})
    assert response.status_code == 200
    assert b"previewing" in response.content and b"judge-initial" not in response.content
    assert not Assessor.objects.filter(kind="crowd").exists()


def test_worker_identity_comes_from_the_session_not_the_url(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    state = client.get(_url("crowd-state", campaign), {"PROLIFIC_PID": "someone-else"}).json()
    _submit(client, campaign, state["current"]["item"])
    assert list(Judgment.objects.values_list("assessor__worker_id", flat=True)) == ["pid-1"]


def test_returning_worker_in_the_same_browser_resumes_the_same_batch(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    first = client.get(_url("crowd-state", campaign)).json()["current"]["item"]
    _submit(client, campaign, first)
    response = _enter(client, campaign)
    assert response["Location"] == _url("crowd-judge", campaign)  # consent remembered
    state = client.get(_url("crowd-state", campaign)).json()
    assert state["current"]["item"] != first
    assert Assessor.objects.filter(kind="crowd").count() == 1


def test_a_new_browser_needs_the_resume_link_shown_on_the_consent_page(client, campaign):
    _enter(client, campaign)
    page = client.get(_url("crowd-consent", campaign)).content.decode()
    worker = Assessor.objects.get(kind="crowd")
    resume = reverse("crowd-resume", args=[campaign.crowd_token, worker.session_key])
    assert resume in page
    _consent(client, campaign)
    client.cookies.clear()
    assert _enter(client, campaign).status_code == 403  # the platform id alone no longer gets the worker back
    assert client.get(resume)["Location"] == _url("crowd-judge", campaign)
    assert client.get(_url("crowd-state", campaign)).status_code == 200
    assert Assessor.objects.filter(kind="crowd").count() == 1


def test_finishing_the_batch_gives_the_completion_code_and_redirect(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    state = client.get(_url("crowd-state", campaign)).json()
    for _ in range(10):
        if state.get("redirect") or not state["current"]:
            break
        state = _submit(client, campaign, state["current"]["item"]).json()
    assert state["redirect"] == _url("crowd-complete", campaign)
    page = client.get(_url("crowd-complete", campaign)).content.decode()
    worker = Assessor.objects.get(kind="crowd")
    assert worker.completion_code and worker.completion_code in page
    assert "https://app.prolific.com/submissions/complete?cc=" in page
    assert Judgment.objects.filter(assessor=worker).count() == 3


def test_completion_page_before_finishing_sends_the_worker_back(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    assert client.get(_url("crowd-complete", campaign))["Location"] == _url("crowd-judge", campaign)


def test_blocked_worker_sees_the_stop_page(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    Assessor.objects.filter(kind="crowd").update(blocked=True, blocked_reason="gold accuracy 0/3")
    assert client.get(_url("crowd-judge", campaign))["Location"] == _url("crowd-stopped", campaign)
    page = client.get(_url("crowd-stopped", campaign)).content.decode()
    assert "no more tasks" in page and "gold accuracy" not in page
    item = campaign.items.first().pk
    assert _submit(client, campaign, item).status_code == 403


def test_a_full_batch_records_nothing_more(client, campaign):
    _enter(client, campaign)
    _consent(client, campaign)
    state = client.get(_url("crowd-state", campaign)).json()
    judged = []
    while state.get("current"):
        judged.append(state["current"]["item"])
        state = _submit(client, campaign, judged[-1]).json()
    extra = campaign.items.exclude(pk__in=judged).first().pk
    response = _submit(client, campaign, extra)
    assert response.status_code == 409 and response.json()["code"] == "batch_complete"
    assert Judgment.objects.count() == 3


def test_mturk_worker_finishes_with_an_external_submit_form(client, campaign):
    params = {"workerId": "A1", "assignmentId": "asg-9", "hitId": "h1", "turkSubmitTo": "https://workersandbox.mturk.com"}
    assert _enter(client, campaign, params)["Location"] == _url("crowd-consent", campaign)
    _consent(client, campaign)
    state = client.get(_url("crowd-state", campaign)).json()
    while state.get("current"):
        state = _submit(client, campaign, state["current"]["item"]).json()
    page = client.get(_url("crowd-complete", campaign)).content.decode()
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in page
    assert 'name="assignmentId" value="asg-9"' in page
