"""Backends chosen by environment variables, without settings edits."""
from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from qrelsmith.env import cache_config, media_storage, tasks_config


def test_task_backends_by_name():
    assert tasks_config("database") == {"BACKEND": "django_tasks_db.DatabaseBackend"}
    assert tasks_config("rq") == {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}
    assert tasks_config("django_tasks_db.DatabaseBackend")["BACKEND"] == "django_tasks_db.DatabaseBackend"
    with pytest.raises(ImproperlyConfigured, match="TASKS_BACKEND='celery'"):
        tasks_config("celery")


def test_cache_is_local_by_default_and_redis_by_url():
    assert cache_config("", prefix="p")["BACKEND"].endswith("LocMemCache")
    redis = cache_config("redis://127.0.0.1:6379/8", prefix="i18")
    assert redis == {"BACKEND": "qrelsmith.redis_cache.RedisCache", "LOCATION": "redis://127.0.0.1:6379/8",
                     "KEY_PREFIX": "i18"}
    with pytest.raises(ImproperlyConfigured):
        cache_config("memcached://x", prefix="p")


def test_media_storage_filesystem_or_s3_from_env(monkeypatch):
    assert media_storage("filesystem") == {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    monkeypatch.delenv("AWS_STORAGE_BUCKET_NAME", raising=False)
    with pytest.raises(ImproperlyConfigured, match="AWS_STORAGE_BUCKET_NAME"):
        media_storage("s3")
    monkeypatch.setenv("AWS_STORAGE_BUCKET_NAME", "qs-media")
    monkeypatch.setenv("AWS_S3_ENDPOINT_URL", "http://127.0.0.1:9000")
    config = media_storage("s3")
    assert config["BACKEND"] == "storages.backends.s3.S3Storage"
    assert config["OPTIONS"]["bucket_name"] == "qs-media"
    assert config["OPTIONS"]["endpoint_url"] == "http://127.0.0.1:9000"
    from storages.backends.s3 import S3Storage

    storage = S3Storage(**config["OPTIONS"])  # boto3 is installed and the options are ones it takes
    assert storage.bucket_name == "qs-media" and storage.location == "media"


def test_the_shared_redis_cache_serves_two_clients(settings):
    """Two cache clients (two gunicorn workers) see each other's entries through Redis."""
    from qrelsmith.redis_cache import RedisCache

    location = "redis://127.0.0.1:6379/8"
    first = RedisCache(location, {"KEY_PREFIX": "i18test"})
    second = RedisCache(location, {"KEY_PREFIX": "i18test"})
    try:
        first.set("board", {"map": 0.25}, 30)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"Redis not reachable ({type(exc).__name__})")
    assert second.get("board") == {"map": 0.25}
    second.delete("board")
