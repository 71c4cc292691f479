"""Sign-in with throttling: failures are counted per account and per client address.

After LOGIN_FAILURES_PER_ACCOUNT failed attempts on one account, or LOGIN_FAILURES_PER_IP from
one address, further attempts are refused for LOGIN_LOCKOUT_SECONDS (counted from the first
failure) with a message saying so, even with the right password, and one audit line is logged
(logger ``qrelsmith.audit``). Counters live in the default cache, so with CACHE_URL=redis://
every gunicorn worker and host shares them. A successful sign-in clears the account's counter.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError

audit = logging.getLogger("qrelsmith.audit")


def client_ip(request) -> str:
    """The client's address: REMOTE_ADDR, or the last hop of CLIENT_IP_HEADER when a trusted proxy sets it."""
    header = getattr(settings, "CLIENT_IP_HEADER", "")
    if header and request.META.get(header):
        return request.META[header].split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _keys(username: str, ip: str) -> tuple[str, str]:
    return f"login-fail:account:{username.strip().lower()}", f"login-fail:ip:{ip}"


def _count(key: str) -> int:
    return int(cache.get(key) or 0)


def _bump(key: str) -> int:
    cache.add(key, 0, settings.LOGIN_LOCKOUT_SECONDS)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, settings.LOGIN_LOCKOUT_SECONDS)
        return 1


def locked_out(username: str, ip: str) -> str | None:
    """Return what is locked ("account" or "address"), or None."""
    account_key, ip_key = _keys(username, ip)
    if username and _count(account_key) >= settings.LOGIN_FAILURES_PER_ACCOUNT:
        return "account"
    if _count(ip_key) >= settings.LOGIN_FAILURES_PER_IP:
        return "address"
    return None


def record_failure(username: str, ip: str) -> None:
    account_key, ip_key = _keys(username, ip)
    if username:
        _bump(account_key)
    _bump(ip_key)


def clear_account(username: str) -> None:
    cache.delete(_keys(username, "")[0])


class ThrottledAuthenticationForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "locked_out": "Too many failed sign-ins for this %(what)s. Sign-in is locked for %(minutes)s minutes; "
                      "try again later or ask a lead to reset your password.",
    }

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        ip = client_ip(self.request) if self.request is not None else "unknown"
        what = locked_out(username, ip)
        if what:
            audit.warning("login locked out: account=%r ip=%s (%s limit reached)", username, ip, what)
            raise ValidationError(
                self.error_messages["locked_out"], code="locked_out",
                params={"what": "account" if what == "account" else "address",
                        "minutes": max(1, settings.LOGIN_LOCKOUT_SECONDS // 60)},
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            record_failure(username, ip)
            if locked_out(username, ip):
                audit.warning("login lock-out starts: account=%r ip=%s", username, ip)
            raise
        clear_account(username)
        return cleaned


class ThrottledLoginView(auth_views.LoginView):
    authentication_form = ThrottledAuthenticationForm
