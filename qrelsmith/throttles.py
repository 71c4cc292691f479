"""API rate limits, counted in the shared cache (Redis when CACHE_URL is set).

Three scopes so each kind of caller has its own budget: ``anon`` per client address for calls
without credentials, ``token`` per user for API-token clients (scripts, the judging clients of
crowd platforms) and ``session`` per user for the browser pages' own API calls. Rates come from
THROTTLE_ANON / THROTTLE_TOKEN / THROTTLE_SESSION. A throttled call gets 429 with Retry-After.
"""
from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle


class AnonymousThrottle(AnonRateThrottle):
    scope = "anon"


class _UserThrottle(SimpleRateThrottle):
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
