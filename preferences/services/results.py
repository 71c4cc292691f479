"""Results of a preference campaign: rows from the database fed to preferences.stats.

Blocked assessors' judgments are left out of every figure (system comparison, position bias,
agreement, gold totals) and counted instead, so the page can say how many were excluded; the
per-assessor table lists everyone, blocked or not. Two queries, whatever the campaign's size:
all judgments with what the figures need, and the assessors.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from agreement import AgreementResult
from preferences import stats
from preferences.models import PrefCampaign, PrefJudgment

_FIELDS = ("item_id", "item__topic__qid", "assessor_id", "outcome", "choice", "item__is_gold", "assessor__blocked",
           "active_seconds")


@dataclass(frozen=True)
class AssessorRow:
    """One assessor's line on the results page: work done, gold, median active time, whether blocked."""

    id: int
    name: str
    kind: str
    judgments: int
    gold_correct: int
    gold_answered: int
    median_seconds: float | None
    blocked: bool
    blocked_reason: str
    blocked_at: datetime | None
    status: str

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_answered if self.gold_answered else None


@dataclass
class Results:
    campaign: PrefCampaign
    rows: list[stats.Row]
    overall: stats.Tally
    topic_votes: stats.Tally
    per_topic: dict[str, stats.Tally]
    position: stats.Tally
    agreement: AgreementResult | None
    gold_correct: int
    gold_answered: int
    excluded_judgments: int
    excluded_gold: int
    excluded_assessors: int
    assessors: list[AssessorRow]


def _status(assessor) -> str:
    if assessor.blocked:
        return "blocked"
    if assessor.completion_code:
        return "completed"
    return "consented" if assessor.consented_at else ""


def assessor_rows(campaign: PrefCampaign, judged) -> list[AssessorRow]:
    """Return one row per assessor of the campaign (by id) from the judgment tuples of ``_FIELDS``."""
    seconds: dict[int, list[float]] = defaultdict(list)
    gold: defaultdict[int, list[int]] = defaultdict(lambda: [0, 0])
    for _, _, assessor, outcome, _, is_gold, _, active in judged:
        seconds[assessor].append(active)
        if is_gold:
            gold[assessor][0] += outcome == 1
            gold[assessor][1] += 1
    rows = []
    for a in campaign.assessors.select_related("user").order_by("pk"):
        mine = seconds.get(a.pk, [])
        rows.append(AssessorRow(
            id=a.pk, name=a.label, kind=a.get_kind_display(), judgments=len(mine), gold_correct=gold[a.pk][0],
            gold_answered=gold[a.pk][1], median_seconds=statistics.median(mine) if mine else None,
            blocked=a.blocked, blocked_reason=a.blocked_reason, blocked_at=a.blocked_at, status=_status(a)))
    return rows


def campaign_results(campaign: PrefCampaign) -> Results:
    """Compute every figure of the results page and API, without blocked assessors' judgments."""
    judged = list(PrefJudgment.objects.filter(item__campaign=campaign).order_by("id").values_list(*_FIELDS))
    rows: list[stats.Row] = []
    gold: list[stats.Row] = []
    excluded, excluded_gold, excluded_by = 0, 0, set()
    for item, qid, assessor, outcome, choice, is_gold, blocked, _ in judged:
        if blocked:
            excluded_gold += is_gold
            excluded += not is_gold
            excluded_by.add(assessor)
            continue
        (gold if is_gold else rows).append(stats.Row(item, qid, assessor, outcome, choice))
    return Results(
        campaign=campaign, rows=rows, overall=stats.tally(r.outcome for r in rows),
        topic_votes=stats.tally(stats.topic_majorities(rows)), per_topic=stats.by_topic(rows),
        position=stats.position_bias(rows + gold), agreement=stats.preference_agreement(rows),
        gold_correct=sum(1 for r in gold if r.outcome == 1), gold_answered=len(gold),
        excluded_judgments=excluded, excluded_gold=excluded_gold, excluded_assessors=len(excluded_by),
        assessors=assessor_rows(campaign, judged),
    )
