"""Load a campaign's dashboard data in a fixed number of queries and assemble the dashboard.

Four queries per campaign whatever its size (topics, items, judgments, assessors), each a
``values_list`` turned straight into numpy arrays; everything else is computed in
:mod:`judging.dashboard.compute`. The collection overview does the same per campaign.

The assembled figures are cached (Django's cache API, ``django.core.cache.cache``) under a key
that holds a stamp of the campaign's data: the count, last id and last change of its
judgments, its assessors' block state and its items' requirements. Any new or changed
judgment, block, unblock or rejudge request changes the stamp, so a cached dashboard is never
stale with respect to the data; the page says when its figures were computed. Only the
figures that depend on the clock (judgments per hour, time to finish) are recomputed on every
request, from the cached judgment times.
"""
from __future__ import annotations

import hashlib
import time

import numpy as np
from django.core.cache import cache
from django.db import connections
from django.db.models import Count, FloatField, Func, Max, Q, Sum, Value
from django.db.models.functions import Coalesce

from collections_app.models import Topic
from collections_app.scales import agreement_grades
from judging.dashboard import compute
from judging.dashboard.choices import StatChoice
from judging.models import Assessor, Campaign, Item, Judgment, assessor_label


class Epoch(Func):
    """Seconds since 1970 of a datetime column, computed by the database.

    Converting 60,000 ``datetime`` objects (timezone handling included) cost more than the
    rest of the dashboard put together; the dashboard only needs seconds.
    """

    output_field = FloatField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="EXTRACT(EPOCH FROM %(expressions)s)::double precision", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)",
                           **extra)


MISSING = -(10**9)  # stands for NULL in numeric columns (no grade: a skip; no gold grade)


def _matrix(queryset, width: int) -> np.ndarray:
    """Run a values_list queryset on the raw cursor and return its rows as a float matrix.

    Skips Django's per-value converters and row tuples: for 60,000 judgments they cost
    more than every statistic on the page. Columns must be numeric and never NULL
    (wrap nullable ones in Coalesce with MISSING).
    """
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return np.array(rows, dtype=float).reshape(len(rows), width)


