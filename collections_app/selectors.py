"""Reads that join or aggregate, shared by the API and the pages."""
from __future__ import annotations

from django.db.models import Count, QuerySet

from collections_app.models import Collection, Job, Membership, Pool, PoolPair

GOLD_FOR_CAMPAIGN = "gold_for_campaign"  # in a gold companion pool's parameters: the campaign it serves
GOLD_FOR_POOL = "gold_for_pool"  # ... and the judged pool it accompanies


def pools_for(collection: Collection, *, with_gold: bool = True) -> QuerySet[Pool]:
    """Return the collection's pools with their pair counts and contributing runs prefetched.

    ``with_gold=False`` (anyone but a lead) leaves out gold companion pools: their pairs are
    the known-answer checks mixed into a campaign, which assessors must not be able to tell.
    """
    pools = Pool.objects.filter(collection=collection)
    if not with_gold:
        pools = pools.exclude(parameters__has_key=GOLD_FOR_CAMPAIGN)
    return (
        pools.annotate(num_pairs=Count("pairs", distinct=True))
        .prefetch_related("runs")
        .order_by("-created_at", "-id")
    )


def pool_pairs_reveal_gold(pool: Pool) -> bool:
    """Return True if listing the pool's pairs would tell gold items apart.

    True for a gold companion pool, and for a judged pool that has one: an assessor comparing
    the pairs they are given with the pool's list would find the gold ones missing from it.
    """
    if GOLD_FOR_CAMPAIGN in (pool.parameters or {}):
        return True
    return Pool.objects.filter(collection_id=pool.collection_id, **{f"parameters__{GOLD_FOR_POOL}": pool.pk}).exists()


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
