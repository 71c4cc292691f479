"""Sign-in lock-out per account and per address (with an audit line), and the API's rate limits."""
from __future__ import annotations

import logging

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from tests.conftest import PASSWORD


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.LOGIN_FAILURES_PER_IP = 5
    cache.clear()
    yield
    cache.clear()


def sign_in(client, username, password, ip="10.0.0.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_an_account_locks_after_its_failures_even_for_the_right_password(client, lead, caplog):
    for _ in range(3):
        assert sign_in(client, "lead", "wrong").status_code == 200
    with caplog.at_level(logging.WARNING, logger="qrelsmith.audit"):
        response = sign_in(client, "lead", PASSWORD, ip="10.9.9.9")
    assert response.status_code == 200
    assert "Too many failed sign-ins for this account" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert any("login locked out: account='lead'" in record.getMessage() for record in caplog.records)


def test_an_address_locks_after_failures_across_accounts(client, lead, alice):
    for name in ("a", "b", "c", "d", "e"):
        sign_in(client, name, "wrong", ip="10.0.0.7")
    response = sign_in(client, "alice", PASSWORD, ip="10.0.0.7")
    assert "Too many failed sign-ins for this address" in response.content.decode()
    assert sign_in(client, "alice", PASSWORD, ip="10.0.0.8").status_code == 302  # another address is fine


def test_a_success_clears_the_account_counter(client, lead):
    sign_in(client, "lead", "wrong")
    sign_in(client, "lead", "wrong")
    assert sign_in(client, "lead", PASSWORD).status_code == 302
    client.logout()
    sign_in(client, "lead", "wrong")
    sign_in(client, "lead", "wrong")
    assert sign_in(client, "lead", PASSWORD).status_code == 302


@pytest.fixture
def low_rates(monkeypatch):
    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "token": "3/min", "session": "2/min", "anon": "2/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


def test_token_and_session_clients_have_separate_budgets(client, lead, collection, low_rates):
    token = Token.objects.create(user=lead)
    for _ in range(3):
        assert client.get("/api/collections/", HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 200
    throttled = client.get("/api/collections/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert throttled.status_code == 429
    assert throttled.json()["code"] == "throttled" and int(throttled["Retry-After"]) > 0
    client.force_login(lead)
    assert [client.get("/api/collections/").status_code for _ in range(3)] == [200, 200, 429]