def _index_of(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Return the position in ``ids`` of each value (every value must occur in ids)."""
    order = np.argsort(ids, kind="stable")
    return order[np.searchsorted(ids[order], values)]


def _scale_positions(scale: tuple[int, ...], grades: np.ndarray) -> np.ndarray:
    """Return each grade's position on the scale, −1 for MISSING or a grade not on the scale."""
    values = np.asarray(scale, dtype=float)
    order = np.argsort(values, kind="stable")
    at = np.clip(np.searchsorted(values[order], grades), 0, len(scale) - 1)
    positions = order[at]
    return np.where(values[positions] == grades, positions, -1).astype(np.int64)


def load_campaign_arrays(campaign: Campaign) -> compute.CampaignArrays:
    """Return the campaign's items, judgments and assessors as :class:`compute.CampaignArrays`.

    ``counts`` is ``Item.judgment_count``: usable judgments, those of unblocked assessors
    (``judging.services.quality`` recounts on a block or unblock), so the progress figures
    leave out a blocked assessor's work.
    """
    collection = campaign.collection
    scale = tuple(collection.grades)
    counted = set(agreement_grades(collection.scale, include_cannot_judge=False))
    items = _matrix(
        Item.objects.filter(campaign=campaign).order_by("position").values_list(
            "pk", "pair__topic_id", "required_judgments", "judgment_count", "is_gold",
            Coalesce("gold_grade", Value(MISSING)),
        ), 6)
    names = {
        pk: (qid, title) for pk, qid, title in
        Topic.objects.filter(collection_id=campaign.collection_id).values_list("pk", "qid", "title")
    }
    # topics in order of their first item (the campaign's order)
    topic_ids, first, inverse = np.unique(items[:, 1].astype(np.int64), return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.size)
    assessors = list(
        Assessor.objects.filter(campaign=campaign).order_by("id").values_list(
            "pk", "kind", "user__username", "platform", "worker_id", "blocked", "blocked_reason", "blocked_at"
        )
    )
    assessor_ids = np.array([row[0] for row in assessors], dtype=np.int64)
    judgments = _matrix(
        # order_by(): Judgment's default ordering joins and sorts by campaign and collection —
        # an on-disk sort of every row, and the arrays need no order.
        Judgment.objects.filter(item__campaign=campaign).order_by().values_list(
            "item_id", "assessor_id", Coalesce("grade", Value(MISSING)),
            Coalesce("active_seconds", Value(float(MISSING)), output_field=FloatField()), Epoch("created_at")
        ), 5)
    item_ids = items[:, 0].astype(np.int64)
    gold_grade = items[:, 5]
    return compute.CampaignArrays(
        scale=scale,
        threshold=collection.relevant_threshold,
        topics=[names[int(topic_ids[k])] for k in by_first],
        assessors=[
            {"id": pk, "kind": kind, "blocked": blocked, "blocked_reason": reason, "blocked_at": blocked_at,
             "name": assessor_label(kind=kind, username=username, platform=platform, worker_id=worker_id)}
            for pk, kind, username, platform, worker_id, blocked, reason, blocked_at in assessors
        ],
        item_ids=item_ids,
        item_topic=rank[inverse.reshape(-1)].astype(np.int64),
        required=items[:, 2].astype(np.int64),
        counts=items[:, 3].astype(np.int64),
        is_gold=items[:, 4].astype(bool),
        gold_grade=np.where(gold_grade == MISSING, np.nan, gold_grade),
        j_item=_index_of(item_ids, judgments[:, 0].astype(np.int64)),
        j_assessor=_index_of(assessor_ids, judgments[:, 1].astype(np.int64)),
        j_grade=_scale_positions(scale, judgments[:, 2]),
        j_seconds=np.where(judgments[:, 3] == MISSING, np.nan, judgments[:, 3]),  # unknown time (imported)
        j_time=judgments[:, 4],
        cannot_judge=tuple(g for g in scale if g not in counted),
    )


CACHE_SECONDS = 24 * 3600
CACHE_VERSION = 3  # 2: assessors named by Assessor.label; 3: no speed flags in imported campaigns


STAMP_SECONDS = 30  # the judgments' digest in a data stamp is trusted this long, then recomputed


def _stamp_key(campaign: Campaign) -> str:
    return f"qs:dashboard-stamp:v{CACHE_VERSION}:{campaign.pk}"



def _without_pace(speed: dict, estimate: dict) -> tuple[dict, dict]:
    """Blank the pace, time and cost figures of an imported campaign: judged elsewhere and loaded at once,
    its load time is no pace and its (often unknown) seconds no cost."""
    return ({**speed, "overall_per_hour": None, "recent_per_hour": None, "recent_label": "imported campaign"},
            {**estimate, "median_seconds": None, "active_hours": None, "cost": None, "wall_hours": None})

def forget_stamp(campaign: Campaign) -> None:
    """Make the next dashboard request recompute the judgments' digest of the data stamp."""
    cache.delete(_stamp_key(campaign))


def data_stamp(campaign: Campaign) -> str:
    """Return a short digest of everything the dashboard's figures depend on.

    New, changed or deleted judgments, a block or unblock, a rejudge request (required
    judgments), a topic's title and the campaign's gold settings all change it. The cheap part
    is read on every call: the items' required and usable-judgment counts (a new usable
    judgment, a block or unblock and a rejudge request all change them at once), the
    assessors' block state, the topics, the settings. Only the judgments' own digest (count,
    last id, last change: it catches a relabelled judgment) aggregates every judgment of the
    campaign — a join over 100,000 rows, up to a second or two on a busy SQLite — so it is
    reused for STAMP_SECONDS: a relabelling reaches the dashboard within that time.
    """
    key = _stamp_key(campaign)
    judgments = cache.get(key)
    if judgments is None:
        judgments = Judgment.objects.filter(item__campaign=campaign).order_by().aggregate(
            n=Count("id"), top=Max("id"), last_change=Max("updated_at"))
        cache.set(key, judgments, STAMP_SECONDS)
    assessors = Assessor.objects.filter(campaign=campaign).order_by().aggregate(
        n=Count("id"), n_blocked=Count("id", filter=Q(blocked=True)), blocked_ids=Sum("id", filter=Q(blocked=True)),
        last_block=Max("blocked_at"))
    items = Item.objects.filter(campaign=campaign).order_by().aggregate(
        n=Count("id"), n_required=Sum("required_judgments"), n_counted=Sum("judgment_count"))
    topics = list(Topic.objects.filter(collection_id=campaign.collection_id).order_by("pk").values_list("qid", "title"))
    collection = campaign.collection
    parts = (judgments, assessors, items, topics, collection.scale, collection.relevant_threshold,
             campaign.gold_accuracy_threshold, campaign.gold_min_answers, campaign.origin)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


def _cached(key: str, build):
    value = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, CACHE_SECONDS)
    return value


