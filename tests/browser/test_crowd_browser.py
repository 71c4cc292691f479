"""The full Prolific flow in Chromium, with a second browser presenting the same PROLIFIC_PID.

Screenshots of each step go to ``test-artifacts/crowd/`` (git-ignored; ``QS_TEST_ARTIFACTS``
moves it) so a person can look at what workers see.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from campaign_core.services.audit import audit_entries, audit_messages
from judging.models import Assessor, Judgment
from tests.browser.factories import make_campaign, make_gold, make_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(os.environ.get("QS_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")) / "crowd"
IDLE_OR_DONE = (
    "location.pathname.endsWith('/complete/') || "
    "(document.getElementById('judge-app') !== null && !document.getElementById('judge-app').classList.contains('busy'))"
)
FETCH = "async (url) => { const r = await fetch(url); return [r.status, await r.text()]; }"


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _judge(page, times: int) -> None:
    for _ in range(times):
        if "/complete/" in page.url:
            return
        page.keyboard.press("2")
        page.wait_for_function(IDLE_OR_DONE)
        page.wait_for_load_state()


def test_prolific_worker_with_an_impersonator_in_a_second_browser(page, second_browser, live_server, collection, lead,
                                                                  alice):
    pool = make_pool(collection, topics=2, docs_per_topic=4)
    campaign = make_campaign(
        collection, lead=lead, assessors=[alice], pool=pool, crowd_enabled=True, crowd_batch_size=4,
        gold_qrels=make_gold(collection, pool, grade=2), gold_rate=0.5, crowd_study_id="S1",
        crowd_completion_url="https://app.prolific.com/submissions/complete",
    )
    link = f"{live_server.url}/crowd/{campaign.crowd_token}/?PROLIFIC_PID=p42&STUDY_ID=S1&SESSION_ID=x9"

    # The worker arrives from Prolific, reads the consent page (with their resume link) and judges two pairs.
    page.goto(link)
    page.wait_for_selector("#consent")
    resume = page.input_value("#resume-link")
    assert resume.startswith(f"{live_server.url}/crowd/{campaign.crowd_token}/resume/")
    _shot(page, "1-consent")
    page.check("#consent")
    page.click("#consent-submit")
    page.wait_for_selector("#doc-text")
    assert not page.is_visible("text=Progress per topic")
    _shot(page, "2-judging")
    _judge(page, 2)
    assert Judgment.objects.filter(assessor__worker_id="p42").count() == 2

    # Someone else opens the same link in another browser: refused, nothing of the worker's is shown.
    intruder = second_browser.new_page()
    response = intruder.goto(link)
    assert response.status == 403
    assert intruder.get_attribute("#crowd-refused", "data-code") == "bound_elsewhere"
    _shot(intruder, "3-second-browser-refused")
    for path in ("state.json", "back.json"):
        status, body = intruder.evaluate(FETCH, f"/crowd/{campaign.crowd_token}/{path}")
        assert status == 403 and '"grade"' not in body and "T1-" not in body
    entries = audit_messages(audit_entries(campaign=campaign, kinds=["crowd_refused"]), ["crowd_refused"])
    assert [data["code"] for _, data in entries] == ["bound_elsewhere"]

    # The worker's own second device uses the secret resume link and finishes the batch there.
    device = second_browser.new_page()
    device.goto(resume)
    device.wait_for_selector("#doc-text")
    _judge(device, 6)
    device.wait_for_url("**/complete/")
    worker = Assessor.objects.get(campaign=campaign, kind="crowd")
    code = device.text_content("#completion-code").strip()
    assert code == worker.completion_code and len(code) == 16
    assert float(device.evaluate(
        "parseFloat(getComputedStyle(document.getElementById('completion-code')).fontSize)")) >= 24
    device.click("#copy-code")
    device.wait_for_selector("#copy-done", state="visible")
    assert "cc=" in device.get_attribute("#completion-link", "href")
    _shot(device, "4-complete")
    assert Judgment.objects.filter(assessor=worker).count() == 4
    assert Assessor.objects.filter(campaign=campaign, kind="crowd").count() == 1

    # Shown once: the first browser, coming back to the completion page, no longer sees the code.
    page.goto(f"{live_server.url}/crowd/{campaign.crowd_token}/complete/")
    assert page.is_visible("#code-already-shown") and code not in page.content()
    _shot(page, "5-code-already-shown")
