"""Create collections and manage who belongs to them."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from collections_app import scales
from collections_app.models import Collection, Membership


@transaction.atomic
def collection_create(*, slug: str, name: str | None = None, scale: str = scales.GRADED,
                      relevant_threshold: int | None = None, cannot_judge: tuple[int, ...] | list[int] = (),
                      description: str = "", guidelines: str = "", created_by=None) -> Collection:
    """Create a collection with a scale (a preset name or a custom spec, see ``scales.parse_spec``).

    The creator becomes a lead. Raises ValidationError(code="slug_taken") for a slug in use
    and the scale codes of ``scales.parse_spec`` (``scale_spec``, ``scale_threshold``, ...)
    for a scale that cannot be read.
    """
    grades, threshold = scales.parse_spec(scale, relevant_threshold=relevant_threshold, cannot_judge=cannot_judge)
    if Collection.objects.filter(slug=slug).exists():
        raise ValidationError(f"A collection with slug {slug!r} exists.", code="slug_taken")
    collection = Collection(
        slug=slug, name=name or slug, scale=grades, relevant_threshold=threshold,
        description=description or "", guidelines=guidelines or "", created_by=created_by,
    )
    collection.full_clean()
    collection.save()
    if created_by is not None:
        Membership.objects.create(collection=collection, user=created_by, role=Membership.Role.LEAD)
    return collection


@transaction.atomic
def membership_set(*, collection: Collection, user, role: str) -> Membership:
    """Add a user to a collection or change their role (``user`` may be a User or a username)."""
    if role not in Membership.Role.values:
        raise ValidationError(f"Unknown role {role!r}.", code="unknown_role")
    if isinstance(user, str):
        found = get_user_model().objects.filter(username=user).first()
        if found is None:
            raise ValidationError(f"No user named {user!r}.", code="unknown_user")
        user = found
    membership, _created = Membership.objects.update_or_create(
        collection=collection, user=user, defaults={"role": role}
    )
    return membership


def collection_set_assessors_see_systems(*, collection: Collection, visible: bool) -> Collection:
    """Open (or close again) runs, pools' systems and evaluation to the collection's assessors.

    Closed by default: assessors judge blind to which systems retrieved a document and how they score.
    """
    collection.assessors_see_systems = visible
    collection.save(update_fields=["assessors_see_systems"])
    return collection
