"""Assessors find their preference campaigns under My judging; only their own are listed."""
from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_my_judging_lists_my_preference_campaigns_with_a_judge_link(client, make_sbs, alice):
    campaign = make_sbs(name="alpha vs beta")
    client.force_login(alice)
    html = client.get(reverse("my-campaigns")).content.decode()
    assert 'id="preference-campaigns"' in html and "alpha vs beta" in html
    assert reverse("pref-judge", args=[campaign.pk]) in html


def test_my_judging_hides_campaigns_i_do_not_judge_and_closed_ones(client, make_sbs, alice, lead):
    mine = make_sbs(name="mine", assessors=[alice])
    make_sbs(name="theirs", assessors=[])
    closed = make_sbs(name="closed", assessors=[alice])
    closed.status = type(closed).Status.CLOSED
    closed.save(update_fields=["status"])
    client.force_login(alice)
    html = client.get(reverse("my-campaigns")).content.decode()
    assert reverse("pref-judge", args=[mine.pk]) in html
    assert "theirs" not in html and reverse("pref-judge", args=[closed.pk]) not in html
    client.force_login(lead)
    assert 'id="preference-campaigns"' not in client.get(reverse("my-campaigns")).content.decode()


def test_lead_preference_pages_carry_the_collection_navigation(client, make_sbs, lead):
    campaign = make_sbs(name="alpha vs beta")
    slug = campaign.collection.slug
    client.force_login(lead)
    for url in (reverse("pref-campaign-list", args=[slug]), reverse("pref-campaign-new", args=[slug]),
                reverse("pref-campaign-results", args=[campaign.pk])):
        html = client.get(url).content.decode()
        assert 'class="subnav"' in html, url
        assert reverse("evaluation-leaderboard", args=[slug]) in html and reverse("planner", args=[slug]) in html, url
