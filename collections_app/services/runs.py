"""Delete runs: the one rule for the web page and the API."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from collections_app.models import Run


@transaction.atomic
def run_delete(*, run: Run) -> None:
    """Delete a run and its rankings; refuses a run a frozen pool was built from.

    The check and the delete run in one transaction under the run's row lock, so the run a
    check found deletable is the one deleted. Raises ValidationError(code="run_in_frozen_pool").
    """
    locked = Run.objects.select_for_update().get(pk=run.pk)
    if locked.pools.filter(frozen=True).exists():
        raise ValidationError(f"Run {locked.tag} contributed to a frozen pool and cannot be deleted.",
                              code="run_in_frozen_pool")
    locked.delete()
