"""Abstract models of the campaign core: the fields both campaign kinds' leases and assessors share.

Only fields that are the same, to the column, in ``judging`` and ``preferences`` live here, so
inheriting them changes no table. Each kind's concrete model adds its foreign keys, its
constraints and its ``__str__``. ``campaign_core.services`` relies on these fields.
"""
from __future__ import annotations

from django.db import models


class LeaseBase(models.Model):
    """A time-limited claim of one item by one assessor; an expired lease returns the item to the queue.

    A concrete lease adds ``item`` and ``assessor`` foreign keys (related name ``leases`` on both)
    and a unique constraint on the pair.
    """

    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        abstract = True


class AssessorQualityBase(models.Model):
    """An assessor's block state: who stopped judging, why, when, and whether a lead waived the gold check.

    Written only by ``campaign_core.services.quality`` (the automatic gold check and a lead's
    block / unblock) under the assessor's row lock.
    """

    blocked = models.BooleanField(default=False, help_text="Stopped (low gold accuracy or a lead); judgments kept for audit.")
    blocked_reason = models.CharField(max_length=300, blank=True)
    blocked_at = models.DateTimeField(null=True, blank=True)
    gold_check_waived = models.BooleanField(
        default=False, help_text="A lead unblocked this assessor: the automatic gold check leaves them alone."
    )

    class Meta:
        abstract = True
