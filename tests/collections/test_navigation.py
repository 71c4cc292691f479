"""Collection navigation offers each member the pages they may open, and every link works."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

LEAD_ONLY = ("collection-dashboard", "pref-campaign-list", "planner", "campaign-list")


def _nav_links(html: str) -> list[str]:
    nav = re.search(r'<nav class="subnav" aria-label="Collection">(.*?)</nav>', html, re.S).group(1)
    return re.findall(r'href="([^"]+)"', nav)


@pytest.mark.parametrize("who", ["lead", "alice"])
def test_every_navigation_link_opens_for_the_member_who_sees_it(client, collection, request, who):
    client.force_login(request.getfixturevalue(who))
    links = _nav_links(client.get(reverse("collection-detail", args=[collection.slug])).content.decode())
    leaderboard = reverse("evaluation-leaderboard", args=[collection.slug])
    assert (leaderboard in links) == (who == "lead")  # assessors are blind to systems by default
    for name in LEAD_ONLY:
        assert (reverse(name, args=[collection.slug]) in links) == (who == "lead"), name
    for link in links:
        assert client.get(link).status_code == 200, link


def test_an_assessor_gets_the_leaderboard_link_once_the_lead_opens_systems(client, collection, alice):
    collection.assessors_see_systems = True
    collection.save()
    client.force_login(alice)
    links = _nav_links(client.get(reverse("collection-detail", args=[collection.slug])).content.decode())
    assert reverse("evaluation-leaderboard", args=[collection.slug]) in links
    for link in links:
        assert client.get(link).status_code == 200, link
