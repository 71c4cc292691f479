"""Load a campaign's dashboard data in a fixed number of queries and assemble the dashboard.

Four queries per campaign whatever its size (topics, items, judgments, assessors), each a
``values_list`` turned straight into numpy arrays; everything else is computed in
:mod:`judging.dashboard.compute`. The collection overview does the same per campaign.
"""
from __future__ import annotations

import time

import numpy as np
from django.db import connections
from django.db.models import FloatField, Func, Value
from django.db.models.functions import Coalesce

from collections_app.models import Topic
from judging.dashboard import compute
from judging.dashboard.choices import StatChoice
from judging.models import Assessor, Campaign, Item, Judgment


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
            "item_id", "assessor_id", Coalesce("grade", Value(MISSING)), "active_seconds", Epoch("created_at")
        ), 5)
    item_ids = items[:, 0].astype(np.int64)
    gold_grade = items[:, 5]
    return compute.CampaignArrays(
        scale=scale,
        threshold=collection.relevant_threshold,
        topics=[names[int(topic_ids[k])] for k in by_first],
        assessors=[
            {"id": pk, "kind": kind, "blocked": blocked, "blocked_reason": reason, "blocked_at": blocked_at,
             "name": username if username else f"{platform or 'crowd'}:{worker_id}"}
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
        j_seconds=judgments[:, 3],
        j_time=judgments[:, 4],
    )


def campaign_dashboard(*, campaign: Campaign, stat: StatChoice, binary: bool = False, rate: float | None = None,
                       now: float | None = None) -> dict:
    """Return everything the dashboard shows for one campaign (plain data: the page, the API and tests read it)."""
    data = load_campaign_arrays(campaign)
    now = time.time() if now is None else now
    done = compute.progress(data)
    speed = compute.throughput(data.j_time, now=now)
    table, row_topic = compute.rating_table(data, binary=binary)
    matrix = compute.pairwise(table, stat, max_raters=compute.MAX_MATRIX_RATERS)
    names = [a["name"] for a in data.assessors]
    rater_names = [names[r] for r in matrix.raters]
    values = matrix.values()
    overlaps = matrix.overlaps()
    cells = []
    for i, a in enumerate(matrix.raters):
        for j, b in enumerate(matrix.raters):
            value = values[i, j]
            cells.append({"row": data.assessors[a]["id"], "col": data.assessors[b]["id"],
                          "value": None if np.isnan(value) else float(value), "n_items": int(overlaps[i, j])})
    low = compute.low_agreement_threshold(stat)
    low_pairs = sorted(
        ({"a": data.assessors[a]["id"], "b": data.assessors[b]["id"], "a_name": names[a], "b_name": names[b],
          "value": r.value, "n_items": r.n_items} for (a, b), r in matrix.results.items()
         if r.value is not None and r.value < low),
        key=lambda row: row["value"],
    )
    overall = compute.group_value(table, np.arange(len(table.items)), stat, n_boot=compute.OVERALL_BOOTSTRAP)
    topics = compute.per_topic(table, row_topic, data.topics, stat, n_boot=compute.TOPIC_BOOTSTRAP)
    for row in topics:
        row["low"] = row["value"] is not None and row["value"] < low
    return {
        "statistic": {"key": stat.key, "label": stat.label, "group_label": stat.group_label, "binary": binary,
                      "low_threshold": low, "matrix_limited": len(table.raters) > len(matrix.raters),
                      "max_matrix_raters": compute.MAX_MATRIX_RATERS},
        "progress": done,
        "throughput": speed,
        "estimate": compute.estimate(seconds=data.j_seconds, remaining=done["remaining"], rate=rate,
                                     recent_per_hour=speed["recent_per_hour"]),
        "assessors": compute.assessor_rows(data, matrix, stat, gold_threshold=campaign.gold_accuracy_threshold,
                                           gold_min_answers=campaign.gold_min_answers),
        "matrix": {"raters": [data.assessors[r]["id"] for r in matrix.raters], "names": rater_names, "cells": cells},
        "low_pairs": low_pairs,
        "overall": overall,
        "topics": topics,
        "over_time": compute.over_time(table, data, stat),
    }


def collection_overview(*, campaigns, stat: StatChoice, binary: bool = False, rate: float | None = None,
                        now: float | None = None) -> list[dict]:
    """Return progress, throughput, cost to finish and overall agreement (the choice's group statistic)
    for each campaign of a collection."""
    now = time.time() if now is None else now
    rows = []
    for campaign in campaigns:
        data = load_campaign_arrays(campaign)
        done = compute.progress(data)
        speed = compute.throughput(data.j_time, now=now)
        table, _ = compute.rating_table(data, binary=binary)
        rows.append({"campaign": campaign, "progress": done, "throughput": speed,
                     "agreement": compute.group_value(table, np.arange(len(table.items)), stat),
                     "estimate": compute.estimate(seconds=data.j_seconds, remaining=done["remaining"], rate=rate,
                                                  recent_per_hour=speed["recent_per_hour"])})
    return rows
