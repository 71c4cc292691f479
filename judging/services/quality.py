"""Crowd quality in relevance campaigns: what a correct gold answer is; the rest is the campaign core's.

The automatic gold stop, a lead's block and unblock, the recount of usable judgments and the
quality log are ``campaign_core.services.quality``, shared with preference campaigns. A
relevance gold answer is correct when it agrees with the gold label on relevance
(``grade >= collection.relevant_threshold``), so a graded scale doesn't punish a 2 for a 3;
skipped gold items count neither way.

``assessor_block``, ``assessor_unblock`` and ``quality_log`` are re-exported for callers that
import them from here.
"""
from __future__ import annotations

from django.db.models import Q

from campaign_core.services import quality as core
from campaign_core.services.quality import GoldRule, assessor_block, assessor_unblock, quality_log
from judging.models import Assessor, Campaign

__all__ = ["assessor_block", "assessor_unblock", "gold_answers", "gold_check", "gold_rule", "quality_log"]


def gold_rule(campaign: Campaign) -> GoldRule:
    """Return the relevance campaigns' gold rule: unskipped answers, correct on the right side of the threshold."""
    threshold = campaign.collection.relevant_threshold
    return GoldRule(
        answered=Q(skipped=False),
        correct=(Q(grade__gte=threshold, item__gold_grade__gte=threshold)
                 | Q(grade__lt=threshold, item__gold_grade__lt=threshold)),
    )


def gold_answers(*, assessor: Assessor) -> tuple[int, int]:
    """Return (correct, answered) over the assessor's non-skipped judgments of gold items."""
    return core.gold_answers(assessor=assessor, rule=gold_rule(assessor.campaign))


def gold_check(*, assessor: Assessor, now=None) -> bool:
    """Run the campaign core's gold check with the relevance rule; return True if the worker was blocked now."""
    return core.gold_check(assessor=assessor, rule=gold_rule(assessor.campaign), now=now)
