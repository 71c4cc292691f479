"""Sign-in lock-out per account and per address (with an audit line), and the API's rate limits."""
from __future__ import annotations

import logging
import uuid

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


# --- the sliding-window counter -----------------------------------------------------------------

from qrelsmith.throttles import (  # noqa: E402 - grouped with the tests that use them
    TokenThrottle,
    count_in_window,
    seconds_until_allowed,
    weighted_count,
)


def test_the_previous_window_counts_for_the_share_still_inside_the_period():
    assert weighted_count(current=4, previous=10, elapsed_share=0.25) == 11.5
    assert weighted_count(current=4, previous=10, elapsed_share=1.0) == 4


@pytest.mark.parametrize(("current", "previous", "share"), [(3, 0, 0.5), (2, 6, 0.1), (0, 9, 0.9), (5, 5, 0.0),
                                                             (9, 2, 0.3), (10, 0, 0.99)])
def test_retry_after_is_when_the_estimate_first_has_room_again(current, previous, share):
    """Stepping the clock through the next two windows, room returns exactly when the wait says."""
    limit, duration = 5, 60
    wait = seconds_until_allowed(current=current, previous=previous, elapsed_share=share, limit=limit,
                                 duration=duration)
    for tenth in range(0, 1200):
        t = tenth / 10
        moved = share + t / duration
        estimate = (weighted_count(current, previous, moved) if moved < 1
                    else weighted_count(0, current, moved - 1))
        if estimate <= limit - 1 + 1e-9:
            assert t == pytest.approx(wait, abs=0.11)
            return
    raise AssertionError("never had room")


class _Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_burst_at_a_window_edge_does_not_double_the_rate(monkeypatch):
    """A fixed window would allow 2 × limit around the edge; the sliding estimate allows about the limit."""
    clock = _Clock(6000.0 - 1.0)  # one second before a minute's edge
    monkeypatch.setattr(TokenThrottle, "timer", clock)
    monkeypatch.setattr(TokenThrottle, "THROTTLE_RATES", {"token": "10/min"})

    class Request:
        user = type("U", (), {"is_authenticated": True, "pk": 7})()
        auth = Token()

    def burst() -> int:
        return sum(TokenThrottle().allow_request(Request(), None) for _ in range(15))

    assert burst() == 10  # a full minute's budget just before the edge
    clock.now += 2.0  # just after it: the previous window still counts for 59/60 of itself
    assert burst() == 1  # 10 × 59/60 leaves room for one (a fixed window would allow ten more)
    clock.now += 60.0  # a whole period later the budget is back
    assert burst() == 10


def test_redis_counts_in_one_round_trip_as_the_generic_cache_counts(settings):
    from django.core.cache.backends.locmem import LocMemCache

    from qrelsmith.redis_cache import RedisCache

    shared = RedisCache("redis://127.0.0.1:6379/8", {"KEY_PREFIX": f"throttle-{uuid.uuid4().hex[:6]}"})
    local = LocMemCache("throttle-test", {})
    try:
        shared.set("probe", 1, 5)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"Redis not reachable ({type(exc).__name__})")
    seen = []
    for cache_ in (shared, local):
        counts = [count_in_window(cache_, "k", 100, 60) for _ in range(3)]
        counts += [count_in_window(cache_, "k", 101, 60) for _ in range(2)]
        seen.append(counts)
    assert seen[0] == seen[1] == [(1, 0), (2, 0), (3, 0), (1, 3), (2, 3)]
    assert shared.get("k:101") == 2  # a counter reads back through the cache API
