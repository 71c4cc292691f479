"""The collection access gate: members see, leads change, outsiders get 404."""
import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404

from collections_app.access import collection_for_user, collections_visible_to, is_lead


def test_lead_may_change_the_collection(collection, lead):
    assert collection_for_user(lead, "demo", lead_only=True) == collection
    assert is_lead(lead, collection)


def test_assessor_sees_but_cannot_change_the_collection(collection, alice):
    assert collection_for_user(alice, "demo") == collection
    with pytest.raises(PermissionDenied):
        collection_for_user(alice, "demo", lead_only=True)


def test_outsider_gets_404_not_403(collection, mallory):
    with pytest.raises(Http404):
        collection_for_user(mallory, "demo")
    assert list(collections_visible_to(mallory)) == []


def test_missing_collection_is_404(collection, lead):
    with pytest.raises(Http404):
        collection_for_user(lead, "nope")


def test_home_requires_login(client, collection):
    response = client.get("/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_home_lists_only_my_collections(client, collection, mallory, alice):
    client.force_login(alice)
    assert b"demo" in client.get("/").content
    client.force_login(mallory)
    assert b"demo" not in client.get("/").content
