"""The lead's pages in headless Chromium: readable charts with legends, no overflow at 1366 px, axe-core clean."""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import Pool
from tests.browser.checks import LAPTOP, assert_accessible, assert_fits, screenshot
from tests.browser.test_dashboard_browser import seed, seed_runs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_lead_pages_fit_a_laptop_show_legends_and_pass_axe(page, login, live_server, collection, lead, alice, bob, tmp_path):
    campaign = seed(collection, lead, alice, bob)
    seed_runs(collection, tmp_path)
    Pool.objects.filter(pk=campaign.pool_id).update(parameters={
        "depth": 100, "runs": [f"a-very-long-run-tag-number-{i}" for i in range(12)], "judgeable_only": True,
    })
    slug = collection.slug
    page.set_viewport_size(LAPTOP)
    dashboard = reverse("campaign-dashboard", args=[slug, campaign.pk])
    login(lead, dashboard)
    page.wait_for_selector("#heatmap svg")
    # The heatmap is sized to its card: cells of 72 px for two assessors, labels ≥ 11 px, a legend.
    cell = page.locator("#heatmap rect.cell").first.bounding_box()
    assert cell["width"] >= 36
    sizes = page.eval_on_selector_all("#heatmap svg text", "ts => ts.map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert min(sizes) >= 11
    assert page.locator("#heatmap g.legend").count() == 1
    screenshot(page, "lead-dashboard", full_page=True)

    pages = {
        "collection": reverse("collection-detail", args=[slug]),
        "campaign-dashboard": dashboard,
        "collection-dashboard": reverse("collection-dashboard", args=[slug]),
        "conflicts": reverse("campaign-conflicts", args=[slug, campaign.pk]),
        "leaderboard": reverse("evaluation-leaderboard", args=[slug]),
        "significance": reverse("evaluation-significance", args=[slug]) + "?runs=2",
        "keys": reverse("campaign-settings", args=[slug, campaign.pk]),
        "qrels": reverse("campaign-qrels", args=[slug, campaign.pk]),
        "stability": reverse("evaluation-stability", args=[slug]),
    }
    for name, url in pages.items():
        page.goto(live_server.url + url)
        page.wait_for_load_state()
        screenshot(page, f"lead-{name}-1366", full_page=True)
        assert_fits(page, name)
        assert_accessible(page, name)

    page.goto(live_server.url + pages["significance"])
    assert page.locator("#significance-legend .swatch").count() == 7
    classes = page.eval_on_selector_all("#significance td", "tds => tds.map(td => td.className)")
    assert all(("sig-" in c) or c.strip() == "num" for c in classes)
    # Run tags keep their case in table headers.
    assert page.eval_on_selector_all("#significance th", "ths => ths.every(th => getComputedStyle(th).textTransform === 'none')")

    page.goto(live_server.url + pages["stability"])
    a, b = page.input_value("select[name=a]"), page.input_value("select[name=b]")
    assert page.locator("select[name=a] option").count() < 2 or a != b  # A and B start on different versions

    page.goto(live_server.url + pages["collection"])
    assert page.locator("#topics").evaluate("d => d.open") is False  # topics folded
    name = page.locator("table.pools td.pool-name a").first.bounding_box()
    assert name["height"] < 30  # the pool name stays on one line
