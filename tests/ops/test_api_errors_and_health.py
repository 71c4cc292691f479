"""Every /api/ failure answers JSON; /healthz reports each dependency; the request size limit."""
from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from ops import health


@pytest.fixture
def quiet_client():
    """A client that returns the 500 response instead of re-raising the view's exception."""
    return Client(raise_request_exception=False)


def test_missing_credentials_get_401_with_www_authenticate(client, collection):
    response = client.get("/api/collections/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "not_authenticated"


def test_a_wrong_token_gets_401_too(client, collection):
    response = client.get("/api/collections/", HTTP_AUTHORIZATION="Token nope")
    assert response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_an_unknown_api_url_answers_json_404(client, lead):
    client.force_login(lead)
    response = client.get("/api/no/such/thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


def test_a_server_error_inside_an_api_view_answers_json_500(quiet_client, lead, collection, monkeypatch):
    from collections_app import api

    def explode(*args, **kwargs):
        raise RuntimeError("database password is hunter2")

    monkeypatch.setattr(api.CollectionListCreate, "get_queryset", explode)
    token = Token.objects.create(user=lead)
    response = quiet_client.get("/api/collections/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "server_error" and "hunter2" not in response.content.decode()


def test_a_server_error_outside_drf_answers_json_500_too(quiet_client, lead, collection, monkeypatch):
    from django.contrib.sessions.backends import db

    def broken(self, *args, **kwargs):
        raise RuntimeError("session store down")

    monkeypatch.setattr(db.SessionStore, "load", broken)
    quiet_client.cookies["sessionid"] = "x" * 32
    response = quiet_client.get("/api/collections/")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "server_error"


def test_a_csrf_failure_on_the_api_answers_json(lead, collection):
    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    response = client.post("/api/collections/", {"name": "X", "slug": "x"})
    assert response.status_code == 403
    assert response["Content-Type"].startswith("application/json")


def test_healthz_answers_200_with_every_check_ok(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": dict.fromkeys(("database", "cache", "queue", "storage"), "ok")}


def test_healthz_answers_503_naming_the_failed_check_without_its_message(client, db, monkeypatch):
    def down():
        raise ConnectionError("redis://:s3cret@cache.internal:6379 refused")

    monkeypatch.setitem(health.CHECKS, "cache", down)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["cache"] == "error: ConnectionError"
    assert response.json()["checks"]["database"] == "ok"
    assert "s3cret" not in response.content.decode()


def test_a_body_over_the_upload_limit_is_refused_before_it_is_read(client, lead, collection, settings):
    settings.UPLOAD_MAX_BYTES = 1000
    client.force_login(lead)
    big = b"101\t" + b"x" * 5000 + b"\n"
    from django.core.files.uploadedfile import SimpleUploadedFile

    api = client.post("/api/collections/demo/topics/", {"file": SimpleUploadedFile("t.tsv", big)})
    assert api.status_code == 413 and api.json()["code"] == "too_large"
    assert "the limit is" in api.json()["detail"]
    page = client.post("/c/demo/upload/topics/", {"file": SimpleUploadedFile("t.tsv", big)})
    assert page.status_code == 413 and b"Upload too large" in page.content
    from collections_app.models import Job, Topic

    assert not Job.objects.exists() and not Topic.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_token_call_after_the_database_dropped_the_connection_is_served(lead):
    """The judging round's own cursors (qrelsmith.sql_rows) run the connection health check too.

    Token authentication is the first statement of every API call and runs on those cursors;
    if they skipped the check, a worker's first call after a database restart would be a 500.
    """
    from django.db import connection
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    if connection.vendor != "postgresql":
        pytest.skip("terminating a backend needs PostgreSQL")
    import psycopg

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=lead).key}")
    assert client.get("/api/campaigns/").status_code == 200
    connection.ensure_connection()
    assert connection.health_check_enabled  # CONN_HEALTH_CHECKS is on by default
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("prepare_threshold", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    connection.health_check_done = False  # what a new request does (close_old_connections)
    assert client.get("/api/campaigns/").status_code == 200
    assert connection.connection.info.backend_pid != pid
