"""Runs stored before the identifier rule may carry ``/`` (``team/run1``) or other URL-special
characters in their tags: their pages and endpoints still route, and they can be deleted."""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import Run

TAGS = ["team/run1", "a/b/c", "what?", "100%", "hash#1"]


@pytest.fixture
def runs(collection):
    return [Run.objects.create(collection=collection, tag=tag, checksum="0" * 64) for tag in TAGS]


def test_the_collection_page_renders_and_links_each_delete(client, lead, collection, runs):
    client.force_login(lead)
    response = client.get(reverse("collection-detail", args=[collection.slug]))
    assert response.status_code == 200
    for tag in TAGS:
        assert reverse("run-delete", args=[collection.slug, tag]).encode() in response.content.replace(b"&amp;", b"&")


@pytest.mark.parametrize("tag", TAGS)
def test_the_page_deletes_the_run_with_that_exact_tag(client, lead, collection, runs, tag):
    client.force_login(lead)
    response = client.post(reverse("run-delete", args=[collection.slug, tag]))
    assert response.status_code == 302
    assert sorted(Run.objects.values_list("tag", flat=True)) == sorted(set(TAGS) - {tag})


@pytest.mark.parametrize("tag", TAGS)
def test_the_api_fetches_and_deletes_it(client, lead, collection, runs, tag):
    client.force_login(lead)
    url = reverse("api-run", args=[collection.slug, tag])
    assert client.get(url).json()["tag"] == tag
    assert client.delete(url).status_code == 204
    assert not Run.objects.filter(tag=tag).exists()
    assert Run.objects.count() == len(TAGS) - 1


def test_an_assessor_still_cannot_delete_one(client, alice, collection, runs):
    client.force_login(alice)
    assert client.delete(reverse("api-run", args=[collection.slug, "team/run1"])).status_code == 403
    assert client.post(reverse("run-delete", args=[collection.slug, "team/run1"])).status_code in (403, 404)
    assert Run.objects.count() == len(TAGS)
