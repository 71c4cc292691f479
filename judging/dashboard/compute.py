"""Pure dashboard computations over plain numpy arrays: progress, throughput, cost, assessors, agreement.

Nothing here touches the database, so every figure can be tested on hand-built arrays.
Inputs are the :class:`CampaignArrays` a selector loads in a fixed number of queries.

Flag thresholds (documented in docs/user-guide-leads.md):
- too fast: median active seconds per judgment below ``max(FAST_SECONDS, campaign median × FAST_SHARE)``;
- low agreement: mean pairwise agreement with the others below ``LOW_AGREEMENT`` (0.2, the
  top of Landis & Koch's "slight"), or below ``LOW_PERCENT`` (0.5) for percent agreement;
- the heatmap (and "agreement with others") covers at most MAX_MATRIX_RATERS (40) assessors,
  those with the most labels;
- low gold accuracy: below ``max(campaign.gold_accuracy_threshold, LOW_GOLD)`` once the
  assessor has answered at least ``campaign.gold_min_answers`` gold pairs (at least one).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judging.agreement import RatingTable, agreement, binarize_table, pairwise_matrix
from judging.agreement_mean_pairwise import mean_pairwise
from judging.dashboard.choices import StatChoice

FAST_SECONDS = 3.0
FAST_SHARE = 1 / 3
LOW_AGREEMENT = 0.2
LOW_PERCENT = 0.5
LOW_GOLD = 0.6
MIN_PAIR_OVERLAP = 2
MAX_MATRIX_RATERS = 40
OVERALL_BOOTSTRAP = 200  # resamples for the overall value's interval (about 0.05 s on 25,000 items)
TOPIC_BOOTSTRAP = 200  # resamples for each topic's interval
RECENT_HOURS = 24.0
MAX_TIME_BUCKETS = 10
MIN_BUCKET_ITEMS = 10  # fewer doubly judged items than this say nothing about agreement


@dataclass(frozen=True)
class CampaignArrays:
    """One campaign's items and judgments as parallel arrays (see selectors.load_campaign_arrays).

    Items: ``item_ids``, ``item_topic`` (index into ``topics``), ``required``, ``counts``
    (judgments recorded), ``is_gold``, ``gold_grade`` (float, NaN when none). Judgments:
    ``j_item`` (index into items), ``j_assessor`` (index into ``assessors``), ``j_grade``
    (scale position, −1 for a skip), ``j_seconds``, ``j_time`` (epoch seconds).
    ``assessors`` rows are dicts with "id", "name", "kind", "blocked".
    """

    scale: tuple[int, ...]
    threshold: int
    topics: Sequence[tuple[str, str]]
    assessors: Sequence[dict]
    item_ids: np.ndarray
    item_topic: np.ndarray
    required: np.ndarray
    counts: np.ndarray
    is_gold: np.ndarray
    gold_grade: np.ndarray
    j_item: np.ndarray
    j_assessor: np.ndarray
    j_grade: np.ndarray
    j_seconds: np.ndarray
    j_time: np.ndarray


def progress(data: CampaignArrays) -> dict:
    """Return judged/required overall and per topic over regular items (judged clipped at required per item)."""
    regular = ~data.is_gold
    judged = np.minimum(data.counts, data.required) * regular
    required = data.required * regular
    n_topics = len(data.topics)
    by_topic_req = np.bincount(data.item_topic, weights=required, minlength=n_topics)
    by_topic_done = np.bincount(data.item_topic, weights=judged, minlength=n_topics)
    topics = [
        {"qid": qid, "title": title, "required": int(by_topic_req[t]), "judged": int(by_topic_done[t]),
         "share": float(by_topic_done[t] / by_topic_req[t]) if by_topic_req[t] else 1.0}
        for t, (qid, title) in enumerate(data.topics) if by_topic_req[t]
    ]
    total_req, total_done = int(required.sum()), int(judged.sum())
    return {"required": total_req, "judged": total_done, "remaining": total_req - total_done,
            "share": total_done / total_req if total_req else 1.0, "topics": topics}


def throughput(times: np.ndarray, *, now: float) -> dict:
    """Return judgments per hour overall (first to last judgment) and over the recent window.

    The recent window is the last RECENT_HOURS hours, shortened to the time since the first
    judgment when judging started more recently (so a fresh campaign is not diluted).
    """
    n = int(times.size)
    if n == 0:
        return {"total": 0, "overall_per_hour": None, "recent_per_hour": None, "recent_hours": 0.0,
                "recent_label": "no judgments yet"}
    first, last = float(times.min()), float(times.max())
    span_hours = max(last - first, 60.0) / 3600  # at least a minute: one burst is not infinite speed
    window = min(RECENT_HOURS, max(now - first, 60.0) / 3600)
    recent = int((times >= now - window * 3600).sum())
    label = f"last {window:.1f} h" if window >= 1 else f"last {max(1, round(window * 60))} min"
    return {"total": n, "overall_per_hour": n / span_hours, "recent_per_hour": recent / window,
            "recent_hours": window, "recent_label": label}


def estimate(*, seconds: np.ndarray, remaining: int, rate: float | None, recent_per_hour: float | None) -> dict:
    """Return the effort to finish (median active seconds × remaining), its cost at ``rate`` per hour,
    and the wall-clock hours at the recent throughput."""
    median = float(np.median(seconds)) if seconds.size else None
    hours = None if median is None else median * remaining / 3600
    return {
        "median_seconds": median, "remaining": remaining, "active_hours": hours, "rate": rate,
        "cost": None if hours is None or rate is None else hours * rate,
        "wall_hours": remaining / recent_per_hour if recent_per_hour else None,
    }


def rating_table(data: CampaignArrays, *, binary: bool) -> tuple[RatingTable, np.ndarray]:
    """Return the items × assessors table of labels on regular items (skips and blocked assessors left out)
    and each table row's topic index. With ``binary`` the grades collapse at the relevance threshold."""
    blocked = np.array([a["blocked"] for a in data.assessors], dtype=bool)
    keep = (data.j_grade >= 0) & ~data.is_gold[data.j_item]
    if blocked.size:
        keep &= ~blocked[data.j_assessor]
    items, rows = np.unique(data.j_item[keep], return_inverse=True)
    raters, cols = np.unique(data.j_assessor[keep], return_inverse=True)
    positions = np.full((items.size, raters.size), -1, dtype=np.int64)
    positions[rows, cols] = data.j_grade[keep]
    table = RatingTable(tuple(int(i) for i in items), tuple(int(r) for r in raters), positions, data.scale)
    if binary:
        table = binarize_table(table, threshold=data.threshold)
    return table, data.item_topic[items] if items.size else np.zeros(0, dtype=np.int64)


