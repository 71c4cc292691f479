"""What ``GET /healthz`` checks: the database, the cache, the task queue and media storage.

Each check answers "ok" or the failing exception's class name, never its message (messages can
hold host names, user names or keys).
"""
from __future__ import annotations

import logging
import os
import uuid
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import connection

logger = logging.getLogger(__name__)


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_cache() -> None:
    key = f"healthz:{uuid.uuid4().hex}"
    cache.set(key, "1", 10)
    if cache.get(key) != "1":
        raise RuntimeError("cache did not return the value just written")
    cache.delete(key)


def check_queue() -> None:
    backend = settings.TASKS["default"]["BACKEND"]
    if backend.startswith("django_tasks_rq"):
        import django_rq

        django_rq.get_connection("default").ping()
    elif backend.startswith("django_tasks_db"):
        from django_tasks_db.models import DBTaskResult

        DBTaskResult.objects.exists()


def check_storage() -> None:
    if hasattr(default_storage, "location") and not hasattr(default_storage, "bucket_name"):
        root = default_storage.location
        os.makedirs(root, exist_ok=True)
        if not os.access(root, os.W_OK):
            raise PermissionError("media root is not writable")
    elif hasattr(default_storage, "bucket_name"):
        # HEAD on the bucket: ``exists()`` of a key answers False for a missing bucket too, and
        # this also proves the credentials (S3 and compatible stores answer 403/404 otherwise).
        s3_storage: Any = default_storage  # django-storages' S3Storage; its attributes are not in Storage's stubs
        s3_storage.connection.meta.client.head_bucket(Bucket=s3_storage.bucket_name)
    else:
        default_storage.exists("healthz")


CHECKS = {"database": check_database, "cache": check_cache, "queue": check_queue, "storage": check_storage}


def health() -> tuple[bool, dict[str, str]]:
    """Run every check; return (all ok, {name: "ok" or the error class})."""
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - a health probe reports, it never raises
            logger.warning("healthz: %s check failed", name, exc_info=True)
            results[name] = f"error: {type(exc).__name__}"
        else:
            results[name] = "ok"
    return all(value == "ok" for value in results.values()), results
