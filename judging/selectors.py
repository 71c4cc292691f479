"""Read judging state: progress of an assessor and of a campaign, conflicts between labels.

Blind judging: ``progress_for_assessor`` only counts the assessor's own work; other
assessors' labels appear only in lead-facing selectors (``conflicts``).
"""
from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, F, Max, Min, Q, Sum

from judging.access import campaigns_for_assessor
from judging.models import Adjudication, Assessor, Campaign, Item, Judgment


def _assigned_items(assessor: Assessor):
    """Return the regular items counted as this assessor's share of the work (see progress_for_assessor)."""
    campaign = assessor.campaign
    items = Item.objects.filter(campaign=campaign, is_gold=False)
    if campaign.split == Campaign.Split.BY_TOPIC and assessor.kind == Assessor.Kind.EXPERT:
        return items.filter(Q(primary_assessor=assessor) | Q(is_calibration=True))
    return items


def progress_for_assessor(*, assessor: Assessor) -> dict:
    """Return my progress: {"done", "assigned", "basis", "topics": [{"qid", "title", "done", "assigned"}]}.

    "done" counts my judgments (skips included, gold included). "assigned" is what I have
    done plus what is still open to me: the regular items of my share (split by topic: my
    primary topics plus the calibration set; shared queue: every item) that I have not
    judged and that still lack judgments. So the total is exact, never an estimate: when
    nothing is left it equals "done" (no "277 / 278" at the end). In a shared queue it
    shrinks when colleagues take pairs; "basis" ("shared_queue", "my_topics", "batch")
    lets the page say so. A crowd worker's total is the batch size.
    """
    campaign = assessor.campaign
    mine = Judgment.objects.filter(assessor=assessor)
    done_by_topic = dict(
        mine.values_list("item__pair__topic_id").annotate(n=Count("id")).order_by().values_list("item__pair__topic_id", "n")
    )
    done = sum(done_by_topic.values())
    if assessor.kind == Assessor.Kind.CROWD:
        return {"done": min(done, campaign.crowd_batch_size), "assigned": campaign.crowd_batch_size,
                "basis": "batch", "topics": []}
    items = _assigned_items(assessor)
    open_by_topic = dict(
        items.filter(judgment_count__lt=F("required_judgments")).exclude(judgments__assessor=assessor)
        .values_list("pair__topic_id").annotate(n=Count("id")).order_by().values_list("pair__topic_id", "n")
    )
    rows = items.values("pair__topic_id", "pair__topic__qid", "pair__topic__title").distinct().order_by("pair__topic__qid")
    topics = []
    for row in rows:
        got = done_by_topic.get(row["pair__topic_id"], 0)
        topics.append({"qid": row["pair__topic__qid"], "title": row["pair__topic__title"], "done": got,
                       "assigned": got + open_by_topic.get(row["pair__topic_id"], 0)})
    assigned = max(sum(t["assigned"] for t in topics), done)
    by_topic = campaign.split == Campaign.Split.BY_TOPIC
    return {"done": done, "assigned": assigned, "basis": "my_topics" if by_topic else "shared_queue", "topics": topics}


def campaign_progress(*, campaign: Campaign) -> dict:
    """Return {"required", "judged", "items", "complete", "topics": [...]} over the regular items.

    Each topic row has "qid", "title", "items", "required", "judged", "complete" (items with
    all their judgments) and, as aliases of judged/required, "done" and "assigned".
    "judged" reads ``Item.judgment_count``, which counts usable judgments only: a blocked
    assessor's labels are not counted (``judging.services.quality``), so progress drops when
    someone is blocked and their items wait for other assessors.
    """
    rows = (
        Item.objects.filter(campaign=campaign, is_gold=False)
        .values("pair__topic__qid", "pair__topic__title")
        .annotate(
            items=Count("id"),
            required=Sum("required_judgments"),
            judged=Sum("judgment_count"),
            complete=Count("id", filter=Q(judgment_count__gte=F("required_judgments"))),
        )
        .order_by("pair__topic__qid")
    )
    topics = []
    for r in rows:
        required, judged = r["required"] or 0, min(r["judged"] or 0, r["required"] or 0)
        topics.append({"qid": r["pair__topic__qid"], "title": r["pair__topic__title"], "items": r["items"],
                       "required": required, "judged": judged, "complete": r["complete"],
                       "done": judged, "assigned": required})  # same keys as progress_for_assessor
    return {
        "required": sum(t["required"] for t in topics),
        "judged": sum(t["judged"] for t in topics),
        "items": sum(t["items"] for t in topics),
        "complete": sum(t["complete"] for t in topics),
        "topics": topics,
    }


