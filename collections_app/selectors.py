"""Reads that join or aggregate, shared by the API and the pages."""
from __future__ import annotations

from django.db.models import Count, QuerySet

from collections_app.models import Collection, Job, Membership, Pool, PoolPair


def pools_for(collection: Collection) -> QuerySet[Pool]:
    """Return the collection's pools with their pair counts and contributing runs prefetched."""
    return (
        Pool.objects.filter(collection=collection)
        .annotate(num_pairs=Count("pairs", distinct=True))
        .prefetch_related("runs")
        .order_by("-created_at", "-id")
    )


def pool_pairs(pool: Pool) -> QuerySet[PoolPair]:
    """Return the pool's pairs in judging order, with their topics joined."""
    return PoolPair.objects.filter(pool=pool).select_related("topic").order_by("judging_order")


def members_of(collection: Collection) -> QuerySet[Membership]:
    return Membership.objects.filter(collection=collection).select_related("user").order_by("role", "user__username")


def jobs_for(collection: Collection) -> QuerySet[Job]:
    return Job.objects.filter(collection=collection).select_related("collection").order_by("-created_at", "-id")


def roles_by_collection(user) -> dict[int, str]:
    """Return {collection id: role} for the user's memberships (one query)."""
    if not user.is_authenticated:
        return {}
    return dict(Membership.objects.filter(user=user).values_list("collection_id", "role"))