def _subtable(table: RatingTable, rows: np.ndarray) -> RatingTable:
    items = np.asarray(table.items)[rows].tolist()  # item ids are ints here: one C-level gather, not a loop
    return RatingTable(tuple(items), table.raters, table.positions[rows], table.categories)


def group_value(table: RatingTable, rows: np.ndarray, stat: StatChoice, *, n_boot: int = 0) -> dict:
    """Return the choice's per-group statistic over the given table rows: {"value", "n_items", "reason"}.

    Two-assessor statistics give their mean over assessor pairs (Light's κ for Cohen's κ; see
    judging.agreement_mean_pairwise). With ``n_boot`` > 0 also "ci_low"/"ci_high": a 95 %
    bootstrap interval over items (seed 0).
    """
    rows = rows[(table.positions[rows] >= 0).sum(axis=1) >= 2]
    if rows.size == 0:
        out = {"value": None, "n_items": 0, "reason": "no pair judged twice"}
        return {**out, "ci_low": None, "ci_high": None} if n_boot else out
    options = dict(stat.group)
    if "mean_pairwise" in options:
        [result] = mean_pairwise(_subtable(table, rows), statistic=options["mean_pairwise"],
                                 weights=options.get("weights"), min_overlap=MIN_PAIR_OVERLAP, n_boot=n_boot)
        return _mean_pairwise_cell(result, n_boot)
    ci = "bootstrap" if n_boot else None
    result = agreement(_subtable(table, rows), categories=table.categories, ci=ci, n_boot=max(n_boot, 1), seed=0,
                       **options)
    out = {"value": result.value, "n_items": int(rows.size),
           "reason": None if result.value is not None else result.undefined_reason}
    if n_boot:
        out.update(ci_low=result.ci_low, ci_high=result.ci_high)
    return out