def campaign_dashboard(*, campaign: Campaign, stat: StatChoice, binary: bool = False, rate: float | None = None,
                       now: float | None = None, heatmap: str = "judgments", include_cannot_judge: bool = False) -> dict:
    """Return everything the dashboard shows for one campaign (plain data: the page, the API and tests read it).

    ``heatmap`` chooses which assessors the heatmap shows (compute.HEATMAP_CHOICES). The
    figures come from the cache when the campaign's data has not changed since they were
    computed ("freshness" says when that was). Agreement leaves out the scale's "could not
    judge" grades unless ``include_cannot_judge`` (``statistic.cannot_judge`` says which
    grades and whether they were left out).
    """
    heatmap = heatmap if heatmap in compute.HEATMAP_CHOICES else "judgments"
    now = time.time() if now is None else now
    stamp = data_stamp(campaign)
    base = f"qs:dashboard:v{CACHE_VERSION}:{campaign.pk}:{stamp}"
    data_box: dict = {}

    def arrays():
        if "data" not in data_box:
            data_box["data"] = load_campaign_arrays(campaign)
        return data_box["data"]

    clock = _cached(f"{base}:clock", lambda: _clock_inputs(arrays()))
    figures = _cached(f"{base}:{stat.key}:{int(binary)}:{heatmap}:cj{int(include_cannot_judge)}",
                      lambda: _figures(campaign, arrays(), stat, binary, heatmap, computed_at=time.time(),
                                       include_cannot_judge=include_cannot_judge))
    imported = campaign.origin == Campaign.Origin.IMPORTED
    speed = compute.throughput(clock["times"], now=now)
    estimate = compute.estimate(seconds=clock["seconds"], remaining=figures["progress"]["remaining"], rate=rate,
                                recent_per_hour=speed["recent_per_hour"])
    if imported:
        speed, estimate = _without_pace(speed, estimate)
    computed_at = figures["freshness"]["computed_at"]
    return {**figures, "throughput": speed, "estimate": estimate, "imported": imported,
            "freshness": {**figures["freshness"], "age_seconds": max(0.0, now - computed_at),
                          "cached": "data" not in data_box, "key": base}}


def cached_under_stamp(campaign: Campaign, name: str, build):
    """Return ``build()`` cached under the campaign's current data stamp (recomputed when the data changes)."""
    return _cached(f"qs:dashboard:v{CACHE_VERSION}:{campaign.pk}:{data_stamp(campaign)}:{name}", build)


def cached_for(data: dict, name: str, build):
    """Return ``build()`` cached under the dashboard's data stamp (``data`` is a campaign_dashboard result),
    for other figures a dashboard page shows that change only with the same data."""
    return _cached(f"{data['freshness']['key']}:{name}", build)


def _clock_inputs(data: compute.CampaignArrays) -> dict:
    """Return what the clock-dependent figures need: judgment times and known active seconds."""
    return {"times": np.sort(data.j_time), "seconds": data.j_seconds[np.isfinite(data.j_seconds)]}


