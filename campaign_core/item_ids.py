"""Insert a campaign's items so that their ids say nothing about which ones are gold.

Pages and the API name items by id (the judging page's ``item``, ``?revise=<id>``). Items
are laid out with the gold ones last, so inserting them in that order would give gold items
the highest ids of the campaign, and an assessor comparing ids could pick them out. Rows are
therefore inserted in an order shuffled from the campaign's seed; positions (the judging order)
are untouched.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from django.db.models import Model


def bulk_create_shuffled(model: type[Model], rows: Sequence[Model], *, seed, batch_size: int = 1000) -> list[Model]:
    """Insert ``rows`` in an order shuffled from ``seed`` (reproducible) and return them in that order."""
    shuffled = list(rows)
    random.Random(f"item-ids:{seed}").shuffle(shuffled)
    return model._default_manager.bulk_create(shuffled, batch_size=batch_size)
