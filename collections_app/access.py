"""The one access gate for collections: every view and API endpoint goes through it.

An object a user may not see is reported as missing (404), so outsiders cannot
probe which collections exist.

Assessors are blind to systems by default: pages and endpoints that show runs, which
systems contributed a pooled document, background jobs (their parameters name runs) or how
systems score (evaluation) ask for ``systems=True``, and an assessor gets 403 there unless
a lead has set ``Collection.assessors_see_systems``. TREC keeps assessors from knowing
which systems retrieved a document or how systems score, because it biases judgments.
"""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
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


def role_sees_systems(role: str | None, collection: Collection) -> bool:
    """Return True if a member with this role may see runs and evaluation (leads always; assessors if opened)."""
    return role == Role.LEAD or (role == Role.ASSESSOR and collection.assessors_see_systems)


def sees_systems(user: AbstractBaseUser | AnonymousUser, collection: Collection) -> bool:
    """Return True if the user may see the collection's runs, pools' systems and evaluation."""
    return role_sees_systems(role_in(user, collection), collection)


class SystemsHidden(PermissionDenied):
    """An assessor asked for runs or evaluation in a collection that keeps its assessors blind."""

    code = "systems_hidden"


def collection_for_user(
    user: AbstractBaseUser | AnonymousUser, slug: str, *, lead_only: bool = False, systems: bool = False
) -> Collection:
    """Return the collection with this slug if the user may see it (or change it, with lead_only).

    Raises Http404 for a missing collection and for one the user is not a member of;
    raises PermissionDenied when a member who is not a lead asks for a lead-only action,
    and SystemsHidden when an assessor asks for runs or evaluation (``systems``) while the
    collection keeps assessors blind.
    """
    try:
        collection = Collection.objects.get(slug=slug)
    except Collection.DoesNotExist:
        raise Http404("No such collection.") from None
    role = role_in(user, collection)
    if role is None:
        raise Http404("No such collection.")
    if lead_only and role != Role.LEAD:
        raise PermissionDenied("Only the collection's leads may do this.")
    if systems and not role_sees_systems(role, collection):
        raise SystemsHidden(
            "Runs and evaluation are hidden from assessors of this collection (blind judging); a lead can open them."
        )
    collection.viewer_role = role  # type: ignore[attr-defined]  # lets templates (navigation) show lead-only links without asking again
    collection.viewer_sees_systems = role_sees_systems(role, collection)  # type: ignore[attr-defined]
    return collection
