"""The judging page as found in a browser walk: end of work, phones, custom keys, guidelines, accessibility."""
from __future__ import annotations

import pytest

from judging.models import Judgment
from tests.browser.checks import LAPTOP, PHONE, assert_accessible, assert_fits, screenshot
from tests.browser.factories import make_campaign, make_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IDLE = "!document.getElementById('judge-app').classList.contains('busy')"


def test_finishing_shows_only_the_finished_panel_with_exact_counts(page, login, live_server, collection, lead, alice, bob):
    # A shared queue with two assessors: Alice's total is exact, not an even-share estimate.
    campaign = make_campaign(collection, lead=lead, assessors=[alice, bob], pool=make_pool(collection, topics=2, docs_per_topic=2))
    page.set_viewport_size(LAPTOP)
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    assert page.text_content("#progress-assigned") == "4"
    assert "Shared queue" in page.text_content("#progress-note")
    for _ in range(4):
        page.keyboard.press("1")
        page.wait_for_function(IDLE)
    page.wait_for_selector("#finished:not([hidden])")
    page.wait_for_function("document.getElementById('progress-done').textContent === '4'")
    screenshot(page, "judging-finished-laptop")
    # The document, the topic panel and the label buttons are gone, not merely covered.
    assert not page.is_visible("#work")
    assert not page.is_visible("#label-buttons")
    assert page.text_content("#progress-assigned") == "4"
    assert "4 judgments" in page.text_content("#finished-summary")
    assert page.evaluate("document.activeElement.id") == "finished-title"
    page.keyboard.press("2")  # a label key does nothing now
    page.wait_for_timeout(200)
    assert Judgment.objects.filter(assessor__user=alice).count() == 4
    assert_accessible(page, "finished judging page")

    # Reloaded later, the page still says done: 4 of 4, per topic 2 of 2.
    page.reload()
    page.wait_for_selector("#finished:not([hidden])")
    assert page.text_content("#progress-done") == page.text_content("#progress-assigned") == "4"
    rows = page.eval_on_selector_all("#topic-progress tr", "rows => rows.map(r => r.lastChild.textContent)")
    assert rows == ["2 / 2", "2 / 2"]


def test_shared_queue_total_shrinks_with_a_reason_when_a_colleague_judges(page, login, live_server, collection, lead, alice, bob):
    from judging.models import Assessor, Item
    from judging.services.judgments import judgment_submit

    campaign = make_campaign(collection, lead=lead, assessors=[alice, bob], pool=make_pool(collection, topics=1, docs_per_topic=4))
    page.set_viewport_size(LAPTOP)
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    assert page.text_content("#progress-assigned") == "4"
    shown = int(page.get_attribute("#judge-app", "data-item"))
    bobs = Assessor.objects.get(campaign=campaign, user=bob)
    others = Item.objects.filter(campaign=campaign).exclude(pk=shown).order_by("-position")[:1]
    judgment_submit(assessor=bobs, item=others[0], grade=0, skipped=False, skip_reason="", comment="",
                    active_seconds=1.0, client_token="bob-1")
    page.keyboard.press("1")
    page.wait_for_function(IDLE)
    page.wait_for_function("document.getElementById('progress-assigned').textContent === '3'")
    assert "Total down from 4 to 3" in page.text_content("#progress-note")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone-390", "laptop-1366"])
