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

from datetime import datetime, timedelta
from typing import Any, Protocol

from django.apps import apps
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaign_core.models import LeaseBase

CLAIM_ATTEMPTS = 8


class _Rejected(Exception):
    """A locked candidate turned out to be taken; rolling back its savepoint releases its row lock."""


class ClaimStatements(Protocol):
    """The four statements of a claim, as a campaign kind runs them (``QueryClaim``: the ORM's).

    ``candidate`` returns the first open item's key not in ``tried`` (locking it, skipping locked
    rows, when ``skip_locked``); ``lock`` waits for one row's lock; ``recheck`` asks again, under
    the lock, whether that item is open and returns it (with what the caller shows of it) or
    None; ``lease`` writes the lease with one upsert (an expired lease of the same assessor on
    the item is renewed in place).
    """

    def candidate(self, tried: list[int], *, skip_locked: bool) -> int | None: ...

    def lock(self, pk: int) -> None: ...

    def recheck(self, pk: int) -> Any | None: ...

    def lease(self, pk: int, expires_at: datetime) -> None: ...


class QueryClaim:
    """Claim statements built from a kind's open-items queryset (the ORM form; the preference kind's).

    ``open_items`` must count live leases and judgments itself, since it is asked again under the
    lock. ``related`` names relations the re-check reads with the item (``select_related``), so a
    caller that shows the item needs no further query.
    """

    def __init__(self, *, assessor: Any, open_items: QuerySet, related: tuple[str, ...] = ()) -> None:
        self.assessor = assessor
        self.lease_model = assessor.leases.model  # either kind's assessor: its ``leases`` names the lease model
        # Built once: a queryset is lazy, so each use below runs its SQL afresh (a new snapshot).
        self.query = open_items
        self.related = related

    def candidate(self, tried: list[int], *, skip_locked: bool) -> int | None:
        candidates = self.query.exclude(pk__in=tried) if tried else self.query
        if skip_locked:
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        return candidates.values_list("pk", flat=True).first()

    def lock(self, pk: int) -> None:
        self.query.model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True).first()

    def recheck(self, pk: int) -> Any | None:
        return self.query.filter(pk=pk).select_related(*self.related).first()

    def lease(self, pk: int, expires_at: datetime) -> None:
        self.lease_model.objects.bulk_create(
            [self.lease_model(item_id=pk, assessor=self.assessor, expires_at=expires_at)],
            update_conflicts=True, unique_fields=["item", "assessor"], update_fields=["created_at", "expires_at"])


def lease_claim(*, statements: ClaimStatements, now: datetime, lease_seconds: int, wait: bool = False) -> Any:
    """Lease the first open item that is still open under its row lock; None if none is.

    ``wait=True`` (adaptive orders, whose priority rewrites hold open rows for a moment) waits
    for the first candidate when every open row is locked, rather than wrongly answering
    "nothing left". It waits for that one chosen row, never with a locking query over the
    candidates: such a query keeps the rows it locked and then found taken while it waits for
    the next one, and two claims walking in different orders deadlock.
    """
    tried: list[int] = []
    for _ in range(CLAIM_ATTEMPTS):
        try:
            with transaction.atomic():
                pk = statements.candidate(tried, skip_locked=True)
                if pk is None and wait:
                    pk = statements.candidate(tried, skip_locked=False)
                    if pk is not None:
                        statements.lock(pk)
                if pk is None:
                    return None
                item = statements.recheck(pk)
                if item is None:
                    raise _Rejected(pk)
                statements.lease(pk, now + timedelta(seconds=lease_seconds))
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
