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


# The development key is public (it is in this file): qrelsmith.wsgi refuses to serve with it.
DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me"

_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "rq": "django_tasks_rq.RQBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
}


def tasks_config(name: str) -> dict:
    """Return the TASKS entry for ``database``, ``rq`` or ``immediate`` (or a backend's dotted path)."""
    backend = _TASK_BACKENDS.get(name.strip().lower(), name)
    if "." not in backend:
        raise ImproperlyConfigured(f"TASKS_BACKEND={name!r} is not one of {', '.join(_TASK_BACKENDS)}")
    config: dict = {"BACKEND": backend}
    if backend == _TASK_BACKENDS["rq"]:
        config["QUEUES"] = ["default"]
    return config


def cache_config(url: str, *, prefix: str) -> dict:
    """Return the default cache for CACHE_URL: ``redis://``/``rediss://`` (shared) or empty/``locmem://``."""
    url = url.strip()
    if not url or url.startswith("locmem://"):
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "qrelsmith"}
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {"BACKEND": "qrelsmith.redis_cache.RedisCache", "LOCATION": url, "KEY_PREFIX": prefix}
    raise ImproperlyConfigured(f"CACHE_URL={url!r}: use redis://host:port/db, rediss://… or locmem://")


def media_storage(kind: str) -> dict:
    """Return the default storage for MEDIA_STORAGE: ``filesystem`` (MEDIA_ROOT) or ``s3`` (django-storages).

    The S3 backend is configured by AWS_STORAGE_BUCKET_NAME (required), AWS_S3_ENDPOINT_URL
    (for MinIO, Ceph, …), AWS_S3_REGION_NAME, AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or the
    host's role) and MEDIA_S3_PREFIX (a folder inside the bucket).
    """
    kind = kind.strip().lower()
    if kind in ("", "filesystem", "file"):
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    if kind == "s3":
        bucket = env_str("AWS_STORAGE_BUCKET_NAME", "")
        if not bucket:
            raise ImproperlyConfigured("MEDIA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME")
        options = {
            "bucket_name": bucket,
            "location": env_str("MEDIA_S3_PREFIX", "media"),
            "default_acl": None,
            "querystring_auth": True,
            "file_overwrite": False,
        }
        for option, variable in (("endpoint_url", "AWS_S3_ENDPOINT_URL"), ("region_name", "AWS_S3_REGION_NAME"),
                                 ("access_key", "AWS_ACCESS_KEY_ID"), ("secret_key", "AWS_SECRET_ACCESS_KEY")):
            value = env_str(variable, "")
            if value:
                options[option] = value
        return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}
    raise ImproperlyConfigured(f"MEDIA_STORAGE={kind!r}: use filesystem or s3")
