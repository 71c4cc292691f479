"""Assemble the calibration page: each model against each human, per topic, the confusion matrix, the planner, stability.

Reads through :mod:`model_assessors.selectors`, computes with the pure functions of
:mod:`model_assessors.calibration` and the leaderboard's stability functions; writes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from evaluation.leaderboard import NAME_TO_REQUEST
from evaluation.runs import collection_runs
from evaluation.stability import Comparison as RankingComparison
from evaluation.stability import stability_between
from judging.models import Campaign
from metrics import qrels_from_dict
from model_assessors import calibration
from model_assessors.models import ModelJudge
from model_assessors.selectors import CampaignLabels, campaign_labels

TARGETS = (0.6, 0.7, 0.8, 0.9)
INTERVAL_HALF_WIDTH = 0.1
MOVERS = 10


@dataclass
class JudgeReport:
    """Everything the calibration page shows for one model judge."""

    judge: ModelJudge
    n_labels: int
    against_humans: list[tuple[str, calibration.Comparison]]
    against_reference: calibration.Comparison | None
    topics: list[tuple[str, object, object]]  # (qid, graded κ, binary κ)
    confusion: list[list[int]]
    plans: list[calibration.Plan] = field(default_factory=list)
    pairs_for_interval: int | None = None


def judge_report(judge: ModelJudge, labels: CampaignLabels | None = None, *, n_boot: int = 500) -> JudgeReport:
    """Compare one model judge with every human assessor and with the humans' reference labels."""
    campaign = judge.campaign
    collection = campaign.collection
    labels = labels or campaign_labels(campaign)
    scale, threshold = list(collection.grades), collection.relevant_threshold
    model = labels.models.get(judge.assessor_id, {})
    compare = partial(calibration.compare, categories=scale, threshold=threshold, n_boot=n_boot)
    against = [(labels.names[h], compare(model, human))
               for h, human in sorted(labels.humans.items(), key=lambda kv: labels.names[kv[0]])
               if any(item in model for item in human)]
    reference = labels.reference()
    shared = [item for item in model if item in reference]
    report = JudgeReport(judge=judge, n_labels=len(model), against_humans=against, against_reference=None, topics=[],
                         confusion=calibration.confusion(model, reference, categories=scale).tolist())
    if not shared:
        return report
    report.against_reference = compare(model, reference)
    graded = calibration.per_topic(model, reference, topic_of=labels.topic_of, categories=scale, n_boot=n_boot)
    binary = calibration.per_topic(model, reference, topic_of=labels.topic_of, categories=scale, threshold=threshold,
                                   n_boot=n_boot)
    report.topics = [(qid, graded[qid], binary.get(qid)) for qid in graded]
    table = calibration.confusion(model, reference, categories=scale)
    total = len(labels.topic_of)
    report.plans = [calibration.judgments_for_target_kappa(table, total_pairs=total, human_judged=len(reference),
                                                           target=t) for t in TARGETS]
    report.pairs_for_interval = calibration.pairs_for_interval(report.against_reference.kappa,
                                                               half_width=INTERVAL_HALF_WIDTH)
    return report


@dataclass
class Stability:
    """The system ranking on human vs model qrels, over the pairs both labelled, and the runs that move most."""

    comparison: RankingComparison | None
    n_pairs: int
    movers: list[dict]
    note: str = ""


def _ranks(scores: dict[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda tag: (-scores[tag], tag))
    return {tag: i for i, tag in enumerate(ordered, 1)}


def stability_report(judge: ModelJudge, *, measure: str = "map", labels: CampaignLabels | None = None) -> Stability:
    """Rank the collection's runs under the humans' qrels and under the model's, on the pairs both labelled."""
    collection = judge.campaign.collection
    labels = labels or campaign_labels(judge.campaign)
    model = labels.models.get(judge.assessor_id, {})
    reference = labels.reference()
    shared = [item for item in model if item in reference]
    if not shared:
        return Stability(None, 0, [], note="no pair has both a model and a human label yet")
    runs = collection_runs(collection)
    if len(runs) < 2:
        return Stability(None, len(shared), [], note="the collection needs at least two runs")

    def as_qrels(source: dict[int, int], name: str):
        data: dict[str, dict[str, int]] = {}
        for item in shared:
            qid, docno = labels.key_of[item]
            data.setdefault(qid, {})[docno] = source[item]
        return qrels_from_dict(data, name=name)

    comparison = stability_between(as_qrels(reference, "human"), as_qrels(model, judge.name), runs, measure=measure,
                                   request=NAME_TO_REQUEST[measure], relevance_level=collection.relevant_threshold,
                                   label_a="human qrels", label_b=f"model qrels ({judge.name})")
    comparison.n_items, comparison.n_topics = len(shared), len({labels.topic_of[i] for i in shared})
    human_ranks, model_ranks = _ranks(comparison.scores_a), _ranks(comparison.scores_b)
    moved_most = sorted(human_ranks, key=lambda tag: (-abs(model_ranks[tag] - human_ranks[tag]), human_ranks[tag]))
    movers = [{"tag": tag, "human_rank": human_ranks[tag], "model_rank": model_ranks[tag],
               "shift": model_ranks[tag] - human_ranks[tag], "human_score": comparison.scores_a[tag],
               "model_score": comparison.scores_b[tag]} for tag in moved_most[:MOVERS]]
    return Stability(comparison, len(shared), movers)


def campaign_report(campaign: Campaign, *, n_boot: int = 500) -> list[JudgeReport]:
    """Return a report per model judge of the campaign (labels read once)."""
    labels = campaign_labels(campaign)
    return [judge_report(j, labels, n_boot=n_boot)
            for j in ModelJudge.objects.filter(campaign=campaign).select_related("campaign__collection")]
