"""Call an OpenAI-compatible chat-completions endpoint with retries, backoff, timeouts and a rate limit.

No Django here. :class:`ChatClient` sends one request per call through ``httpx`` and returns a
:class:`CallOutcome` instead of raising, so the caller records every call the same way:

- 429, 5xx, timeouts and connection errors are retried up to ``max_attempts`` times, waiting
  ``backoff · 2^(attempt-1)`` seconds (or the server's ``Retry-After``, capped at 60 s);
- any other error status (401 bad key, 404 unknown model, 400 bad request) is *fatal*: retrying
  cannot help, and the run stops instead of spending the same refusal on every pair;
- a 200 whose body is not a chat completion counts as a server error (retried).

:class:`RateLimiter` spaces requests ``60 / requests_per_minute`` seconds apart across threads.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import httpx

RETRY_AFTER_CAP = 60.0


@dataclass
class CallOutcome:
    """What one call came to after its retries."""

    ok: bool
    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    logprobs: list = field(default_factory=list)
    http_status: int | None = None
    attempts: int = 0
    latency_seconds: float = 0.0
    error: str = ""
    fatal: bool = False


class RateLimiter:
    """Hand out request slots at most ``per_minute`` a minute (0: no limit), safe across threads."""

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.clock, self.sleep = clock, sleep
        self.lock = threading.Lock()
        self.next_slot = float("-inf")

    def wait(self) -> None:
        """Block until this caller's slot comes."""
        if not self.interval:
            return
        with self.lock:
            now = self.clock()
            slot = max(now, self.next_slot)
            self.next_slot = slot + self.interval
        if slot > now:
            self.sleep(slot - now)


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return min(float(response.headers["retry-after"]), RETRY_AFTER_CAP)
    except (KeyError, ValueError):
        return None


class ChatClient:
    """One endpoint and model, called with retries; share one instance between the worker threads."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, max_attempts: int = 5,
                 backoff: float = 1.0, limiter: RateLimiter | None = None,
                 sleep: Callable[[float], None] = time.sleep, transport: httpx.BaseTransport | None = None) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self.limiter = limiter or RateLimiter(0)
        self.sleep = sleep
        self.http = httpx.Client(timeout=httpx.Timeout(timeout), headers=headers, transport=transport)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def complete(self, messages: Sequence[dict], *, temperature: float, max_tokens: int,
                 logprobs: bool = False) -> CallOutcome:
        """Send one chat completion, retrying what can be retried; never raises for HTTP trouble."""
        body: dict = {"model": self.model, "messages": list(messages), "temperature": temperature,
                      "max_tokens": max_tokens}
        if logprobs:
            body.update(logprobs=True, top_logprobs=5)
        started = time.monotonic()
        outcome = CallOutcome(ok=False)
        for attempt in range(1, self.max_attempts + 1):
            outcome.attempts = attempt
            self.limiter.wait()
            wait = None
            try:
                response = self.http.post(self.url, json=body)
            except httpx.TimeoutException as exc:
                outcome.error, outcome.http_status = f"timeout ({type(exc).__name__})", None
            except httpx.TransportError as exc:
                outcome.error, outcome.http_status = f"connection error ({type(exc).__name__}: {exc})", None
            else:
                outcome.http_status = response.status_code
                if response.status_code == 200:
                    if self._read(response, outcome):
                        break
                elif response.status_code == 429 or response.status_code >= 500:
                    outcome.error = f"HTTP {response.status_code}: {response.text[:300]}"
                    wait = _retry_after(response)
                else:
                    outcome.error = f"HTTP {response.status_code}: {response.text[:300]}"
                    outcome.fatal = True
                    break
            if attempt < self.max_attempts:
                self.sleep(wait if wait is not None else self.backoff * 2 ** (attempt - 1))
        outcome.latency_seconds = time.monotonic() - started
        return outcome

    @staticmethod
    def _read(response: httpx.Response, outcome: CallOutcome) -> bool:
        """Fill the outcome from a 200 answer; False (a retryable error) when it is not a chat completion."""
        try:
            data = response.json()
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            outcome.error = f"malformed response: {response.text[:300]}"
            return False
        usage = data.get("usage") or {}
        outcome.ok, outcome.error, outcome.text = True, "", str(text)
        outcome.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        outcome.completion_tokens = int(usage.get("completion_tokens") or 0)
        outcome.logprobs = list(((choice.get("logprobs") or {}).get("content")) or [])
        return True
