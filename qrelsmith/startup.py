"""Refuse to serve in an unsafe or broken state, before the first request instead of on every request.

``qrelsmith.wsgi`` calls ``serving_problems`` when gunicorn (or any WSGI server) loads the app:
the public development key or DEBUG on would let anyone forge sessions or read tracebacks, and
DEBUG=0 without collected static files would answer every page with a 500 (missing manifest).
``QRELSMITH_ALLOW_INSECURE=1`` lets a developer serve a DEBUG build through gunicorn anyway.
This module imports no app.
"""
from __future__ import annotations

import os
from pathlib import Path

from qrelsmith.env import DEV_SECRET_KEY, env_bool

MANIFEST_STORAGE = "whitenoise.storage.CompressedManifestStaticFilesStorage"


def serving_problems(settings) -> list[str]:
    """Return why these settings must not serve requests (empty when they may)."""
    problems = []
    if not env_bool("QRELSMITH_ALLOW_INSECURE", False):
        if settings.SECRET_KEY == DEV_SECRET_KEY:
            problems.append("SECRET_KEY is the public development key; set SECRET_KEY to a long random value.")
        if settings.DEBUG:
            problems.append("DEBUG is on; set DEBUG=0 for a server others can reach.")
    problems.extend(static_problems(settings))
    return problems


def static_problems(settings) -> list[str]:
    """Say so when the manifest static storage is on but collectstatic has not written its manifest."""
    backend = settings.STORAGES.get("staticfiles", {}).get("BACKEND", "")
    if backend != MANIFEST_STORAGE:
        return []
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if manifest.is_file():
        return []
    return [f"static files are not collected ({manifest} is missing): run "
            "`manage.py collectstatic --noinput` with the same STATIC_ROOT before starting the server."]


def check_or_exit(settings) -> None:
    """Raise ImproperlyConfigured listing every problem, so the server stops at start-up with the reason."""
    from django.core.exceptions import ImproperlyConfigured

    problems = serving_problems(settings)
    if problems:
        raise ImproperlyConfigured("qrelsmith refuses to serve: " + " ".join(problems)
                                   + f" (settings: {os.environ.get('DJANGO_SETTINGS_MODULE', 'qrelsmith.settings')})")
