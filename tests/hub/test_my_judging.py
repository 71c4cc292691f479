"""The "My judging" hub lists both kinds of campaign and nothing that is not the user's."""
from __future__ import annotations

import pytest
from django.urls import reverse

from tests.browser.factories import make_campaign
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_hub_lists_my_relevance_and_preference_campaigns_but_not_others(client, collection, lead, alice, bob,
                                                                            mallory):
    from preferences.models import PrefAssessor, PrefCampaign

    mine = make_campaign(collection, lead=lead, assessors=[alice], name="alice round")
    make_campaign(collection, lead=lead, assessors=[bob], name="bob round", pool=mine.pool)
    preference = PrefCampaign.objects.create(collection=collection, name="alice prefs", kind="pair")
    PrefAssessor.objects.create(campaign=preference, kind="expert", user=alice)
    client.login(username=alice.username, password=PASSWORD)
    page = client.get(reverse("my-campaigns")).content.decode()
    assert reverse("my-campaigns") == "/judge/"
    assert "alice round" in page and "alice prefs" in page and "bob round" not in page
    client.login(username=mallory.username, password=PASSWORD)
    page = client.get(reverse("my-campaigns")).content.decode()
    assert "alice round" not in page and "alice prefs" not in page


def test_the_hub_needs_a_login(client):
    response = client.get("/judge/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_neither_campaign_kind_imports_the_hub_or_the_other_kinds_access():
    """The hub sits above both kinds: judging's views no longer reach into preferences."""
    import inspect

    from judging.views import assessor

    assert "preferences" not in inspect.getsource(assessor)
