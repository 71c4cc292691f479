"""Export document-pair judgments in trec_eval's ``-R prefs`` format.

A prefs line is ``qid jg jsg docno rel_level``: within one judgment sub-group (JSG) a document
with a higher rel_level is preferred to one with a lower level, and the sub-groups of one
judgment group (JG) combine transitively. Here each assessor is a JG (``a<assessor id>``,
so different assessors may disagree, as trec_eval intends) and each item judged is a JSG
(its position): the preferred document gets level 1, the other 0; "about the same" gives
both level 1 (no preference, and no claim that either is non-relevant). Gold items and the
judgments of blocked assessors are left out, as in the results.
"""
from __future__ import annotations

from preferences.models import PrefCampaign, PrefJudgment


def prefs_lines(campaign: PrefCampaign) -> list[str]:
    """Return the campaign's non-gold judgments of unblocked assessors as trec_eval ``-R prefs`` lines."""
    lines: list[str] = []
    judgments = (PrefJudgment.objects.filter(item__campaign=campaign, item__is_gold=False, assessor__blocked=False)
                 .select_related("item__topic").order_by("item__topic__qid", "assessor_id", "item__position"))
    for j in judgments:
        item = j.item
        a_level, b_level = {1: (1, 0), -1: (0, 1), 0: (1, 1)}[j.outcome]
        head = f"{item.topic.qid} a{j.assessor_id} {item.position}"
        lines.append(f"{head} {item.a_docnos[0]} {a_level}")
        lines.append(f"{head} {item.b_docnos[0]} {b_level}")
    return lines
