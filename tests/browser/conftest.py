"""Shared fixtures for browser tests: pytest-django's live server driven by Playwright in headless Chromium.

Playwright's sync API runs an event loop in this thread, so Django's async-safety check
would refuse ORM calls from the test body; the tests only touch the ORM between page
actions, never concurrently, so the check is switched off for this process.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tests.conftest import PASSWORD

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
    "--no-first-run", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium_context_dir():
    """Give the browser a fresh, throwaway user-data directory."""
    path = tempfile.mkdtemp(prefix="qrelsmith-chromium-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def playwright_driver():
    """Start Playwright once for the session (skipped when Chromium or Playwright is missing)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed")
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser_context(playwright_driver, chromium_context_dir):
    """Start one headless Chromium for the session."""
    context = playwright_driver.chromium.launch_persistent_context(
        chromium_context_dir, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
    )
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def second_browser(playwright_driver):
    """Start another headless Chromium, sharing nothing with the first (a second person, or a second device)."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    context = browser.new_context()
    context.set_default_timeout(10_000)
    yield context
    context.close()
    browser.close()


@pytest.fixture
def page(browser_context, live_server):
    """Open a fresh tab with no cookies or storage left over from another test."""
    browser_context.clear_cookies()
    tab = browser_context.new_page()
    tab.goto(live_server.url + "/accounts/login/")
    tab.evaluate("window.localStorage.clear()")
    yield tab
    tab.close()


@pytest.fixture
def login(page, live_server):
    """Return a function that logs a user in through the real login form."""

    def do_login(user, next_path: str = "/"):
        page.goto(f"{live_server.url}/accounts/login/?next={next_path}")
        page.fill("input[name=username]", user.username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit], input[type=submit]")
        page.wait_for_load_state()

    return do_login

