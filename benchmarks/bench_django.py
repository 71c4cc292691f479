"""Start Django on a throwaway database for a benchmark script (not a benchmark itself).

Every database benchmark needs the same preamble: the PostgreSQL database named by
``--database-url`` (which it will migrate and fill, so it must be a throwaway one) or else a
fresh SQLite file in a temporary directory, production-like settings (``DEBUG=0``), Django
set up and the schema migrated.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def start_django(database_url: str | None, *, name: str, tasks_backend: str | None = None) -> None:
    """Point Django at ``database_url`` (or a new temporary SQLite file), set it up and migrate."""
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        tmp = Path(tempfile.mkdtemp(prefix=f"qs_bench_{name}_"))
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qrelsmith.settings")
    os.environ.setdefault("SECRET_KEY", "bench")
    os.environ.setdefault("DEBUG", "0")
    if tasks_backend:
        os.environ["TASKS_BACKEND"] = tasks_backend
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