def disputed_items(*, campaign: Campaign, topic: str | None = None, assessors=(), min_gap: int | None = None,
                   unresolved: bool = False):
    """Return a queryset of the campaign's regular items whose labels disagree (see ``conflicts``).

    ``topic`` (a qid) keeps one topic's items; ``assessors`` (Assessor ids) keeps items that
    every one of them labelled — the pairs behind one cell of the dashboard's heatmap;
    ``min_gap`` keeps items whose highest and lowest labels are at least that many grades
    apart; ``unresolved`` leaves out items the lead has already adjudicated.
    """
    disputed = (
        Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, skipped=False, assessor__blocked=False)
        .values("item_id")
        .annotate(grades=Count("grade", distinct=True), gap=Max("grade") - Min("grade"))
        .filter(grades__gt=1)
    )
    if min_gap:
        disputed = disputed.filter(gap__gte=min_gap)
    items = Item.objects.filter(campaign=campaign, pk__in=disputed.values_list("item_id", flat=True))
    if topic:
        items = items.filter(pair__topic__qid=topic)
    for assessor_id in assessors:
        items = items.filter(pk__in=Judgment.objects.filter(assessor_id=assessor_id, skipped=False).values("item_id"))
    if unresolved:
        items = items.filter(adjudication__isnull=True)
    return items


CONFLICTS_PER_PAGE = 50


def disputed_item_ids(*, campaign: Campaign, topic: str | None = None, assessors=(), min_gap: int | None = None,
                      unresolved: bool = False) -> list[int]:
    """Return the ids of :func:`disputed_items` in campaign order.

    Finding the disputes groups every judgment of the campaign (a second on 100,000 judgments),
    so the list is kept under the dashboard's data stamp (it changes with judgments, blocks and
    rejudge requests; see judging.dashboard.selectors.data_stamp). ``unresolved`` is applied
    afresh on every call, so an adjudication drops its pair from that list at once.
    """
    from judging.dashboard.selectors import cached_under_stamp

    key = f"disputed:{topic or ''}:{','.join(str(a) for a in sorted(assessors))}:{min_gap or 0}"
    ids = cached_under_stamp(campaign, key, lambda: list(
        disputed_items(campaign=campaign, topic=topic, assessors=assessors, min_gap=min_gap)
        .order_by("position").values_list("pk", flat=True)))
    if unresolved:
        decided = set(Adjudication.objects.filter(campaign=campaign).values_list("item_id", flat=True))
        ids = [pk for pk in ids if pk not in decided]
    return ids


def conflicts(*, campaign: Campaign, topic: str | None = None, assessors=(), min_gap: int | None = None,
              unresolved: bool = False, page: int | None = None, per_page: int = CONFLICTS_PER_PAGE) -> list[dict]:
    """Return regular items whose labels disagree, with every label, its assessor, time and comment.

    An item is a conflict when its non-skipped labels hold two or more distinct grades.
    Blocked crowd workers' labels are shown (marked) but don't make a conflict on their own.
    ``topic``, ``assessors``, ``min_gap`` and ``unresolved`` filter as in :func:`disputed_items`;
    with ``page`` (from 1) only that page of ``per_page`` items (in campaign order) is loaded.
    Rows: {"item", "pair", "document", "labels": [{"assessor", "kind", "blocked", "grade",
    "skipped", "seconds", "comment", "at"}], "adjudication"}.
    """
    ids = disputed_item_ids(campaign=campaign, topic=topic, assessors=assessors, min_gap=min_gap,
                            unresolved=unresolved)
    if page is not None:
        start = (max(page, 1) - 1) * per_page
        ids = ids[start:start + per_page]
    return conflict_rows(ids)


def conflict_rows(item_ids: list[int]) -> list[dict]:
    """Return the conflicts() rows of the given items, in the given order (two queries)."""
    items = {
        item.pk: item for item in Item.objects.filter(pk__in=item_ids)
        .select_related("pair__topic", "pair__document", "adjudication")
    }
    labels = defaultdict(list)
    judgments = (
        Judgment.objects.filter(item_id__in=item_ids).select_related("assessor__user")
        .order_by("item_id", "created_at", "pk")
    )
    for j in judgments:
        labels[j.item_id].append({
            "assessor": str(j.assessor), "assessor_id": j.assessor_id, "kind": j.assessor.kind,
            "blocked": j.assessor.blocked, "grade": j.grade, "skipped": j.skipped, "seconds": j.active_seconds,
            "comment": j.comment, "at": j.updated_at,
        })
    rows = []
    for pk in item_ids:
        item = items[pk]
        adjudication = getattr(item, "adjudication", None)  # a missing reverse one-to-one raises AttributeError
        rows.append({"item": item, "pair": item.pair, "document": item.pair.document, "labels": labels[item.pk],
                     "adjudication": adjudication})
    return rows


def assessor_campaign_rows(*, user) -> list[dict]:
    """Return the active campaigns the user judges in as an expert, each with the user's progress.

    Rows: {"campaign", "progress"}, newest campaign first (``judging.access.campaigns_for_assessor``).
    """
    campaigns = campaigns_for_assessor(user).select_related("collection")
    assessors = {a.campaign_id: a for a in
                 Assessor.objects.filter(user=user, campaign__in=campaigns).select_related("campaign")}
    return [{"campaign": campaign,
             "progress": (progress_for_assessor(assessor=assessors[campaign.pk]) if campaign.pk in assessors
                          else {"done": 0, "assigned": 0})}
            for campaign in campaigns]


def pairs_without_text(*, pool) -> int:
    """Return how many of the pool's pairs have no document text to show an assessor (missing or blank)."""
    from collections_app.models import PoolPair

    return PoolPair.objects.filter(pool=pool).filter(
        Q(document__isnull=True) | Q(document__text__regex=r"^\s*$")
    ).count()
