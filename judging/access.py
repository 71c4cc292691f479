"""The access gate for campaigns: every judging page and API endpoint resolves campaigns here.

Campaigns inherit the visibility of their collection: a user who is not a member sees
a 404 (outsiders cannot probe which campaigns exist); a member who is not a lead gets a
403 on lead-only actions. Judging itself also needs an ``Assessor`` row in the campaign.
Crowd workers have no account: the crowd pages resolve them from the session instead.
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from collections_app.access import collection_for_user, role_in
from collections_app.models import Membership
from judging.models import Assessor, Campaign
from judging.services import round_sql


class NotAssessor(PermissionDenied):
    """The user may see the campaign but does not judge in it."""

    code = "not_assessor"


class AssessorBlocked(PermissionDenied):
    """The assessor has been stopped from judging in this campaign."""

    code = "blocked"


def campaign_for_user(user, campaign_id: int, *, lead_only: bool = False) -> Campaign:
    """Return the campaign if the user is a member of its collection (a lead, with lead_only).

    Raises Http404 for a missing campaign and for outsiders; PermissionDenied for a
    member who is not a lead when ``lead_only`` is set.
    """
    try:
        campaign = Campaign.objects.select_related("collection", "pool").get(pk=campaign_id)
    except (Campaign.DoesNotExist, ValueError, TypeError):
        raise Http404("No such campaign.") from None
    role = role_in(user, campaign.collection)
    if role is None:
        raise Http404("No such campaign.")
    if lead_only and role != Membership.Role.LEAD:
        raise PermissionDenied("Only a lead of this collection may do this.")
    campaign.collection.viewer_role = role  # for this request: pages and the API read it instead of asking again
    return campaign


def lead_campaign_for_user(user, slug: str, campaign_id: int) -> Campaign:
    """Return the campaign for a lead of the collection named in the URL (lead pages' URLs carry both).

    Raises Http404 for outsiders and for a campaign of another collection than ``slug`` (so a
    lead of two collections cannot mix their URLs), PermissionDenied for a member who is not a lead.
    """
    collection = collection_for_user(user, slug, lead_only=True)
    campaign = campaign_for_user(user, campaign_id, lead_only=True)
    if campaign.collection_id != collection.pk:
        raise Http404("No such campaign.")
    return campaign


def assessor_for_user(*, campaign: Campaign, user) -> Assessor:
    """Return the user's expert Assessor row in the campaign, refusing non-assessors and blocked ones.

    Membership of the collection is not enough: the lead chooses who judges a campaign.
    """
    if not getattr(user, "is_authenticated", False):
        raise NotAssessor("Log in to judge.")
    assessor = (
        Assessor.objects.select_related("campaign__collection")
        .filter(campaign=campaign, user=user, kind=Assessor.Kind.EXPERT)
        .first()
    )
    if assessor is None:
        raise NotAssessor("You are not an assessor of this campaign.")
    if assessor.blocked:
        raise AssessorBlocked("You have been stopped from judging in this campaign.")
    return assessor


def judging_assessor(*, user, campaign_id: int) -> Assessor:
    """Return the user's expert Assessor row in a campaign they may judge, campaign and collection joined.

    The judging API's hot path: one query (``round_sql.gate_assessor``, written in SQL so a
    request binds parameters instead of compiling a four-table join) answers what
    ``campaign_for_user`` and ``assessor_for_user`` answer with three (campaign, membership,
    assessor). When it finds no row, the two are asked in turn so the refusal is the same as theirs (404 for outsiders and
    missing campaigns, ``NotAssessor`` for members who do not judge it); a blocked assessor
    gets ``AssessorBlocked``.
    """
    if not getattr(user, "is_authenticated", False):
        raise NotAssessor("Log in to judge.")
    assessor = None
    if isinstance(campaign_id, int):
        # superusers act as leads everywhere (``role_in``): no membership needed
        assessor = round_sql.gate_assessor(user_id=user.pk, campaign_id=campaign_id, member_join=not user.is_superuser)
    if assessor is None:
        return assessor_for_user(campaign=campaign_for_user(user, campaign_id), user=user)
    if assessor.blocked:
        raise AssessorBlocked("You have been stopped from judging in this campaign.")
    return assessor


def campaigns_for_assessor(user) -> QuerySet[Campaign]:
    """Return the active campaigns the user judges in, newest first."""
    if not getattr(user, "is_authenticated", False):
        return Campaign.objects.none()
    return (
        Campaign.objects.filter(
            assessors__user=user,
            assessors__kind=Assessor.Kind.EXPERT,
            assessors__blocked=False,
            status=Campaign.Status.ACTIVE,
            collection__memberships__user=user,
        )
        .distinct()
        .order_by("-created_at", "-id")
    )