def _mean_pairwise_cell(result, n_boot: int) -> dict:
    """Return a MeanPairwise result as a group cell (with its interval when bootstrapped)."""
    cell = {"value": result.value, "n_items": result.n_items, "reason": result.reason}
    if n_boot:
        cell.update(ci_low=result.ci_low, ci_high=result.ci_high)
    return cell


def per_topic(table: RatingTable, row_topic: np.ndarray, topics: Sequence[tuple[str, str]], stat: StatChoice, *,
              n_boot: int = 0) -> list[dict]:
    """Return the group statistic for every topic with at least one doubly judged pair.

    With ``n_boot`` > 0 each topic also gets a 95 % bootstrap interval over its items (seed 0),
    so a lead can tell a low value on a handful of pairs from a low value on many. Mean pairwise
    statistics take every topic in one grouped computation; the others one topic at a time.
    """
    options = dict(stat.group)
    if "mean_pairwise" in options:
        doubly = (table.positions >= 0).sum(axis=1) >= 2
        present = np.unique(row_topic[doubly])
        if present.size == 0:
            return []
        index = np.full(int(row_topic.max()) + 1, -1, dtype=np.int64)
        index[present] = np.arange(present.size)
        keep = np.flatnonzero(index[row_topic] >= 0)
        results = mean_pairwise(_subtable(table, keep), statistic=options["mean_pairwise"],
                                weights=options.get("weights"), groups=index[row_topic[keep]],
                                n_groups=present.size, min_overlap=MIN_PAIR_OVERLAP, n_boot=n_boot)
        return [{"qid": topics[t][0], "title": topics[t][1], **_mean_pairwise_cell(result, n_boot)}
                for t, result in zip(present.tolist(), results)]
    out = []
    for t in np.unique(row_topic):
        cell = group_value(table, np.flatnonzero(row_topic == t), stat, n_boot=n_boot)
        if cell["n_items"]:
            out.append({"qid": topics[t][0], "title": topics[t][1], **cell})
    return out


