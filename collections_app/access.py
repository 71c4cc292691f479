"""The one access gate for collections: every view and API endpoint goes through it.

An object a user may not see is reported as missing (404), so outsiders cannot
probe which collections exist.
"""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from collections_app.models import Collection, Membership

Role = Membership.Role


def collections_visible_to(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Collection]:
    """Return the collections the user is a member of (all of them for superusers)."""
    if not user.is_authenticated:
        return Collection.objects.none()
    if user.is_superuser:  # type: ignore[attr-defined]  # AUTH_USER_MODEL is the default User
        return Collection.objects.all()
    return Collection.objects.filter(memberships__user=user).distinct()


def role_in(user: AbstractBaseUser | AnonymousUser, collection: Collection) -> str | None:
    """Return the user's role in the collection ("lead", "assessor") or None.

    Superusers act as leads everywhere.
    """
    if not user.is_authenticated:
        return None
    if user.is_superuser:  # type: ignore[attr-defined]  # AUTH_USER_MODEL is the default User
        return Role.LEAD
    membership = Membership.objects.filter(collection=collection, user=user).only("role").first()
    return membership.role if membership else None


def is_lead(user: AbstractBaseUser | AnonymousUser, collection: Collection) -> bool:
    """Return True if the user may change the collection."""
    return role_in(user, collection) == Role.LEAD


def collection_for_user(
    user: AbstractBaseUser | AnonymousUser, slug: str, *, lead_only: bool = False
) -> Collection:
    """Return the collection with this slug if the user may see it (or change it, with lead_only).

    Raises Http404 for a missing collection and for one the user is not a member of;
    raises PermissionDenied when a member who is not a lead asks for a lead-only action.
    """
    from django.core.exceptions import PermissionDenied

    try:
        collection = Collection.objects.get(slug=slug)
    except Collection.DoesNotExist:
        raise Http404("No such collection.") from None
    role = role_in(user, collection)
    if role is None:
        raise Http404("No such collection.")
    if lead_only and role != Role.LEAD:
        raise PermissionDenied("Only the collection's leads may do this.")
    collection.viewer_role = role  # type: ignore[attr-defined]  # for this request: the navigation shows lead-only links without asking again
    return collection
