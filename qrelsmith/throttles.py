"""API rate limits, counted in the shared cache (Redis when CACHE_URL is set).

Three scopes so each kind of caller has its own budget: ``anon`` per client address for calls
without credentials, ``token`` per user for API-token clients (scripts, the judging clients of
crowd platforms) and ``session`` per user for the browser pages' own API calls. Rates come from
THROTTLE_ANON / THROTTLE_TOKEN / THROTTLE_SESSION. A throttled call gets 429 with Retry-After.

How they count: a sliding-window counter, not DRF's list of request times. DRF reads and writes
the caller's whole history on every request (two cache round trips, and a list as long as the
rate: 3,000 timestamps pickled twice per call at the default token rate), and two workers
doing so at once lose each other's entries. Here each request makes one atomic increment of
the current window's counter and reads the previous window's in the same round trip
(``count_in_window``); the rate is judged on ``previous × (share of the previous window still
inside the last period) + current`` — the usual approximation of a sliding window, which never
lets a burst at a window's edge double the rate as a fixed window would.
"""
from __future__ import annotations

import math

from rest_framework.authtoken.models import Token
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle


def count_in_window(cache, key: str, window: int, duration: int) -> tuple[int, int]:
    """Count one request in window number ``window``; return (this window's count so far, the previous window's).

    One round trip on the Redis backend (``qrelsmith.redis_cache.RedisCache.count``); other
    caches use add/incr/get (local memory: in-process, so round trips cost nothing).
    """
    current, previous = f"{key}:{window}", f"{key}:{window - 1}"
    if hasattr(cache, "count"):
        return cache.count(current, previous, timeout=2 * duration)
    if cache.add(current, 1, 2 * duration):
        count = 1
    else:
        try:
            count = cache.incr(current)
        except ValueError:  # expired between add and incr
            cache.add(current, 1, 2 * duration)
            count = 1
    return count, cache.get(previous, 0)


def weighted_count(current: int, previous: int, elapsed_share: float) -> float:
    """The sliding-window estimate: the previous window counts for the share of it still inside the period."""
    return previous * (1.0 - elapsed_share) + current


def seconds_until_allowed(*, current: int, previous: int, elapsed_share: float, limit: int, duration: int) -> float:
    """How long until the estimate falls below ``limit`` again if no request comes meanwhile (for Retry-After).

    The estimate falls as the previous window slides out: within this window it reaches
    ``limit - 1`` (room for one more) at share ``1 - (limit - 1 - current) / previous``; when this
    window alone is already at the limit, the wait runs into the next window, where this one
    becomes the previous.
    """
    room = limit - 1
    if current <= room:
        share = 1.0 - (room - current) / previous if previous else elapsed_share
        return max(0.0, (share - elapsed_share) * duration)
    share_next = 1.0 - room / current
    return (1.0 - elapsed_share + share_next) * duration


class _CountingThrottle(SimpleRateThrottle):
    """DRF's rate throttle with the sliding-window counter above instead of the per-request history."""

    num_requests: int  # set by SimpleRateThrottle.__init__ from the scope's rate
    duration: int

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window, into = divmod(self.now, self.duration)
        self.elapsed_share = into / self.duration
        self.current, self.previous = count_in_window(self.cache, self.key, int(window), self.duration)
        # This request is counted already: it is allowed if the estimate before it had room.
        if weighted_count(self.current - 1, self.previous, self.elapsed_share) < self.num_requests:
            return True
        # Refused requests do not count (as in DRF's history): take this one back (the rare path).
        self.current -= 1
        try:
            self.cache.decr(f"{self.key}:{int(window)}")
        except ValueError:  # the counter expired meanwhile
            pass
        return False

    def wait(self) -> float:
        seconds = seconds_until_allowed(current=self.current, previous=self.previous,
                                        elapsed_share=self.elapsed_share, limit=self.num_requests,
                                        duration=self.duration)
        return max(1.0, math.ceil(seconds))


class AnonymousThrottle(_CountingThrottle, AnonRateThrottle):
    scope = "anon"


class _UserThrottle(_CountingThrottle):
    by_token: bool

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        if isinstance(request.auth, Token) != self.by_token:
            return None
        return self.cache_format % {"scope": self.scope, "ident": user.pk}


class TokenThrottle(_UserThrottle):
    scope = "token"
    by_token = True


class SessionThrottle(_UserThrottle):
    scope = "session"
    by_token = False
