"""Read what the calibration pages need: labels by assessor kind, topics, runs' progress and costs."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import cast

from django.db.models import Count, Q, Sum

from judging.models import Adjudication, Assessor, Campaign, Item, Judgment
from model_assessors.calibration import human_reference
from model_assessors.models import ModelCall, ModelJudge, ModelRun


@dataclass
class CampaignLabels:
    """Every usable label of a campaign's regular items, split into model and human assessors."""

    names: dict[int, str]
    models: dict[int, dict[int, int]] = field(default_factory=dict)  # assessor id → {item id: grade}
    humans: dict[int, dict[int, int]] = field(default_factory=dict)
    adjudicated: dict[int, int] = field(default_factory=dict)
    topic_of: dict[int, str] = field(default_factory=dict)
    key_of: dict[int, tuple[str, str]] = field(default_factory=dict)  # item id → (qid, docno)

    def reference(self) -> dict[int, int]:
        """Return the humans' label per item (adjudication, else their majority)."""
        grades: dict[int, list[int]] = defaultdict(list)
        for labels in self.humans.values():
            for item, grade in labels.items():
                grades[item].append(grade)
        return human_reference(grades, self.adjudicated)


def campaign_labels(campaign: Campaign) -> CampaignLabels:
    """Return the campaign's labels on regular items (skips and blocked assessors left out, as in the freeze rules)."""
    assessors = Assessor.objects.filter(campaign=campaign).select_related("user")
    out = CampaignLabels(names={a.pk: str(a) for a in assessors})
    kinds = {a.pk: a.kind for a in assessors}
    for item_id, qid, docno in Item.objects.filter(campaign=campaign, is_gold=False).values_list(
            "pk", "pair__topic__qid", "pair__docno"):
        out.topic_of[item_id] = qid
        out.key_of[item_id] = (qid, docno)
    rows = Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, skipped=False,
                                   assessor__blocked=False).order_by("created_at", "pk")
    for item_id, assessor_id, grade in rows.values_list("item_id", "assessor_id", "grade").iterator(chunk_size=20_000):
        target = out.models if kinds[assessor_id] == Assessor.Kind.MODEL else out.humans
        target.setdefault(assessor_id, {})[item_id] = cast(int, grade)  # not skipped, so graded (a check constraint)
    out.adjudicated = dict(Adjudication.objects.filter(campaign=campaign).values_list("item_id", "grade"))
    return out


def judges_overview(campaign: Campaign) -> list[dict]:
    """Return each judge with its latest run, its call counts by status, tokens and cost (one query each)."""
    judges = list(ModelJudge.objects.filter(campaign=campaign).select_related("assessor"))
    stats = {row["judge"]: row for row in ModelCall.objects.filter(judge__campaign=campaign).values("judge").annotate(
        calls=Count("id"), labelled=Count("id", filter=Q(status=ModelCall.Status.LABELLED)),
        unparsed=Count("id", filter=Q(status=ModelCall.Status.UNPARSED)),
        failed=Count("id", filter=Q(status=ModelCall.Status.FAILED)),
        tokens=Sum("prompt_tokens") + Sum("completion_tokens"), cost=Sum("cost"), seconds=Sum("latency_seconds"),
    ).order_by()}
    latest: dict[int, ModelRun] = {}
    for run in ModelRun.objects.filter(judge__campaign=campaign).order_by("judge_id", "-created_at", "-id"):
        latest.setdefault(run.judge_id, run)
    items = Item.objects.filter(campaign=campaign, is_gold=False).count()
    return [{"judge": j, "run": latest.get(j.pk), "stats": stats.get(j.pk, {}), "items": items} for j in judges]


def live_runs(campaign: Campaign) -> list[ModelRun]:
    """Return the campaign's queued or running model runs (for the progress bar on the campaign page)."""
    return list(ModelRun.objects.filter(judge__campaign=campaign, status__in=[ModelRun.Status.QUEUED,
                                                                              ModelRun.Status.RUNNING])
                .select_related("judge"))
