"""Judging as a person does it: keys only, in headless Chromium against the live server."""
from __future__ import annotations

import pytest

from judging.models import Assessor, Judgment, JudgmentRevision
from tests.browser.factories import SCRIPT_DOC, make_campaign, make_gold, make_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IDLE = "!document.getElementById('judge-app').classList.contains('busy')"
IDLE_OR_DONE = (
    "location.pathname.endsWith('/complete/') || "
    "(document.getElementById('judge-app') !== null && !document.getElementById('judge-app').classList.contains('busy'))"
)



def _shown_item(page) -> str:
    return page.get_attribute("#judge-app", "data-item")


def _press_and_wait(page, key: str) -> None:
    page.keyboard.press(key)
    page.wait_for_function(IDLE)


def test_assessor_judges_five_pairs_by_keyboard_goes_back_and_revises(page, login, live_server, collection, lead, alice):
    from collections_app.models import Document

    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=2, docs_per_topic=4))
    Document.objects.filter(docno="D1-1").update(text=SCRIPT_DOC + " solar")
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    # The untrusted <script> shows as text and never runs; query terms are highlighted.
    assert "<script>window.__pwned = 1</script>" in page.text_content("#doc-text")
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("#doc-text mark").first.text_content().lower() == "solar"
    assert page.text_content("#progress-done") == "0"

    # The first submit is lost on the network: the judgment stays queued and is sent again.
    failures = []

    def drop_first_submit(route):
        if not failures:
            failures.append(route.request.post_data_json["client_token"])
            route.abort()
        else:
            route.continue_()

    page.route("**/submit.json", drop_first_submit)
    seen = []
    for key in ["1", "0", "2", "3", "1"]:
        seen.append(_shown_item(page))
        if len(seen) == 3:  # a comment, still without the mouse
            page.keyboard.press("c")
            page.keyboard.type("mentions batteries")
            page.keyboard.press("Enter")
        _press_and_wait(page, key)
        assert _shown_item(page) != seen[-1]
    page.wait_for_function("document.getElementById('progress-done').textContent === '5'")
    assert failures and Judgment.objects.filter(client_token=failures[0]).count() == 1
    assert page.text_content("#progress-assigned") == "8"

    _press_and_wait(page, "ArrowLeft")
    page.wait_for_selector("#revisit-flag:not([hidden])")
    assert _shown_item(page) == seen[-1]
    assert page.get_attribute("#label-buttons .label[data-grade='1']", "class").split().count("chosen") == 1
    _press_and_wait(page, "2")
    page.wait_for_selector("#revisit-flag[hidden]", state="attached")
    assert page.text_content("#progress-done") == "5"

    page.keyboard.press("?")
    assert page.is_visible("#help-dialog")
    page.keyboard.press("Escape")

    worker = Assessor.objects.get(campaign=campaign, user=alice)
    judgments = Judgment.objects.filter(assessor=worker)
    assert judgments.count() == 5
    assert all(j.active_seconds >= 0 for j in judgments)
    revision = JudgmentRevision.objects.get()
    assert (revision.old_grade, revision.new_grade) == (1, 2)
    assert judgments.get(item_id=int(seen[-1])).grade == 2
    assert judgments.get(item_id=int(seen[2])).comment == "mentions batteries"


def test_crowd_worker_from_prolific_judges_a_batch_with_gold_and_gets_the_code(page, live_server, collection, lead, alice):
    pool = make_pool(collection, topics=2, docs_per_topic=4)
    campaign = make_campaign(
        collection, lead=lead, assessors=[alice], pool=pool, crowd_enabled=True, crowd_batch_size=4,
        gold_qrels=make_gold(collection, pool, grade=2), gold_rate=0.5,
        crowd_completion_url="https://app.prolific.com/submissions/complete",
    )
    page.goto(f"{live_server.url}/crowd/{campaign.crowd_token}/?PROLIFIC_PID=p42&STUDY_ID=s1&SESSION_ID=x9")
    page.check("#consent")
    page.click("#consent-submit")
    page.wait_for_selector("#doc-text")
    for _ in range(10):
        if "/complete/" in page.url:
            break
        page.keyboard.press("2")
        page.wait_for_function(IDLE_OR_DONE)
        page.wait_for_load_state()
    page.wait_for_url("**/complete/")
    code = page.text_content("#completion-code").strip()
    worker = Assessor.objects.get(campaign=campaign, kind="crowd")
    assert worker.worker_id == "p42" and code == worker.completion_code
    assert f"cc={code}" in page.get_attribute("#completion-link", "href")
    judged = Judgment.objects.filter(assessor=worker)
    assert judged.count() == 4
    assert judged.filter(item__is_gold=True).exists()