def test_judging_page_fits_the_screen_and_keeps_title_document_and_labels_in_reach(page, login, live_server, collection, lead, alice, viewport):
    from collections_app.models import Document, Topic

    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=2, docs_per_topic=2))
    Topic.objects.filter(collection=collection).update(title="solar energy storage " + "verylongword" * 8)
    Document.objects.filter(collection=collection).update(text="A_very_long_unbroken_token_" * 30 + "\n" + "Solar text. " * 400)
    page.set_viewport_size(viewport)
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    name = f"judging-{viewport['width']}"
    screenshot(page, name)
    assert_fits(page, name)
    height = viewport["height"]
    # Topic title and the start of the document on the first screen, label buttons on screen too.
    assert page.locator("#topic-title").bounding_box()["y"] < height
    assert page.locator("#doc-text").bounding_box()["y"] < height
    for button in page.locator("#label-buttons button").all():
        box = button.bounding_box()
        assert box["y"] + box["height"] <= height, "label buttons must be reachable without scrolling"
        assert box["height"] >= 44 and box["width"] >= 44
    logout = page.locator("form[action$='/logout/'] button").bounding_box()
    assert logout["x"] + logout["width"] <= viewport["width"]
    if viewport is PHONE:
        assert not page.locator("#topic-details").evaluate("d => d.open")  # folded on a phone
        page.click("#topic-details > summary")
        assert page.is_visible("#topic-description")
        assert_fits(page, name + " topic open")
        # Scrolled to the end of the long document, the answer bar is still there.
        page.mouse.wheel(0, 20000)
        page.wait_for_timeout(100)
        box = page.locator("#label-buttons button").first.bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= height
        screenshot(page, name + "-scrolled")
    page.keyboard.press("1")
    page.wait_for_function(IDLE)
    page.wait_for_function("document.getElementById('status').textContent === 'Saved.'")
    assert page.get_attribute("#status", "aria-live") == "polite"
    assert_accessible(page, name)


def test_campaign_keys_and_guidelines_show_on_buttons_help_and_beside_the_topic(page, login, live_server, collection, lead, alice):
    from collections_app.models import Topic

    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=1, docs_per_topic=3))
    campaign.keys = {"0": "a", "1": "b", "2": "n", "3": "m"}
    campaign.guidelines = "**Read the whole document.** <script>window.__pwned=1</script>"
    campaign.save()
    Topic.objects.filter(collection=collection, qid="401").update(
        guidelines="- Batteries count\n- [bad](javascript:window.__pwned=2)\n<img src=x onerror=window.__pwned=3>",
        description="",
    )
    page.set_viewport_size(LAPTOP)
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    assert page.text_content("#label-buttons .label[data-grade='2'] kbd") == "n"
    page.keyboard.press("?")
    assert "Label “Highly relevant”" in page.text_content("#help-dialog")
    assert page.locator("#help-dialog kbd", has_text="m").count() == 1
    page.keyboard.press("Escape")
    # Guidelines: formatted, sanitised, beside the topic; no empty Description heading.
    assert page.locator("#topic-guidelines li").count() == 2
    assert page.locator(".guidelines strong", has_text="Read the whole document.").count() == 1
    assert page.locator("#topic-guidelines a[href^='javascript']").count() == 0
    assert page.locator("#topic-guidelines img").count() == 0
    assert not page.is_visible("#topic-description-block")
    assert page.is_visible("#topic-narrative-block")
    screenshot(page, "judging-custom-keys-guidelines")
    first = page.get_attribute("#judge-app", "data-item")
    page.keyboard.press("1")  # no longer a label key
    page.wait_for_timeout(150)
    assert page.get_attribute("#judge-app", "data-item") == first
    page.keyboard.press("n")
    page.wait_for_function(IDLE)
    page.wait_for_function("document.getElementById('status').textContent === 'Saved.'")
    assert Judgment.objects.get(item_id=int(first)).grade == 2
    assert page.evaluate("window.__pwned === undefined")


def test_every_tab_stop_on_the_judging_page_shows_a_visible_focus_ring(page, login, live_server, collection, lead, alice):
    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=1, docs_per_topic=2))
    page.set_viewport_size(LAPTOP)
    login(alice, f"/judge/{campaign.pk}/")
    page.wait_for_selector("#doc-text")
    page.evaluate("document.activeElement.blur()")
    seen = []
    for _ in range(14):
        page.keyboard.press("Tab")
        focus = page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
            return {id: e.id || e.tagName, outline: s.outlineStyle, width: parseFloat(s.outlineWidth)}; }""")
        if focus["id"] == "comment":
            break
        seen.append(focus)
    assert len(seen) >= 6  # links, help, topic details, document, label buttons
    for focus in seen:
        assert focus["outline"] != "none" and focus["width"] >= 2, focus
    screenshot(page, "judging-focus-ring")
