"""Crowd quality in preference campaigns: what a correct gold answer is; the rest is the campaign core's.

The automatic gold stop, a lead's block and unblock, the recount of usable judgments and the
quality log are ``campaign_core.services.quality``, shared with relevance campaigns. A
preference gold item shows the intact ranking as system A against a degraded B, so a gold
answer is correct when it prefers A (``outcome == 1``).
"""
from __future__ import annotations

from django.db.models import Q

from campaign_core.services import quality as core
from campaign_core.services.quality import GoldRule
from preferences.models import PrefAssessor

GOLD_RULE = GoldRule(answered=Q(), correct=Q(outcome=1))


def gold_accuracy(*, assessor: PrefAssessor) -> tuple[int, int]:
    """Return (correct, answered) on gold items: correct means system A (the intact side) won."""
    return core.gold_answers(assessor=assessor, rule=GOLD_RULE)


def gold_check(*, assessor: PrefAssessor, now=None) -> bool:
    """Run the campaign core's gold check with the preference rule; return True if the worker was blocked now."""
    return core.gold_check(assessor=assessor, rule=GOLD_RULE, now=now)