def _figures(campaign: Campaign, data: compute.CampaignArrays, stat: StatChoice, binary: bool, heatmap: str, *,
             computed_at: float, include_cannot_judge: bool = False) -> dict:
    """Compute every figure of the dashboard that does not depend on the clock."""
    done = compute.progress(data)
    table, row_topic = compute.rating_table(data, binary=binary, include_cannot_judge=include_cannot_judge)
    found = compute.pairs(table, stat)
    agree_columns = found.mean_with_others(len(table.raters))
    agree = np.full(len(data.assessors), np.nan)
    agree[np.asarray(table.raters, dtype=np.int64)] = agree_columns
    rows = compute.assessor_rows(data, agree, stat, gold_threshold=campaign.gold_accuracy_threshold,
                                 gold_min_answers=campaign.gold_min_answers,
                                 flag_speed=campaign.origin != Campaign.Origin.IMPORTED)
    flagged = np.array([bool(set(r["flags"]) - {"blocked"}) for r in rows], dtype=bool)
    raters = np.asarray(table.raters, dtype=np.int64)
    columns = compute.heatmap_columns(table, agree_columns, flagged[raters] if raters.size else flagged[:0],
                                      choose=heatmap)
    judged = np.bincount(table.label_rater, minlength=len(table.raters))
    values, overlaps = compute.pair_matrix(found, columns, judged)
    shown = raters[columns]
    names = [a["name"] for a in data.assessors]
    ids = [data.assessors[r]["id"] for r in shown.tolist()]
    cells = [{"row": ids[i], "col": ids[j], "value": None if np.isnan(values[i, j]) else float(values[i, j]),
              "n_items": int(overlaps[i, j])} for i in range(len(ids)) for j in range(len(ids))]
    low = compute.low_agreement_threshold(stat)
    low_pairs = [
        {"a": data.assessors[a]["id"], "b": data.assessors[b]["id"], "a_name": names[a], "b_name": names[b],
         "value": float(found.value[k]), "n_items": int(found.n_items[k])}
        for k in compute.low_pairs(found, stat).tolist()
        for a, b in [(int(raters[found.a[k]]), int(raters[found.b[k]]))]
    ]
    overall = compute.group_value(table, np.arange(len(table.items)), stat, n_boot=compute.OVERALL_BOOTSTRAP)
    topics = compute.per_topic(table, row_topic, data.topics, stat, n_boot=compute.TOPIC_BOOTSTRAP)
    for row in topics:
        row["low"] = row["value"] is not None and row["value"] < low
    return {
        "statistic": {"key": stat.key, "label": stat.label, "group_label": stat.group_label, "binary": binary,
                      "low_threshold": low, "matrix_limited": len(table.raters) > len(shown),
                      "max_matrix_raters": compute.MAX_MATRIX_RATERS, "items_counted": compute.items_counted(stat),
                      "low_pair_overlap": compute.LOW_PAIR_OVERLAP,
                      "cannot_judge": {"grades": list(data.cannot_judge),
                                       "left_out": bool(data.cannot_judge) and not include_cannot_judge}},
        "heatmap": {"choice": heatmap, "explanation": compute.HEATMAP_CHOICES[heatmap],
                    "choices": dict(compute.HEATMAP_CHOICES), "assessors_with_labels": len(table.raters)},
        "progress": done,
        "assessors": rows,
        "matrix": {"raters": ids, "names": [names[r] for r in shown.tolist()], "cells": cells},
        "low_pairs": low_pairs,
        "overall": overall,
        "topics": topics,
        "over_time": compute.over_time(table, data, stat),
        "freshness": {"computed_at": computed_at, "judgments": int(data.j_item.size)},
    }


def collection_overview(*, campaigns, stat: StatChoice, binary: bool = False, rate: float | None = None,
                        now: float | None = None, include_cannot_judge: bool = False) -> list[dict]:
    """Return progress, throughput, cost to finish and overall agreement (the choice's group statistic)
    for each campaign of a collection (cached per campaign like the dashboard, by its data stamp;
    "could not judge" grades left out of agreement unless ``include_cannot_judge``)."""
    now = time.time() if now is None else now
    rows = []
    for campaign in campaigns:
        base = f"qs:dashboard:v{CACHE_VERSION}:{campaign.pk}:{data_stamp(campaign)}"
        data_box: dict = {}

        def arrays(campaign=campaign, data_box=data_box):
            if "data" not in data_box:
                data_box["data"] = load_campaign_arrays(campaign)
            return data_box["data"]

        def summary(arrays=arrays):
            data = arrays()
            table, _ = compute.rating_table(data, binary=binary, include_cannot_judge=include_cannot_judge)
            return {"progress": compute.progress(data),
                    "agreement": compute.group_value(table, np.arange(len(table.items)), stat)}

        clock = _cached(f"{base}:clock", lambda arrays=arrays: _clock_inputs(arrays()))
        figures = _cached(f"{base}:overview:{stat.key}:{int(binary)}:cj{int(include_cannot_judge)}", summary)
        done = figures["progress"]
        speed = compute.throughput(clock["times"], now=now)
        plan = compute.estimate(seconds=clock["seconds"], remaining=done["remaining"], rate=rate,
                                recent_per_hour=speed["recent_per_hour"])
        imported = campaign.origin == Campaign.Origin.IMPORTED
        if imported:
            speed, plan = _without_pace(speed, plan)
        rows.append({"campaign": campaign, "progress": done, "throughput": speed, "imported": imported,
                     "agreement": figures["agreement"], "estimate": plan})
    return rows
