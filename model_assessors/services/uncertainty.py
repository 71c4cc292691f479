"""Human-in-the-loop: order the humans' work so they see first the pairs the model is least sure of.

Each regular item gets an uncertainty in [0, 1]:

- from label probabilities, where a judge asked for log-probabilities: 1 − the top label's
  probability, averaged over the judges that returned them;
- else from disagreement between model judges (two prompts or two models): the mean distance
  between their grades over all pairs of judges, divided by the scale's range (0 when they agree,
  1 when one says the lowest grade and the other the highest);
- a pair a model could not answer (its answer did not parse) counts 1: a human must look;
- a pair no model has labelled yet, or only one judge without probabilities, counts 0.5: nothing
  says how sure the model was.

The order is written into ``Item.priority`` (allocation hands out open items by priority, then
position), as the adaptive orders do: the most uncertain pair gets priority 0, the next 1, and so
on, ties by campaign position. The option stays on (``UncertaintyOrder``) and every finished model
run re-applies it, so new model labels reorder the remaining work. Allocation itself is untouched: overlap, leases, gold and the split
by topic apply as before. Adaptive orders rewrite priorities after every judgment, so a campaign
with an adaptive order refuses this option. :func:`priorities_reset` returns to the campaign order.
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from typing import cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from judging.models import Assessor, Campaign, Item, Judgment
from judging.services.adaptive import is_adaptive
from model_assessors import prompts
from model_assessors.models import ModelCall, UncertaintyOrder

UNKNOWN = 0.5


def item_uncertainty(campaign: Campaign) -> dict[int, float]:
    """Return {item id: uncertainty} for the campaign's regular items (see the module docstring)."""
    scale = campaign.collection.grades
    spread = max(scale) - min(scale) or 1
    items = list(Item.objects.filter(campaign=campaign, is_gold=False).values_list("pk", flat=True))
    probabilities: dict[int, list[float]] = defaultdict(list)
    for item_id, probs in ModelCall.objects.filter(judge__campaign=campaign, status=ModelCall.Status.LABELLED).exclude(
            label_probabilities={}).values_list("item_id", "label_probabilities"):
        value = prompts.uncertainty({int(k): float(v) for k, v in probs.items()})
        if value is not None:
            probabilities[item_id].append(value)
    grades: dict[int, list[int]] = defaultdict(list)
    unanswered: set[int] = set()
    rows = Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, assessor__kind=Assessor.Kind.MODEL,
                                   assessor__blocked=False).values_list("item_id", "grade", "skipped")
    for item_id, grade, skipped in rows:
        if skipped:
            unanswered.add(item_id)
        else:
            grades[item_id].append(cast(int, grade))  # not skipped, so graded (a check constraint)
    out: dict[int, float] = {}
    for item_id in items:
        if probabilities.get(item_id):
            out[item_id] = sum(probabilities[item_id]) / len(probabilities[item_id])
        elif len(grades.get(item_id, [])) >= 2:
            pairs = list(itertools.combinations(grades[item_id], 2))
            out[item_id] = sum(abs(a - b) for a, b in pairs) / len(pairs) / spread
        elif item_id in unanswered:
            out[item_id] = 1.0
        else:  # one label without probabilities, or none: nothing tells how sure the model was
            out[item_id] = UNKNOWN
    return out


@transaction.atomic
def priorities_by_uncertainty(*, campaign: Campaign) -> int:
    """Write ``Item.priority`` so the most uncertain pairs come first; return how many items were ordered.

    Raises ValidationError(code="adaptive_order") for a campaign with an adaptive order.
    """
    if is_adaptive(campaign):
        raise ValidationError("This campaign's adaptive order rewrites priorities itself; "
                              "ordering by model uncertainty needs a static order.", code="adaptive_order")
    uncertainty = item_uncertainty(campaign)
    positions = dict(Item.objects.filter(pk__in=list(uncertainty)).values_list("pk", "position"))
    ordered = sorted(uncertainty, key=lambda pk: (-uncertainty[pk], positions[pk]))
    priority = {pk: rank for rank, pk in enumerate(ordered)}
    # Rows are updated in primary-key order, as the adaptive rewrite does, so concurrent rewrites serialise.
    rows = list(Item.objects.select_for_update().filter(pk__in=list(priority)).order_by("pk").only("pk", "priority"))
    for row in rows:
        row.priority = priority[row.pk]
    Item.objects.bulk_update(rows, ["priority"], batch_size=2000)
    UncertaintyOrder.objects.update_or_create(campaign=campaign, defaults={
        "enabled": True, "applied_at": timezone.now(), "items_ordered": len(rows)})
    return len(rows)


def priorities_refresh_if_enabled(*, campaign: Campaign) -> int | None:
    """Re-apply the uncertainty order when the campaign has it on (after a model run); None when off."""
    if not UncertaintyOrder.objects.filter(campaign=campaign, enabled=True).exists() or is_adaptive(campaign):
        return None
    return priorities_by_uncertainty(campaign=campaign)


@transaction.atomic
def priorities_reset(*, campaign: Campaign) -> int:
    """Return a static-order campaign to its own order (every priority 0); return how many items changed."""
    if is_adaptive(campaign):
        raise ValidationError("An adaptive order manages its own priorities.", code="adaptive_order")
    UncertaintyOrder.objects.filter(campaign=campaign).update(enabled=False)
    return Item.objects.filter(campaign=campaign).exclude(priority=0).update(priority=0)
