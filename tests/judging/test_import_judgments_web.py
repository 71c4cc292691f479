"""The lead's judgment-import page and API endpoint: they work, refuse non-leads, and report problems."""
from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judging.models import Campaign, Judgment
from tests.collections.import_helpers import add_topics
from tests.conftest import PASSWORD

GOOD = b"qid,docno,assessor,label\n401,d1,w1,1\n401,d1,w2,0\n"
BAD = b"qid,docno,assessor,label\n401,d1,w1,1\n401,d2,w1,9\n"


def _upload(data: bytes, name: str = "labels.csv"):
    return SimpleUploadedFile(name, data, content_type="text/csv")


def test_lead_imports_a_file_through_the_page(client, collection, lead):
    add_topics(collection, "401")
    client.login(username="lead", password=PASSWORD)
    url = reverse("judgments-import", args=[collection.slug])
    assert client.get(url).status_code == 200
    response = client.post(url, {"campaign": "crowd", "file": _upload(GOOD)})
    campaign = Campaign.objects.get(name="crowd")
    assert response.status_code == 302 and response.url.endswith(f"/campaigns/{campaign.pk}/")
    assert Judgment.objects.filter(item__campaign=campaign).count() == 2
    detail = client.get(response.url)
    assert detail.status_code == 200 and "crowd" in detail.content.decode()
    for name in ("campaign-conflicts", "campaign-qrels", "campaign-final-labels"):
        assert client.get(reverse(name, args=[collection.slug, campaign.pk])).status_code == 200
    # w1 and w2 disagree on d1; the file gave no seconds, so the time shown is "unknown", not "0.0 s".
    conflicts = client.get(reverse("campaign-conflicts", args=[collection.slug, campaign.pk])).content.decode()
    assert "imported:w1" in conflicts and "unknown" in conflicts and "0.0 s" not in conflicts


def test_page_shows_problems_with_lines_and_imports_nothing(client, collection, lead):
    add_topics(collection, "401")
    client.login(username="lead", password=PASSWORD)
    response = client.post(reverse("judgments-import", args=[collection.slug]),
                           {"campaign": "crowd", "file": _upload(BAD)})
    assert response.status_code == 200
    assert "labels.csv:3: label 9 is not on the collection&#x27;s scale" in response.content.decode()
    assert not Campaign.objects.exists()


def test_assessor_and_outsider_cannot_import(client, collection, alice, mallory):
    add_topics(collection, "401")
    url = reverse("judgments-import", args=[collection.slug])
    client.login(username="alice", password=PASSWORD)
    assert client.post(url, {"campaign": "crowd", "file": _upload(GOOD)}).status_code == 403
    client.login(username="mallory", password=PASSWORD)
    assert client.post(url, {"campaign": "crowd", "file": _upload(GOOD)}).status_code == 404
    assert not Campaign.objects.exists()


def test_api_imports_and_reports_problems_in_the_error_shape(client, collection, lead, alice):
    add_topics(collection, "401")
    url = reverse("api-judgments-import", args=[collection.slug])
    client.login(username="alice", password=PASSWORD)
    assert client.post(url, {"campaign": "api", "file": _upload(GOOD)}).status_code == 403
    client.login(username="lead", password=PASSWORD)
    refused = client.post(url, {"campaign": "api", "file": _upload(BAD)})
    assert refused.status_code == 400
    assert refused.json()["code"] == "bad_grade"
    assert refused.json()["problems"][0].startswith("labels.csv:3:")
    assert not Campaign.objects.exists()
    done = client.post(url, {"campaign": "api", "file": _upload(GOOD)})
    assert done.status_code == 201
    assert done.json()["judgments"] == 2 and done.json()["new_assessors"] == 2
    assert client.post(reverse("api-judgments-import", args=["nope"]), {"campaign": "x", "file": _upload(GOOD)}
                       ).status_code == 404
