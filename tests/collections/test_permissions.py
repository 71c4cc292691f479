"""Permissions of every collections page and API endpoint, for every persona.

Leads may do everything; assessors may read but not change; outsiders (mallory) get 404
as if the collection did not exist; anonymous visitors are sent to log in (pages) or
refused with 401/403 (API).
"""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from collections_app.models import Job, Pool, Run
from tests.collections.web_factories import RUN_LINES, seed

READ_PAGES = [
    "/c/demo/",
    "/c/demo/members/",
    "/c/demo/pools/p10/",
]
SYSTEM_PAGES = ["/c/demo/pools/p10/", "/c/demo/jobs/1/"]  # name runs: hidden from blind assessors
LEAD_PAGES = [
    "/c/demo/upload/topics/",
    "/c/demo/upload/documents/",
    "/c/demo/upload/runs/",
    "/c/demo/upload/qrels/",
    "/c/demo/pools/new/",
]
READ_API = [
    "/api/collections/demo/",
    "/api/collections/demo/members/",
    "/api/collections/demo/topics/",
    "/api/collections/demo/documents/",
    "/api/collections/demo/documents/D1/",
    "/api/collections/demo/runs/",
    "/api/collections/demo/runs/bm25/",
    "/api/collections/demo/qrels/",
    "/api/collections/demo/pools/",
    "/api/collections/demo/pools/p10/",
    "/api/collections/demo/pools/p10/stats/",
    "/api/collections/demo/pools/p10/pairs/",
    "/api/collections/demo/jobs/",
]
SYSTEM_API = [url for url in READ_API if any(part in url for part in ("/runs/", "/pools/", "/jobs/"))]


@pytest.fixture
def seeded(collection):
    return seed(collection)


def _client(client, user):
    if user is not None:
        client.force_login(user)
    return client


def _api(user):
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.mark.parametrize("url", READ_PAGES + LEAD_PAGES)
def test_lead_opens_every_page(client, lead, seeded, url):
    assert _client(client, lead).get(url).status_code == 200


@pytest.mark.parametrize("url", READ_PAGES)
def test_assessor_may_read_the_pages(client, alice, seeded, url):
    if url in SYSTEM_PAGES:
        seeded["run"].collection.assessors_see_systems = True
        seeded["run"].collection.save()
    assert _client(client, alice).get(url).status_code == 200


@pytest.mark.parametrize("url", SYSTEM_PAGES)
def test_blind_assessor_is_refused_pages_that_name_systems(client, alice, seeded, url):
    assert _client(client, alice).get(url).status_code == 403


def test_blind_assessor_sees_no_runs_pools_or_jobs_on_the_collection_page(client, alice, lead, seeded):
    body = _client(client, alice).get("/c/demo/").content.decode()
    assert "bm25" not in body and "p10" not in body and "Recent jobs" not in body
    client.force_login(lead)
    assert "bm25" in client.get("/c/demo/").content.decode()


def test_lead_opens_and_closes_systems_to_assessors(client, alice, lead, seeded):
    collection = seeded["run"].collection
    assert _client(client, alice).post("/c/demo/blindness/", {"assessors_see_systems": "1"}).status_code == 403
    client.force_login(lead)
    assert client.post("/c/demo/blindness/", {"assessors_see_systems": "1"}).status_code == 302
    collection.refresh_from_db()
    assert collection.assessors_see_systems
    client.force_login(alice)
    assert "bm25" in client.get("/c/demo/").content.decode()
    client.force_login(lead)
    client.post("/c/demo/blindness/", {"assessors_see_systems": "0"})
    collection.refresh_from_db()
    assert not collection.assessors_see_systems


@pytest.mark.parametrize("url", LEAD_PAGES)
def test_assessor_is_refused_lead_pages(client, alice, seeded, url):
    assert _client(client, alice).get(url).status_code == 403


@pytest.mark.parametrize("url", READ_PAGES + LEAD_PAGES + ["/c/demo/jobs/1/"])
def test_outsider_gets_404_on_every_page(client, mallory, seeded, url):
    assert _client(client, mallory).get(url).status_code == 404


