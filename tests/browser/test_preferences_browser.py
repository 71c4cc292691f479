"""Side-by-side judging with the keyboard only, in headless Chromium against the live server."""
from __future__ import annotations

import pytest

from collections_app.models import Document
from preferences.models import PrefJudgment
from preferences.services.campaigns import side_by_side_create
from tests.preferences.conftest import build_runs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_assessor_judges_three_topics_by_keyboard(page, login, live_server, collection, alice):
    topics, (run_a, run_b) = build_runs(collection)
    Document.objects.filter(docno="T1-D1").update(title="<script>window.__pwned = 1</script> wind")
    campaign = side_by_side_create(collection=collection, name="sbs-browser", run_a=run_a, run_b=run_b,
                                   topics=topics[:3], assessors=[alice], seed=3)
    login(alice, f"/preferences/{campaign.pk}/judge/")
    page.wait_for_selector("#pref-form")
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("#pref-left li").count() == 10 and page.locator("#pref-right li").count() == 10
    assert page.locator(".pref-panel mark").count() > 0  # query terms highlighted
    shown = []
    for key, choice in (("ArrowLeft", -1), ("2", 0), ("3", 1)):
        item_id = int(page.get_attribute("#pref-form", "data-item"))
        first_left = page.get_attribute("#pref-left li", "data-docno")
        shown.append((item_id, choice, first_left))
        page.keyboard.press("e")  # expand full texts: still the same page
        assert page.locator(".pref-panel details[open]").count() == 20
        with page.expect_navigation():
            page.keyboard.press(key)
        page.wait_for_selector("#pref-form, #pref-nothing")
    assert page.locator("#pref-nothing").count() == 1
    assert page.text_content("#pref-done") == "3"
    judgments = {j.item_id: j for j in PrefJudgment.objects.select_related("item")}
    assert len(judgments) == 3
    for item_id, choice, first_left in shown:
        j = judgments[item_id]
        item = j.item
        assert j.choice == choice
        assert j.outcome == (-choice if item.left_is_a else choice)
        assert first_left == (item.a_docnos if item.left_is_a else item.b_docnos)[0]  # mapping as shown
        assert j.active_seconds >= 0
    assert {judgments[i].item.left_is_a for i, _, _ in shown} == {True, False}  # seed 3 mixes placements


def test_assessor_goes_back_with_the_keyboard_and_changes_an_answer(page, login, live_server, collection, alice):
    topics, (run_a, run_b) = build_runs(collection)
    campaign = side_by_side_create(collection=collection, name="sbs-back", run_a=run_a, run_b=run_b,
                                   topics=topics[:2], assessors=[alice], seed=3)
    login(alice, f"/preferences/{campaign.pk}/judge/")
    order = []
    for key in ("1", "3"):
        page.wait_for_selector("#pref-form")
        order.append(int(page.get_attribute("#pref-form", "data-item")))
        with page.expect_navigation():
            page.keyboard.press(key)
    page.wait_for_selector("#pref-nothing")
    with page.expect_navigation():
        page.keyboard.press("Backspace")  # the latest answer: the second topic, shown with what I chose
    assert int(page.get_attribute("#pref-form", "data-item")) == order[1]
    assert page.locator("#pref-right-better.chosen").count() == 1
    with page.expect_navigation():
        page.keyboard.press("Backspace")  # one further back: the first topic
    assert int(page.get_attribute("#pref-form", "data-item")) == order[0]
    assert "left better" in page.text_content("#pref-revising")
    page.keyboard.press("s")  # strength: slightly
    with page.expect_navigation():
        page.keyboard.press("2")  # change it to "about the same"
    page.wait_for_selector("#pref-nothing")
    first = PrefJudgment.objects.get(item_id=order[0])
    assert (first.choice, first.outcome, first.strength, first.revision_count) == (0, 0, 1, 1)
    assert list(first.revisions.values_list("old_choice", "new_choice")) == [(-1, 0)]
    assert PrefJudgment.objects.get(item_id=order[1]).revision_count == 0
    with page.expect_navigation():
        page.keyboard.press("k")
    with page.expect_navigation():
        page.keyboard.press("n")  # back to new items: nothing is left
    assert page.locator("#pref-nothing").count() == 1
