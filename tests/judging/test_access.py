"""The campaign access gate: members see campaigns, leads manage them, only assessors judge."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from judging.access import assessor_for_user, campaign_for_user, campaigns_for_assessor
from judging.models import Assessor
from judging.services.campaigns import campaign_set_status

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_campaign, alice):
    return make_campaign(assessors=[alice])


def test_members_see_the_campaign_and_leads_manage_it(campaign, lead, alice, bob):
    assert campaign_for_user(alice, campaign.pk) == campaign
    assert campaign_for_user(bob, campaign.pk) == campaign
    assert campaign_for_user(lead, campaign.pk, lead_only=True) == campaign
    with pytest.raises(PermissionDenied):
        campaign_for_user(alice, campaign.pk, lead_only=True)


@pytest.mark.parametrize("who", ["mallory", "anonymous"])
def test_outsiders_and_anonymous_get_404(campaign, mallory, who):
    user = mallory if who == "mallory" else AnonymousUser()
    with pytest.raises(Http404):
        campaign_for_user(user, campaign.pk)


def test_a_missing_campaign_is_404(lead):
    with pytest.raises(Http404):
        campaign_for_user(lead, 12345)


def test_only_the_campaigns_assessors_judge(campaign, alice, bob, lead):
    assert assessor_for_user(campaign=campaign, user=alice).user == alice
    for user in (bob, lead, AnonymousUser()):
        with pytest.raises(PermissionDenied) as error:
            assessor_for_user(campaign=campaign, user=user)
        assert error.value.code == "not_assessor"


def test_a_blocked_assessor_is_refused(campaign, alice):
    Assessor.objects.filter(campaign=campaign, user=alice).update(blocked=True)
    with pytest.raises(PermissionDenied) as error:
        assessor_for_user(campaign=campaign, user=alice)
    assert error.value.code == "blocked"


def test_my_campaigns_are_the_active_ones_i_judge(campaign, make_campaign, alice, bob):
    other = make_campaign(assessors=[bob])
    assert list(campaigns_for_assessor(alice)) == [campaign]
    assert list(campaigns_for_assessor(bob)) == [other]
    campaign_set_status(campaign=campaign, status="paused")
    assert list(campaigns_for_assessor(alice)) == []
    assert list(campaigns_for_assessor(AnonymousUser())) == []