def over_time(table: RatingTable, data: CampaignArrays, stat: StatChoice) -> dict:
    """Return the group statistic over time: by UTC day when judging spans two days or more,
    else in up to MAX_TIME_BUCKETS equal groups (of at least MIN_BUCKET_ITEMS items when there
    are that many) of items in order of completion.

    An item counts when its last label arrives (the moment its agreement becomes visible).
    """
    if not table.items:
        return {"unit": "day", "points": []}
    keep = data.j_grade >= 0
    done = np.zeros(data.item_ids.size)
    np.maximum.at(done, data.j_item[keep], data.j_time[keep])
    rows_done = done[np.asarray(table.items, dtype=np.int64)]
    doubly = (table.positions >= 0).sum(axis=1) >= 2
    days = np.floor(rows_done / 86400).astype(np.int64)
    points = []
    if np.unique(days[doubly]).size >= 2:
        unit = "day"
        for day in np.unique(days[doubly]):
            label = np.datetime_as_string(np.datetime64(int(day), "D"))
            points.append({"label": str(label), **group_value(table, np.flatnonzero((days == day) & doubly), stat)})
    else:
        unit = "items in order of completion"
        order = np.flatnonzero(doubly)[np.argsort(rows_done[doubly], kind="stable")]
        buckets = max(1, min(MAX_TIME_BUCKETS, order.size // MIN_BUCKET_ITEMS))
        for n, chunk in enumerate(np.array_split(order, buckets)):
            if chunk.size:
                points.append({"label": f"{n + 1}", **group_value(table, chunk, stat)})
    return {"unit": unit, "points": points}


def pairwise(table: RatingTable, stat: StatChoice, *, max_raters: int | None = None):
    """Return the pairwise matrix of the chosen statistic (pairs under MIN_PAIR_OVERLAP shared items undefined).

    With ``max_raters`` only that many raters enter — those with the most labels (ties: first
    column first) — since a crowd campaign's hundreds of workers would mean tens of thousands
    of pairs, most sharing an item or two, and a heatmap nobody can read.
    """
    if max_raters is not None and len(table.raters) > max_raters:
        judged = (table.positions >= 0).sum(axis=0)
        keep = np.sort(np.argsort(-judged, kind="stable")[:max_raters])
        table = RatingTable(table.items, tuple(table.raters[k] for k in keep), table.positions[:, keep],
                            table.categories)
    options = dict(stat.pair)
    return pairwise_matrix(table, categories=table.categories, min_overlap=MIN_PAIR_OVERLAP, ci=None, **options)


def low_agreement_threshold(stat: StatChoice) -> float:
    """Return the value under which agreement is flagged low for this statistic."""
    return LOW_PERCENT if stat.key == "percent" else LOW_AGREEMENT


def assessor_rows(data: CampaignArrays, matrix, stat: StatChoice, *, gold_threshold: float,
                  gold_min_answers: int) -> list[dict]:
    """Return one row per assessor: counts, median seconds, label distribution, agreement, gold accuracy, flags."""
    n = len(data.assessors)
    q = len(data.scale)
    labelled = data.j_grade >= 0
    counts = np.bincount(data.j_assessor[labelled], minlength=n)
    skips = np.bincount(data.j_assessor[~labelled], minlength=n)
    dist = np.zeros((n, q), dtype=np.int64)
    np.add.at(dist, (data.j_assessor[labelled], data.j_grade[labelled]), 1)
    on_gold = labelled & data.is_gold[data.j_item] & ~np.isnan(data.gold_grade[data.j_item])
    gold_answered = np.bincount(data.j_assessor[on_gold], minlength=n)
    hit = on_gold & (np.asarray(data.scale)[np.maximum(data.j_grade, 0)] == data.gold_grade[data.j_item])
    gold_correct = np.bincount(data.j_assessor[hit], minlength=n)
    campaign_median = float(np.median(data.j_seconds)) if data.j_seconds.size else 0.0
    fast_limit = max(FAST_SECONDS, campaign_median * FAST_SHARE)
    order = np.argsort(data.j_assessor, kind="stable")
    bounds = np.searchsorted(data.j_assessor[order], np.arange(n + 1))
    low = low_agreement_threshold(stat)
    gold_floor = max(gold_threshold, LOW_GOLD)
    rows = []
    for a, person in enumerate(data.assessors):
        seconds = data.j_seconds[order[bounds[a]:bounds[a + 1]]]
        median = float(np.median(seconds)) if seconds.size else None
        agree = matrix.mean_agreement(a) if a in matrix.raters else None
        accuracy = gold_correct[a] / gold_answered[a] if gold_answered[a] else None
        flags = []
        if median is not None and median < fast_limit:
            flags.append("too fast")
        if agree is not None and agree < low:
            flags.append("low agreement")
        if accuracy is not None and gold_answered[a] >= max(gold_min_answers, 1) and accuracy < gold_floor:
            flags.append("low gold accuracy")
        if person["blocked"]:
            flags.append("blocked")
        rows.append({**person, "judgments": int(counts[a]), "skips": int(skips[a]), "median_seconds": median,
                     "distribution": [{"grade": g, "count": int(dist[a, k])} for k, g in enumerate(data.scale)],
                     "agreement": agree, "gold_answered": int(gold_answered[a]), "gold_correct": int(gold_correct[a]),
                     "gold_accuracy": accuracy, "flags": flags})
    return rows
