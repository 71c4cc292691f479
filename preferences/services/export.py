"""Export judgments: document pairs in trec_eval's ``-R prefs`` format, and every judgment as CSV/JSONL.

A prefs line is ``qid jg jsg docno rel_level``: within one judgment sub-group (JSG) a document
with a higher rel_level is preferred to one with a lower level, and the sub-groups of one
judgment group (JG) combine transitively. Here each assessor is a JG (``a<assessor id>``,
so different assessors may disagree, as trec_eval intends) and each item judged is a JSG
(its position): the preferred document gets level 1, the other 0; "about the same" gives
both level 1 (no preference, and no claim that either is non-relevant). Gold items and the
judgments of blocked assessors are left out, as in the results.
"""
from __future__ import annotations

from campaign_core.exports import export_lines, export_text
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


JUDGMENT_FIELDS = (
    "judgment_id", "assessor_id", "assessor", "kind", "platform", "blocked", "qid", "item", "is_gold", "left_is_a",
    "answer", "outcome", "strength", "comment", "active_seconds", "revision_count", "created_at", "updated_at",
)
ANSWERS = {-1: "left", 0: "same", 1: "right"}
OUTCOMES = {1: "A", 0: "tie", -1: "B"}


def _judgment_rows(campaign: PrefCampaign):
    judgments = (PrefJudgment.objects.filter(item__campaign=campaign)
                 .select_related("assessor__user", "item__topic").order_by("item__position", "created_at", "pk"))
    for j in judgments.iterator(chunk_size=2000):
        yield {
            "judgment_id": j.pk, "assessor_id": j.assessor_id, "assessor": j.assessor.label, "kind": j.assessor.kind,
            "platform": j.assessor.platform, "blocked": j.assessor.blocked, "qid": j.item.topic.qid,
            "item": j.item.position, "is_gold": j.item.is_gold, "left_is_a": j.item.left_is_a,
            "answer": ANSWERS[j.choice], "outcome": OUTCOMES[j.outcome], "strength": j.strength, "comment": j.comment,
            "active_seconds": None if j.active_seconds is None else round(j.active_seconds, 3),
            "revision_count": j.revision_count,
            "created_at": j.created_at.isoformat(), "updated_at": j.updated_at.isoformat(),
        }


def judgments_export(*, campaign: PrefCampaign, fmt: str) -> str:
    """Return every judgment of the campaign (blocked assessors' too, for audit) as CSV or JSONL.

    ``answer`` is what was clicked (left / same / right), ``outcome`` the same in system terms
    (A / tie / B; for document pairs A is the first document of the pair). CSV has a header
    row, empty cells for no strength, ``true``/``false`` booleans and free text guarded against
    spreadsheet formulas; JSONL keeps every value as stored.
    """
    return export_text(_judgment_rows(campaign), fields=JUDGMENT_FIELDS, fmt=fmt)


def judgments_lines(*, campaign: PrefCampaign, fmt: str):
    """Yield the judgments export line by line, for a streamed download."""
    return export_lines(_judgment_rows(campaign), fields=JUDGMENT_FIELDS, fmt=fmt)
