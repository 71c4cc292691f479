"""Assessor and crowd pages on phones (360–430 px) and a small laptop: nothing scrolls sideways, axe finds nothing serious."""
from __future__ import annotations

import pytest

from preferences.services.campaigns import side_by_side_create
from tests.browser.checks import LAPTOP, assert_accessible, assert_fits, screenshot
from tests.browser.factories import make_campaign, make_pool
from tests.preferences.conftest import build_runs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [360, 390, 430]


def _walk(page, url: str, name: str, *, ready: str = "main") -> None:
    """Open ``url`` at every phone width and at 1366 px: fits the screen, passes axe, screenshot kept."""
    for width in WIDTHS + [LAPTOP["width"]]:
        page.set_viewport_size({"width": width, "height": 844 if width < 1000 else LAPTOP["height"]})
        page.goto(url)
        page.wait_for_selector(ready)
        screenshot(page, f"{name}-{width}")
        assert_fits(page, f"{name} at {width}px")
    assert_accessible(page, name)


def test_login_and_my_campaigns_fit_a_phone(page, login, live_server, collection, lead, alice):
    page.context.clear_cookies()
    _walk(page, live_server.url + "/accounts/login/", "login", ready="input[name=username]")
    campaign = make_campaign(collection, lead=lead, assessors=[alice], name="a campaign with a rather long name for a phone",
                             pool=make_pool(collection, topics=1, docs_per_topic=2))
    topics, (run_a, run_b) = build_runs(collection)
    side_by_side_create(collection=collection, name="side by side", run_a=run_a, run_b=run_b, topics=topics[:1],
                        assessors=[alice], seed=3)
    login(alice, "/judge/")
    _walk(page, live_server.url + "/judge/", "my-campaigns", ready="#relevance-campaigns")
    assert page.locator(f"a[href='/judge/{campaign.pk}/']").count() == 1
    page.set_viewport_size({"width": 390, "height": 844})
    logout = page.locator("form[action$='/logout/'] button").bounding_box()
    assert logout["x"] + logout["width"] <= 390 and logout["height"] >= 44


def test_preference_judging_page_fits_a_phone(page, login, live_server, collection, alice):
    topics, (run_a, run_b) = build_runs(collection)
    campaign = side_by_side_create(collection=collection, name="sbs-phone", run_a=run_a, run_b=run_b,
                                   topics=topics[:2], assessors=[alice], seed=3)
    login(alice, f"/preferences/{campaign.pk}/judge/")
    _walk(page, live_server.url + f"/preferences/{campaign.pk}/judge/", "preferences-judge", ready="#pref-form")
    page.set_viewport_size({"width": 390, "height": 844})
    for button in page.locator("#pref-form button").all():
        box = button.bounding_box()
        assert box["height"] >= 44 and box["y"] + box["height"] <= 844  # the answer bar is stuck to the bottom


def test_crowd_pages_fit_a_phone(page, live_server, collection, lead, alice):
    campaign = make_campaign(collection, lead=lead, assessors=[alice], crowd_enabled=True, crowd_batch_size=2,
                             pool=make_pool(collection, topics=1, docs_per_topic=3))
    entry = f"{live_server.url}/crowd/{campaign.crowd_token}/?PROLIFIC_PID=p1&STUDY_ID=s&SESSION_ID=x"
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(entry)
    page.wait_for_selector("#consent")
    _walk(page, page.url, "crowd-consent", ready="#consent")
    page.check("#consent")
    page.click("#consent-submit")
    page.wait_for_selector("#doc-text")
    assert page.get_attribute("#topic-progress-block", "hidden") is not None  # a crowd batch has no per-topic progress
    _walk(page, page.url, "crowd-judge", ready="#doc-text")


def test_the_campaign_form_fits_a_phone_with_its_problems_shown(page, login, live_server, collection, lead, alice):
    """The form's "Order" select has long options: they once widened its fieldset past a 390 px screen."""
    pool = make_pool(collection, topics=1, docs_per_topic=2)
    url = f"/c/{collection.slug}/campaigns/new/"
    login(lead, url)
    _walk(page, live_server.url + url, "campaign-new", ready="form")
    page.set_viewport_size({"width": 390, "height": 844})
    page.fill("input[name=name]", "phone")
    page.select_option("select[name=pool]", str(pool.pk))
    page.fill("input[name=lease_seconds]", "5")
    page.fill("input[name=seed]", "99999999999")
    page.evaluate("document.querySelector('main form').noValidate = true")  # the server's messages, not the browser's
    page.click("button:has-text('Start campaign')")
    page.wait_for_selector(".errorlist")
    problems = " ".join(page.locator(".errorlist").all_inner_texts())
    assert "Leases last between 30" in problems and "The seed must be between" in problems
    assert_fits(page, "campaign-new with problems at 390px")
