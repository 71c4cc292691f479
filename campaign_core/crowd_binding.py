"""Bind a crowd worker to the browser that started the work: a signed, HTTP-only cookie per campaign.

The cookie holds the worker's secret (their ``session_key``, the same secret as their resume
link), signed with the site's key and a per-campaign salt, so it cannot be forged or moved to
another campaign, and HTTP-only, so page scripts never read it. Workers who joined before
the cookie existed are bound through the Django session under the kind's older name
(``legacy_name``), so their browsers keep working.
"""
from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse

from campaign_core.crowd import CROWD, CrowdKind

MAX_AGE = 60 * 60 * 24 * 60  # two months: longer than any study, shorter than forever


def _name(kind: CrowdKind, campaign) -> str:
    return f"qs_crowd_{kind.name}_{campaign.pk}"


def bound_worker(request: HttpRequest, *, kind: CrowdKind, campaign, legacy_name: str = ""):
    """Return the crowd worker this browser is bound to in the campaign, or None."""
    name = _name(kind, campaign)
    try:
        secret = request.get_signed_cookie(name, default="", salt=name, max_age=MAX_AGE)
    except signing.BadSignature:
        secret = ""
    if not secret and legacy_name:
        secret = request.session.get(legacy_name, "")
    if not secret:
        return None
    return (kind.assessor_model._default_manager.filter(campaign=campaign, kind=CROWD, session_key=secret)
            .select_related("campaign").first())


def bind(request: HttpRequest, response: HttpResponse, *, kind: CrowdKind, campaign, worker,
         legacy_name: str = "") -> HttpResponse:
    """Bind this browser to ``worker`` on ``response`` (replacing an earlier binding to someone else) and return it."""
    name = _name(kind, campaign)
    response.set_signed_cookie(name, worker.session_key, salt=name, max_age=MAX_AGE, httponly=True,
                               samesite="Lax", secure=request.is_secure())
    if legacy_name and legacy_name in request.session:
        del request.session[legacy_name]  # the cookie is the binding from now on
    return response


def client_ip(request: HttpRequest) -> str:
    """Return the visitor's IP address: REMOTE_ADDR, or behind ``settings.PROXY_HOPS`` trusted proxies,
    the address that many entries from the right of X-Forwarded-For (entries further left are the
    client's own claims, which anyone can forge)."""
    hops = getattr(settings, "PROXY_HOPS", 0)
    if hops > 0:
        chain = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(chain) >= hops:
            return chain[-hops]
    return request.META.get("REMOTE_ADDR", "")
