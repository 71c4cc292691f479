"""Template access to the viewer's role, so navigation offers only the pages the viewer may open."""
from django import template

from collections_app.access import is_lead
from collections_app.models import Membership

Role = Membership.Role

register = template.Library()


@register.simple_tag(takes_context=True)
def viewer_is_lead(context, collection) -> bool:
    """True when the requesting user leads ``collection``.

    Uses the role ``collection_for_user`` already found for this request when there is one;
    otherwise one small query.
    """
    known = getattr(collection, "viewer_role", None)
    if known is not None:
        return known == Role.LEAD
    request = context.get("request")
    return bool(request is not None and is_lead(request.user, collection))


@register.simple_tag(takes_context=True)
def viewer_sees_systems(context, collection) -> bool:
    """True when the requesting user may see runs and evaluation here (blind assessors may not)."""
    from collections_app.access import sees_systems

    known = getattr(collection, "viewer_sees_systems", None)
    if known is not None:
        return known
    request = context.get("request")
    return bool(request is not None and sees_systems(request.user, collection))
