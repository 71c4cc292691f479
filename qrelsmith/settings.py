"""Settings for qrelsmith: one module, driven by the environment (docs/deployment.md lists every variable).

Safe by default: DEBUG is off and there is no secret key unless one is given. Local development
says so explicitly with ``QRELSMITH_DEV=1`` (``make run`` and the test settings set it), which
turns DEBUG on and allows the built-in development secret. Production sets SECRET_KEY,
ALLOWED_HOSTS and DATABASE_URL=postgres://..., and picks its backends by environment:
``TASKS_BACKEND`` (database or rq), ``CACHE_URL`` (locmem or redis://) and ``MEDIA_STORAGE``
(filesystem or s3). ``qrelsmith.wsgi`` refuses to serve with the development key or DEBUG on.
"""
from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from qrelsmith.env import (
    DEV_SECRET_KEY,
    cache_config,
    env_bool,
    env_int,
    env_list,
    env_str,
    media_storage,
    tasks_config,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# A checkout keeps templates/ and static/ beside the apps; an installed wheel (pip install .) carries
# them inside this package as _templates/ and _static/ (see pyproject.toml).
_INSTALLED = not (BASE_DIR / "templates").is_dir()
TEMPLATES_DIR = Path(__file__).resolve().parent / "_templates" if _INSTALLED else BASE_DIR / "templates"
STATIC_DIR = Path(__file__).resolve().parent / "_static" if _INSTALLED else BASE_DIR / "static"

DEV = env_bool("QRELSMITH_DEV", False)
DEBUG = env_bool("DEBUG", DEV)
SECRET_KEY = env_str("SECRET_KEY", "") or (DEV_SECRET_KEY if DEV else "")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set. In production set SECRET_KEY to a long random value (openssl rand -base64 48); "
        "for local development set QRELSMITH_DEV=1 (make run does) to use the development key."
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEV or DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "django_rq",
    "django_tasks_rq",
    "collections_app",
    "campaign_core",
    "judging",
    "evaluation",
    "preferences",
    "model_assessors",
    "hub",
    "demo",
    "ops",
]

MIDDLEWARE = [
    "ops.middleware.ApiErrorsMiddleware",
    "ops.middleware.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "qrelsmith.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [TEMPLATES_DIR],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The development server (runserver) takes its app from here; gunicorn loads qrelsmith.wsgi, which
# refuses development settings (qrelsmith.startup).
WSGI_APPLICATION = "qrelsmith.wsgi_local.application" if DEV else "qrelsmith.wsgi.application"
ASGI_APPLICATION = "qrelsmith.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
        # A kept-open connection that died (database restart, terminated backend) is
        # replaced before the request uses it, instead of failing that request with a 500.
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
    )
}
# The judging round's fixed SQL statements are prepared on PostgreSQL (qrelsmith.sql_rows: only its
# server-binding cursors prepare; Django's own never do). A transaction-pooling PgBouncer older
# than 1.21 cannot carry prepared statements: set DB_PREPARED_STATEMENTS=0 behind one.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_PREPARED_STATEMENTS", True):
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers proceed while one writer commits; the timeout makes a second
    # writer wait for the lock instead of failing at once ("database is locked").
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [STATIC_DIR]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
MEDIA_URL = "media/"
STORAGES = {
    "default": media_storage(env_str("MEDIA_STORAGE", "filesystem")),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Uploads of many large run files: stream to disk above 2.5 MB, allow big bodies.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 50 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
DATA_UPLOAD_MAX_NUMBER_FILES = 1000
# Every request body (each upload form and endpoint) is refused above this size, before it is read.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 2048) * 1024 * 1024
# A .gz upload is refused while decompressing when it expands past either bound (a gzip bomb).
IMPORT_MAX_GZIP_RATIO = env_int("IMPORT_MAX_GZIP_RATIO", 100)
IMPORT_MAX_DECOMPRESSED_BYTES = env_int("IMPORT_MAX_DECOMPRESSED_MB", 20 * 1024) * 1024 * 1024

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Failed sign-ins are counted per account and per client address in the shared cache.
LOGIN_FAILURES_PER_ACCOUNT = env_int("LOGIN_FAILURES_PER_ACCOUNT", 5)
LOGIN_FAILURES_PER_IP = env_int("LOGIN_FAILURES_PER_IP", 30)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 15 * 60)
# Behind a proxy that appends the client's address to a header, name it (e.g. HTTP_X_FORWARDED_FOR).
CLIENT_IP_HEADER = env_str("CLIENT_IP_HEADER", "")

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        # Joining the browsers' preload list is a per-domain decision, not a default.
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    # /healthz is probed over plain HTTP by load balancers on the private network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

REST_FRAMEWORK = {
    # Token first: a request without credentials then gets 401 with "WWW-Authenticate: Token".
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "qrelsmith.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "qrelsmith.throttles.AnonymousThrottle",
        "qrelsmith.throttles.TokenThrottle",
        "qrelsmith.throttles.SessionThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "60/min"),
        "token": env_str("THROTTLE_TOKEN", "3000/min"),
        "session": env_str("THROTTLE_SESSION", "1200/min"),
    },
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "qrelsmith.api_errors.exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "qrelsmith API",
    "DESCRIPTION": "Build IR test collections: collections, runs, pools, judging, qrels and metrics.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc come from the pinned drf-spectacular-sidecar package through our own
    # static files, so /api/docs/ works offline and never loads an unpinned CDN script.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # A campaign's order is read (the campaign) and written (POST /api/campaigns/): one enum for both.
    "ENUM_NAME_OVERRIDES": {"CampaignOrderEnum": "judging.models.Campaign.Order"},
}

# Background work (large imports, big pools) goes through Django's tasks API.
# TASKS_BACKEND=database (default; `manage.py db_worker`) needs no extra server;
# TASKS_BACKEND=rq queues on Redis at REDIS_URL (`manage.py rqworker --job-class django_tasks_rq.Job`).
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
TASKS = {"default": tasks_config(env_str("TASKS_BACKEND", "database"))}
RQ_QUEUES = {"default": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": env_int("RQ_JOB_TIMEOUT", 6 * 3600)}}
# Jobs write a heartbeat this often; the reaper (manage.py reap) fails or retries a running job
# whose heartbeat is older than JOB_STALE_SECONDS (its worker died).
JOB_HEARTBEAT_SECONDS = env_int("JOB_HEARTBEAT_SECONDS", 10)
JOB_STALE_SECONDS = env_int("JOB_STALE_SECONDS", 120)

# One cache for every process (evaluation scores, throttles, sign-in lock-outs) when CACHE_URL
# points at Redis; local memory (per process) otherwise.
CACHES = {"default": cache_config(env_str("CACHE_URL", ""), prefix=env_str("CACHE_KEY_PREFIX", "qrelsmith"))}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    # Sign-in lock-outs and reaped jobs: always written, whatever LOG_LEVEL says.
    "loggers": {"qrelsmith.audit": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}

# Crowd links count new workers per client IP address and hour (campaign_core.crowd). Behind
# load balancers or proxies, REMOTE_ADDR is the last proxy's: PROXY_HOPS says how many trusted
# proxies append to X-Forwarded-For, so the client's address is read that many entries from the right.
PROXY_HOPS = env_int("PROXY_HOPS", 0)
