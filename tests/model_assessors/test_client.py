"""The HTTP client alone: retry waits, Retry-After, fatal refusals, timeouts, and the rate limiter's spacing."""
from __future__ import annotations

import threading

from model_assessors.client import ChatClient, RateLimiter

MESSAGES = [{"role": "user", "content": "Passage: Doc T1-D1"}]


def _client(server, waits, **options):
    return ChatClient(base_url=server.base_url, model="fake-model", sleep=waits.append,
                      **{"timeout": 0.5, "max_attempts": 4, "backoff": 1.5, **options})


def test_a_429_waits_as_the_server_says_and_a_500_backs_off_exponentially(fake_llm):
    fake_llm.scripts["T1-D1"] = [429, 500, 500]
    waits: list[float] = []
    with _client(fake_llm, waits) as client:
        outcome = client.complete(MESSAGES, temperature=0.0, max_tokens=10)
    assert outcome.ok and outcome.attempts == 4 and outcome.text == "##final score: 2"
    assert waits == [0.0, 3.0, 6.0]  # Retry-After: 0, then 1.5 · 2^1 and 1.5 · 2^2


def test_a_timeout_is_retried_and_the_last_error_is_kept_when_every_attempt_fails(fake_llm):
    fake_llm.scripts["T1-D1"] = ["timeout", 503]
    waits: list[float] = []
    with _client(fake_llm, waits, max_attempts=2) as client:
        outcome = client.complete(MESSAGES, temperature=0.0, max_tokens=10)
    assert not outcome.ok and not outcome.fatal and outcome.attempts == 2
    assert outcome.http_status == 503 and outcome.error.startswith("HTTP 503")


def test_a_refusal_that_retrying_cannot_fix_is_fatal_after_one_attempt(fake_llm):
    fake_llm.models = {"other-model"}
    waits: list[float] = []
    with _client(fake_llm, waits) as client:
        outcome = client.complete(MESSAGES, temperature=0.0, max_tokens=10)
    assert outcome.fatal and outcome.attempts == 1 and outcome.http_status == 404 and waits == []


def test_an_unreachable_endpoint_is_a_connection_error_not_an_exception():
    waits: list[float] = []
    client = ChatClient(base_url="http://127.0.0.1:9/v1", model="m", max_attempts=2, backoff=0.0, sleep=waits.append)
    outcome = client.complete(MESSAGES, temperature=0.0, max_tokens=10)
    assert not outcome.ok and outcome.error.startswith("connection error") and outcome.attempts == 2


class _Clock:
    def __init__(self):
        self.now = 100.0
        self.lock = threading.Lock()

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        with self.lock:
            self.slept.append(round(seconds, 6))

    slept: list


def test_the_rate_limiter_spaces_requests_evenly_across_threads():
    clock = _Clock()
    clock.slept = []
    limiter = RateLimiter(120, clock=clock, sleep=clock.sleep)  # one slot every 0.5 s
    threads = [threading.Thread(target=limiter.wait) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(clock.slept) == [0.5, 1.0, 1.5, 2.0]  # the first goes at once, the others wait their turn
    clock.now = 110.0  # long after: no wait
    clock.slept.clear()
    limiter.wait()
    assert clock.slept == []
    assert RateLimiter(0).interval == 0.0
