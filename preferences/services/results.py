"""Results of a preference campaign: rows from the database fed to preferences.stats."""
from __future__ import annotations

from dataclasses import dataclass

from preferences import stats
from preferences.models import PrefCampaign, PrefJudgment


@dataclass
class Results:
    campaign: PrefCampaign
    rows: list[stats.Row]
    overall: stats.Tally
    topic_votes: stats.Tally
    per_topic: dict[str, stats.Tally]
    position: stats.Tally
    agreement: object
    gold_correct: int
    gold_answered: int


def campaign_rows(campaign: PrefCampaign, *, gold: bool = False) -> list[stats.Row]:
    """Return the judgments of the campaign as stats rows (gold items apart)."""
    qs = (PrefJudgment.objects.filter(item__campaign=campaign, item__is_gold=gold)
          .values_list("item_id", "item__topic__qid", "assessor_id", "outcome", "choice").order_by("id"))
    return [stats.Row(*values) for values in qs]


def campaign_results(campaign: PrefCampaign) -> Results:
    """Compute every figure of the results page and API."""
    rows = campaign_rows(campaign)
    gold = campaign_rows(campaign, gold=True)
    return Results(
        campaign=campaign, rows=rows, overall=stats.tally(r.outcome for r in rows),
        topic_votes=stats.tally(stats.topic_majorities(rows)), per_topic=stats.by_topic(rows),
        position=stats.position_bias(rows + gold), agreement=stats.preference_agreement(rows),
        gold_correct=sum(1 for r in gold if r.outcome == 1), gold_answered=len(gold),
    )
