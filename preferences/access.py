"""Who may see and do what in preference campaigns (same rules as judging.access).

Outsiders and anonymous users get 404 (campaigns cannot be probed); members who are not
leads get 403 on lead pages; judging needs the user's own expert PrefAssessor row, not
blocked (403, as judging.access.AssessorBlocked). Crowd workers are resolved from the
browser's binding to the campaign (``campaign_core.crowd_binding``).
"""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

from collections_app.access import role_in
from collections_app.models import Membership
from preferences.models import PrefAssessor, PrefCampaign


def campaign_for_user(user, campaign_id, *, lead_only: bool = False) -> PrefCampaign:
    """Return the campaign if the user is a member of its collection (a lead, with lead_only)."""
    try:
        campaign = PrefCampaign.objects.select_related("collection", "run_a", "run_b").get(pk=campaign_id)
    except (PrefCampaign.DoesNotExist, ValueError, TypeError):
        raise Http404("No such campaign.") from None
    role = role_in(user, campaign.collection)
    if role is None:
        raise Http404("No such campaign.")
    if lead_only and role != Membership.Role.LEAD:
        raise PermissionDenied("Only a lead of this collection may do this.")
    campaign.collection.viewer_role = role  # type: ignore[attr-defined]  # for this request: the navigation reads it instead of asking again
    return campaign


def assessor_for_user(*, campaign: PrefCampaign, user) -> PrefAssessor:
    """Return the user's expert assessor row; PermissionDenied when the lead did not add them or blocked them."""
    assessor = PrefAssessor.objects.filter(campaign=campaign, user=user, kind=PrefAssessor.Kind.EXPERT).first()
    if assessor is None:
        raise PermissionDenied("You are not an assessor of this campaign.")
    if assessor.blocked:
        raise PermissionDenied("You have been stopped from judging in this campaign.")
    assessor.campaign = campaign  # already loaded with its collection: spare the services a query
    return assessor


def crowd_campaign(token: str) -> PrefCampaign:
    """Return the crowd-enabled campaign of a study link; 404 for unknown or disabled links."""
    campaign = PrefCampaign.objects.filter(crowd_token=token, crowd_enabled=True).select_related("collection").first()
    if campaign is None:
        raise Http404("No such study.")
    return campaign


def crowd_assessor(request, token: str) -> PrefAssessor:
    """Return the crowd worker this browser is bound to for the link; 404 for unknown/disabled links or no binding."""
    from campaign_core.crowd_binding import bound_worker
    from preferences.services import crowd

    campaign = crowd_campaign(token)
    assessor = bound_worker(request, kind=crowd.KIND, campaign=campaign, legacy_name=crowd.legacy_session_name(campaign))
    if assessor is None:
        raise Http404("Open the study link first.")
    return assessor


def campaigns_for_assessor(user):
    """Return the active preference campaigns the user judges in as an expert, newest first."""
    if not getattr(user, "is_authenticated", False):
        return PrefCampaign.objects.none()
    return (PrefCampaign.objects.filter(assessors__user=user, assessors__kind=PrefAssessor.Kind.EXPERT,
                                        assessors__blocked=False, status=PrefCampaign.Status.ACTIVE, collection__memberships__user=user)
            .select_related("collection").distinct().order_by("-pk"))
