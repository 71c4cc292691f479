"""Small, loud readers for settings that come from the environment.

A misspelt boolean or an unparsable URL must stop the process at start-up,
not be silently taken as the default.
"""
from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    """Return the variable's value, or the default when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a boolean; raise ImproperlyConfigured on anything unrecognised."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_list(name: str, default: list[str]) -> list[str]:
    """Return a comma-separated variable as a list of non-empty, stripped items."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    """Return the variable as an integer; raise ImproperlyConfigured if it is not one."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from exc
