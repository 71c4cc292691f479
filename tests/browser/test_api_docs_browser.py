"""/api/docs/ with no internet: Swagger UI comes from our own static files and lists the operations."""
from __future__ import annotations

import pytest

from tests.browser.checks import LAPTOP, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_api_docs_render_operations_offline_and_no_page_asks_for_a_missing_favicon(page, login, live_server, lead):
    outside, missing = [], []

    def only_the_app(route):
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_app)
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.set_viewport_size(LAPTOP)
    login(lead, "/api/docs/")
    page.wait_for_selector(".opblock-summary-path", timeout=15_000)
    paths = page.eval_on_selector_all(".opblock-summary-path", "els => els.map(e => e.textContent.trim())")
    assert any("/api/collections/" in p for p in paths)
    assert len(paths) > 10
    screenshot(page, "api-docs-offline")
    assert outside == []
    page.goto(live_server.url + "/")
    page.wait_for_load_state("networkidle")
    assert missing == []
    assert page.get_attribute("link[rel=icon]", "href").endswith("favicon.svg")


def test_favicon_ico_redirects_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("qrelsmith/favicon.svg")