@pytest.mark.parametrize("url", ["/", "/collections/new/"] + READ_PAGES + LEAD_PAGES)
def test_anonymous_is_sent_to_log_in(client, seeded, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize("url", READ_API)
def test_lead_and_assessor_read_every_endpoint(lead, alice, seeded, url):
    assert _api(lead).get(url).status_code == 200
    blind = _api(alice).get(url)
    assert blind.status_code == (403 if url in SYSTEM_API else 200)
    seeded["run"].collection.assessors_see_systems = True
    seeded["run"].collection.save()
    assert _api(alice).get(url).status_code == 200


@pytest.mark.parametrize("url", READ_API)
def test_outsider_gets_404_from_every_endpoint(mallory, seeded, url):
    response = _api(mallory).get(url)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("url", ["/api/collections/"] + READ_API)
def test_anonymous_is_refused_by_the_api(seeded, url):
    assert _api(None).get(url).status_code in (401, 403)


def _writes():
    run_file = lambda: SimpleUploadedFile("r.run", RUN_LINES.encode())  # noqa: E731
    return [
        ("patch", "/api/collections/demo/", {"name": "Renamed"}, "json"),
        ("post", "/api/collections/demo/members/", {"username": "mallory", "role": "lead"}, "json"),
        ("post", "/api/collections/demo/topics/", {"file": SimpleUploadedFile("t.tsv", b"103\tx\n")}, "multipart"),
        ("post", "/api/collections/demo/documents/", {"file": SimpleUploadedFile("d.jsonl", b"{}\n")}, "multipart"),
        ("post", "/api/collections/demo/runs/", {"files": [run_file()]}, "multipart"),
        ("post", "/api/collections/demo/qrels/", {"file": SimpleUploadedFile("q", b"101 0 D1 1\n")}, "multipart"),
        ("post", "/api/collections/demo/pools/", {"name": "new", "strategy": "depth", "depth": 5}, "json"),
        ("post", "/api/collections/demo/pools/p10/deepen/", {"depth": 20}, "json"),
        ("delete", "/api/collections/demo/runs/bm25/", None, None),
        ("delete", "/api/collections/demo/pools/p10/", None, None),
    ]


@pytest.mark.parametrize("index", range(10))
def test_assessor_cannot_change_anything_through_the_api(alice, seeded, index):
    method, url, data, fmt = _writes()[index]
    response = getattr(_api(alice), method)(url, data, format=fmt)
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert Job.objects.count() == 0
    assert Run.objects.filter(tag="bm25").exists() and Pool.objects.filter(name="p10").exists()
    seeded["run"].collection.refresh_from_db()
    assert seeded["run"].collection.name == "Demo"


@pytest.mark.parametrize("index", range(10))
def test_outsider_cannot_change_anything_through_the_api(mallory, seeded, index):
    method, url, data, fmt = _writes()[index]
    response = getattr(_api(mallory), method)(url, data, format=fmt)
    assert response.status_code == 404
    assert Job.objects.count() == 0
    assert Run.objects.filter(tag="bm25").exists() and Pool.objects.filter(name="p10").exists()


@pytest.mark.parametrize("url", ["/c/demo/runs/bm25/delete/", "/c/demo/pools/p10/delete/", "/c/demo/pools/p10/deepen/"])
def test_assessor_cannot_delete_or_deepen_through_the_pages(client, alice, seeded, url):
    assert _client(client, alice).post(url, {"depth": 20}).status_code == 403
    assert Job.objects.count() == 0
    assert Run.objects.filter(tag="bm25").exists() and Pool.objects.filter(name="p10").exists()


def test_assessor_cannot_add_members_through_the_page(client, alice, mallory, seeded):
    response = _client(client, alice).post("/c/demo/members/", {"username": "mallory", "role": "lead"})
    assert response.status_code == 403
    assert not seeded["run"].collection.memberships.filter(user=mallory).exists()


def test_assessor_cannot_upload_through_the_page(client, alice, seeded):
    upload = SimpleUploadedFile("r.run", RUN_LINES.encode())
    response = _client(client, alice).post("/c/demo/upload/runs/", {"files": [upload]})
    assert response.status_code == 403
    assert Job.objects.count() == 0


@pytest.mark.parametrize("index", range(10))
def test_anonymous_cannot_change_anything_through_the_api(seeded, index):
    method, url, data, fmt = _writes()[index]
    response = getattr(_api(None), method)(url, data, format=fmt)
    assert response.status_code in (401, 403)
    assert Job.objects.count() == 0
    assert Run.objects.filter(tag="bm25").exists() and Pool.objects.filter(name="p10").exists()


def test_anonymous_cannot_create_a_collection(db):
    from collections_app.models import Collection

    assert _api(None).post("/api/collections/", {"slug": "x"}, format="json").status_code in (401, 403)
    assert not Collection.objects.exists()


def test_lead_opens_systems_through_the_api_and_an_assessor_cannot(lead, alice, seeded):
    url = "/api/collections/demo/"
    assert _api(alice).patch(url, {"assessors_see_systems": True}, format="json").status_code == 403
    assert _api(alice).get("/api/collections/demo/runs/").status_code == 403
    response = _api(lead).patch(url, {"assessors_see_systems": True}, format="json")
    assert response.status_code == 200 and response.json()["assessors_see_systems"] is True
    assert _api(alice).get("/api/collections/demo/runs/").status_code == 200
