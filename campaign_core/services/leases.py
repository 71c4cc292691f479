"""Lease claiming for both campaign kinds: lock one open item, re-check it under the lock, lease it.

Concurrency (PostgreSQL): a claim picks a candidate with ``SELECT … FOR UPDATE SKIP LOCKED``,
so fifty assessors asking at once each lock a different row instead of queueing, then asks
the kind's open-items query again *for that row while holding its lock* (the candidate query's
snapshot may predate a lease committed a moment ago) before writing the lease. The kinds write
every lease and judgment of an item under that same row lock, so the count cannot change
between the check and the write.

Each attempt runs in its own savepoint: when the locked candidate turns out to be taken,
rolling the savepoint back releases its row lock at once (PostgreSQL drops the row locks of a
rolled-back subtransaction). A claim therefore never holds a row while it waits for another,
which is what keeps two claims walking the items in different orders from deadlocking. On
SQLite there are no row locks; its single writer serializes claims (correct, not parallel).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaign_core.models import LeaseBase

CLAIM_ATTEMPTS = 8


class _Rejected(Exception):
    """A locked candidate turned out to be taken; rolling back its savepoint releases its row lock."""


def lease_claim(*, assessor: Any, open_items: Callable[[], QuerySet], now: datetime,
                lease_seconds: int, wait: bool = False, related: tuple[str, ...] = ()) -> Any:
    """Lease the first item of ``open_items()`` that is still open under its row lock; None if none is.

    ``assessor`` is either kind's assessor (its ``leases`` relation names the lease model).

    ``open_items`` returns the kind's query of the items open to this assessor, in the order
    they should be handed out; it is asked again under the lock, so it must count live leases
    and judgments itself. ``wait=True`` (adaptive orders, whose priority rewrites hold open
    rows for a moment) waits for the first candidate when every open row is locked, rather
    than wrongly answering "nothing left". It waits for that one chosen row, never with a
    locking query over the candidates: such a query keeps the rows it locked and then found
    taken while it waits for the next one, and two claims walking in different orders deadlock.

    ``related`` names relations to read with the item (``select_related``) by the re-check
    under the lock, so a caller that shows the item needs no further query. The lease is
    written with one upsert (``INSERT … ON CONFLICT (item, assessor) DO UPDATE``): an expired
    lease of the same assessor on the item is renewed in place.
    """
    lease_model = assessor.leases.model
    # Built once: a queryset is lazy, so each use below runs its SQL afresh (a new snapshot).
    query = open_items()
    item_model = query.model
    tried: list[int] = []
    for _ in range(CLAIM_ATTEMPTS):
        try:
            with transaction.atomic():
                candidates = query
                if tried:
                    candidates = candidates.exclude(pk__in=tried)
                pk = candidates.select_for_update(skip_locked=True, of=("self",)).values_list("pk", flat=True).first()
                if pk is None and wait:
                    pk = candidates.values_list("pk", flat=True).first()
                    if pk is not None:
                        item_model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True).first()
                if pk is None:
                    return None
                item = query.filter(pk=pk).select_related(*related).first()
                if item is None:
                    raise _Rejected(pk)
                lease_model.objects.bulk_create(
                    [lease_model(item_id=pk, assessor=assessor, expires_at=now + timedelta(seconds=lease_seconds))],
                    update_conflicts=True, unique_fields=["item", "assessor"], update_fields=["created_at", "expires_at"])
                return item
        except _Rejected as rejected:
            tried.append(rejected.args[0])
    return None


def lease_models() -> list[Any]:
    """Return every installed concrete lease model (one per campaign kind; concrete, so each has ``objects``)."""
    return [model for model in apps.get_models() if issubclass(model, LeaseBase)]


def leases_expire(*, now: datetime | None = None) -> int:
    """Delete the expired leases of every campaign kind and return how many; allocation ignores them already."""
    now = now or timezone.now()
    return sum(model.objects.filter(expires_at__lte=now).delete()[0] for model in lease_models())
