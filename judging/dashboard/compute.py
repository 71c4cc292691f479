"""Pure dashboard computations over plain numpy arrays: progress, throughput, cost, assessors, agreement.

Nothing here touches the database, so every figure can be tested on hand-built arrays.
Inputs are the :class:`CampaignArrays` a selector loads in a fixed number of queries.

Flag thresholds (documented in docs/user-guide-leads.md):
- too fast: median active seconds per judgment below ``max(FAST_SECONDS, campaign median × FAST_SHARE)``;
- low agreement: mean pairwise agreement with the others below ``LOW_AGREEMENT`` (0.2, the
  top of Landis & Koch's "slight"), or below ``LOW_PERCENT`` (0.5) for percent agreement;
- "agreement with others": the assessor's pairwise values with every assessor sharing at least
  two items, averaged weighted by shared items (every assessor, computed sparse);
- the heatmap shows at most MAX_MATRIX_RATERS (40) assessors, chosen by HEATMAP_CHOICES
  (most labels by default; lowest agreement; flagged first);
- the low-agreement list: assessor pairs sharing at least LOW_PAIR_OVERLAP (10) items whose
  value is under the low threshold;
- low gold accuracy: below ``max(campaign.gold_accuracy_threshold, LOW_GOLD)`` once the
  assessor has answered at least ``campaign.gold_min_answers`` gold pairs (at least one).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agreement import (
    MIN_CI_ITEMS,
    TOO_LITTLE_OVERLAP,
    MeanPairwise,
    PairValues,
    RatingTable,
    agreement,
    binarize_table,
    mean_pairwise,
    pair_values,
)
from judging.dashboard.choices import StatChoice

FAST_SECONDS = 3.0
FAST_SHARE = 1 / 3
LOW_AGREEMENT = 0.2
LOW_PERCENT = 0.5
LOW_GOLD = 0.6
MIN_PAIR_OVERLAP = 2
MAX_MATRIX_RATERS = 40
MIN_HEATMAP_LABELS = 20  # "lowest agreement" heatmap: assessors with fewer labels say too little
LOW_PAIR_OVERLAP = 10  # the low-agreement list: pairs sharing fewer items say too little
OVERALL_BOOTSTRAP = 200  # resamples for the overall value's interval (about 0.05 s on 25,000 items)
TOPIC_BOOTSTRAP = 200  # resamples for each topic's interval
MEAN_PAIRWISE_BOOTSTRAP = 100  # mean pairwise intervals need only a standard error, which 100 resamples give
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
    ``assessors`` rows are dicts with "id", "name", "kind", "blocked". ``cannot_judge``: the
    scale's "could not judge" grades (``collections_app.scales.agreement_grades``), which
    agreement leaves out unless asked (:func:`rating_table`).
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
    cannot_judge: tuple[int, ...] = ()


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
    and the wall-clock hours at the recent throughput. Unknown seconds (NaN, imported judgments) are left out."""
    seconds = _known_seconds(np.asarray(seconds, dtype=float))
    median = float(np.median(seconds)) if seconds.size else None
    hours = None if median is None else median * remaining / 3600
    return {
        "median_seconds": median, "remaining": remaining, "active_hours": hours, "rate": rate,
        "cost": None if hours is None or rate is None else hours * rate,
        "wall_hours": remaining / recent_per_hour if recent_per_hour else None,
    }


def rating_table(data: CampaignArrays, *, binary: bool,
                 include_cannot_judge: bool = False) -> tuple[RatingTable, np.ndarray]:
    """Return the items × assessors table of labels on regular items (skips and blocked assessors left out)
    and each table row's topic index. With ``binary`` the grades collapse at the relevance threshold.

    The table is sparse (only the labels that exist) and keeps items labelled once: the
    statistics that use them (Gwet's category prevalence) see exactly what the library sees.
    Labels with a "could not judge" grade (``data.cannot_judge``) are left out, and the
    table's categories are the remaining grades, unless ``include_cannot_judge``: "I could
    not judge this page" is no opinion on its relevance, so counting it would read as
    disagreement (or, when two assessors both fail on a broken page, as agreement) about
    relevance. With every grade of the scale "could not judge" nothing is left out.
    """
    scale = tuple(data.scale)
    blocked = np.array([a["blocked"] for a in data.assessors], dtype=bool)
    keep = (data.j_grade >= 0) & ~data.is_gold[data.j_item]
    if blocked.size:
        keep &= ~blocked[data.j_assessor]
    # last label of each (item, assessor) wins, as dedupe_judgments does
    j_item, j_assessor, j_grade = data.j_item[keep], data.j_assessor[keep], data.j_grade[keep]
    order = np.lexsort((data.j_time[keep], j_assessor, j_item))
    j_item, j_assessor, j_grade = j_item[order], j_assessor[order], j_grade[order]
    last = np.ones(j_item.size, dtype=bool)
    last[:-1] = (j_item[1:] != j_item[:-1]) | (j_assessor[1:] != j_assessor[:-1])
    duplicates = int((~last).sum())
    dropped = np.isin(np.asarray(scale, dtype=float), np.asarray(data.cannot_judge, dtype=float))
    if not include_cannot_judge and dropped.any() and not dropped.all():
        # after the dedupe: an assessor whose last word was "could not judge" has no label here
        last &= ~dropped[j_grade]
        j_grade = (np.cumsum(~dropped) - 1)[j_grade]  # scale position → position among the kept grades
        scale = tuple(g for g, gone in zip(scale, dropped.tolist()) if not gone)
    items, rows = np.unique(j_item[last], return_inverse=True)
    raters, cols = np.unique(j_assessor[last], return_inverse=True)
    table = RatingTable.from_labels(items.tolist(), raters.tolist(), rows.reshape(-1), cols.reshape(-1),
                                    j_grade[last], scale, duplicates)
    if binary:
        table = binarize_table(table, threshold=data.threshold)
    return table, data.item_topic[items] if items.size else np.zeros(0, dtype=np.int64)


NO_DOUBLY = "no pair judged twice"


def group_value(table: RatingTable, rows: np.ndarray, stat: StatChoice, *, n_boot: int = 0) -> dict:
    """Return the choice's per-group statistic over the given table rows: {"value", "n_items", "reason"}.

    Exactly the library call on exactly these rows: the many-assessor statistics get every
    labelled item of the group (Fleiss' κ and Krippendorff's α use the items labelled at least
    twice, Gwet's AC1 also counts the items labelled once in its category prevalence, as
    :func:`agreement.gwet_ac` defines it); two-assessor statistics give their mean over
    assessor pairs sharing at least MIN_PAIR_OVERLAP items (Light's κ for Cohen's κ; see
    agreement.mean_pairwise). "n_items" counts the items labelled at least twice.
    With ``n_boot`` > 0 also "ci_low"/"ci_high" (95 %, seed 0), or "ci_reason" when the group
    has too little overlap for one.
    """
    sub = table.take_items(np.asarray(rows, dtype=np.int64))
    n_doubly = int((sub.labels_per_item() >= 2).sum())
    out: dict[str, float | str | None]
    if n_doubly == 0:
        out = {"value": None, "n_items": 0, "reason": NO_DOUBLY}
        return {**out, "ci_low": None, "ci_high": None, "ci_reason": None} if n_boot else out
    options = dict(stat.group)
    if "mean_pairwise" in options:
        [pairwise] = mean_pairwise(sub, statistic=options["mean_pairwise"], weights=options.get("weights"),
                                   min_overlap=MIN_PAIR_OVERLAP, n_boot=min(n_boot, MEAN_PAIRWISE_BOOTSTRAP))
        return _mean_pairwise_cell(pairwise, n_boot)
    result = agreement(sub, categories=table.categories, ci="bootstrap" if n_boot else None, n_boot=max(n_boot, 1),
                       seed=0, **options)
    out = {"value": result.value, "n_items": result.n_items,
           "reason": None if result.value is not None else result.undefined_reason}
    if n_boot:
        too_few = result.value is not None and result.n_items < MIN_CI_ITEMS
        out.update(ci_low=None if too_few else result.ci_low, ci_high=None if too_few else result.ci_high,
                   ci_reason=f"{TOO_LITTLE_OVERLAP} ({result.n_items} items judged twice)" if too_few else None)
    return out


def _mean_pairwise_cell(result: MeanPairwise, n_boot: int) -> dict:
    """Return a MeanPairwise result as a group cell (with its interval when bootstrapped)."""
    cell: dict[str, float | str | None] = {"value": result.value, "n_items": result.n_items, "reason": result.reason}
    if n_boot:
        cell.update(ci_low=result.ci_low, ci_high=result.ci_high, ci_reason=result.ci_reason)
    return cell


def per_topic(table: RatingTable, row_topic: np.ndarray, topics: Sequence[tuple[str, str]], stat: StatChoice, *,
              n_boot: int = 0) -> list[dict]:
    """Return the group statistic for every topic with at least one doubly judged pair.

    With ``n_boot`` > 0 each topic also gets a 95 % interval (seed 0), so a lead can tell a low
    value on a handful of pairs from a low value on many. Mean pairwise statistics take every
    topic in one grouped computation; the others one topic at a time.
    """
    options = dict(stat.group)
    doubly = table.labels_per_item() >= 2
    if "mean_pairwise" in options:
        present = np.unique(row_topic[doubly])
        if present.size == 0:
            return []
        index = np.full(int(row_topic.max()) + 1, -1, dtype=np.int64)
        index[present] = np.arange(present.size)
        keep = np.flatnonzero(index[row_topic] >= 0)
        results = mean_pairwise(table.take_items(keep), statistic=options["mean_pairwise"],
                                weights=options.get("weights"), groups=index[row_topic[keep]],
                                n_groups=present.size, min_overlap=MIN_PAIR_OVERLAP,
                                n_boot=min(n_boot, MEAN_PAIRWISE_BOOTSTRAP))
        return [{"qid": topics[t][0], "title": topics[t][1], **_mean_pairwise_cell(result, n_boot)}
                for t, result in zip(present.tolist(), results)]
    out = []
    order = np.argsort(row_topic, kind="stable")
    bounds = np.searchsorted(row_topic[order], np.arange(len(topics) + 1))
    for t in np.unique(row_topic[doubly]).tolist():
        cell = group_value(table, order[bounds[t]:bounds[t + 1]], stat, n_boot=n_boot)
        if cell["n_items"]:
            out.append({"qid": topics[t][0], "title": topics[t][1], **cell})
    return out


def over_time(table: RatingTable, data: CampaignArrays, stat: StatChoice) -> dict:
    """Return the group statistic over time: by UTC day when judging spans two days or more,
    else in up to MAX_TIME_BUCKETS equal groups (of at least MIN_BUCKET_ITEMS items when there
    are that many) of items in order of completion.

    An item counts when its last label arrives (the moment its agreement becomes visible); a
    day or bucket holds the items completed in it (labelled at least twice).
    """
    if not table.items:
        return {"unit": "day", "points": []}
    keep = data.j_grade >= 0
    done = np.zeros(data.item_ids.size)
    np.maximum.at(done, data.j_item[keep], data.j_time[keep])
    rows_done = done[np.asarray(table.items, dtype=np.int64)]
    doubly = table.labels_per_item() >= 2
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


def pairs(table: RatingTable, stat: StatChoice) -> PairValues:
    """Return the chosen statistic for every pair of assessors sharing an item (undefined under
    MIN_PAIR_OVERLAP shared items): the library's two-assessor value on the pair's shared items."""
    options = dict(stat.pair)
    return pair_values(table, statistic=options.pop("statistic"), min_overlap=MIN_PAIR_OVERLAP, **options)


HEATMAP_CHOICES = {
    "judgments": "the assessors with the most labels",
    "lowest": "the assessors with the lowest agreement with the others (among those with at least "
              f"{MIN_HEATMAP_LABELS} labels)",
    "flagged": "flagged assessors first (too fast, low agreement, low gold accuracy), then the most labels",
}


def heatmap_columns(table: RatingTable, agree: np.ndarray, flagged_columns: np.ndarray, *, choose: str,
                    limit: int | None = None) -> np.ndarray:
    """Return the table columns the heatmap shows (at most ``limit``, default MAX_MATRIX_RATERS, in column order) under a choice of
    HEATMAP_CHOICES; ties go to the most labels, then the first column."""
    limit = MAX_MATRIX_RATERS if limit is None else limit
    judged = np.bincount(table.label_rater, minlength=len(table.raters))
    if len(table.raters) <= limit:
        return np.arange(len(table.raters))
    if choose == "lowest":
        score = np.where((judged >= MIN_HEATMAP_LABELS) & ~np.isnan(agree), agree, np.inf)
        ranked = np.lexsort((np.arange(judged.size), -judged, score))
    elif choose == "flagged":
        ranked = np.lexsort((np.arange(judged.size), -judged, ~flagged_columns))
    else:
        ranked = np.lexsort((np.arange(judged.size), -judged))
    return np.sort(ranked[:limit])


def pair_matrix(found: PairValues, columns: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the values (NaN undefined, 1 on the diagonal) and shared-item counts (diagonal: items judged)
    of the chosen columns, from the pairs found."""
    k = columns.size
    where = np.full(judged.size, -1, dtype=np.int64)
    where[columns] = np.arange(k)
    values = np.full((k, k), np.nan)
    np.fill_diagonal(values, 1.0)
    overlaps = np.diag(judged[columns]).astype(np.int64)
    i, j = where[found.a], where[found.b]
    inside = (i >= 0) & (j >= 0)
    values[i[inside], j[inside]] = values[j[inside], i[inside]] = found.value[inside]
    overlaps[i[inside], j[inside]] = overlaps[j[inside], i[inside]] = found.n_items[inside]
    return values, overlaps


def items_counted(stat: StatChoice) -> str:
    """Say which items the chosen statistic's group value rests on (shown on the page and in the API)."""
    options = dict(stat.group)
    if "mean_pairwise" in options:
        return (f"every pair of assessors sharing at least {MIN_PAIR_OVERLAP} items of the group, on the items "
                "they share; the value is the mean over those pairs")
    if options.get("statistic") == "gwet":
        return ("items labelled at least twice for observed agreement; every labelled item for the category "
                "prevalence (as Gwet defines AC1/AC2 with missing ratings)")
    return "items labelled at least twice (an item labelled once carries no agreement)"


def low_agreement_threshold(stat: StatChoice) -> float:
    """Return the value under which agreement is flagged low for this statistic."""
    return LOW_PERCENT if stat.key == "percent" else LOW_AGREEMENT


def low_pairs(found: PairValues, stat: StatChoice) -> np.ndarray:
    """Return the indices (into ``found``) of pairs sharing at least LOW_PAIR_OVERLAP items whose value
    is under the low threshold, lowest first (a pair meeting on two items says little)."""
    low = low_agreement_threshold(stat)
    hit = np.flatnonzero((found.n_items >= LOW_PAIR_OVERLAP) & ~np.isnan(found.value) & (found.value < low))
    return hit[np.lexsort((-found.n_items[hit], found.value[hit]))]


def _known_seconds(seconds: np.ndarray) -> np.ndarray:
    """Return the active seconds that are known (imported judgments may carry none: NaN)."""
    return seconds[np.isfinite(seconds)]


def assessor_rows(data: CampaignArrays, agree: np.ndarray, stat: StatChoice, *, gold_threshold: float,
                  gold_min_answers: int, flag_speed: bool = True) -> list[dict]:
    """Return one row per assessor: counts, median seconds, label distribution, agreement, gold accuracy, flags.

    ``agree`` is each assessor's agreement with the others (NaN when none), indexed like
    ``data.assessors``. Unknown active seconds (NaN) are left out of the medians; an assessor
    with no known time is never "too fast", and with ``flag_speed`` off (imported campaigns, whose
    seconds come from another tool's clock, if at all) nobody is.
    """
    n = len(data.assessors)
    q = len(data.scale)
    labelled = data.j_grade >= 0
    counts = np.bincount(data.j_assessor[labelled], minlength=n)
    skips = np.bincount(data.j_assessor[~labelled], minlength=n)
    dist = np.bincount(data.j_assessor[labelled] * q + data.j_grade[labelled], minlength=n * q).reshape(n, q)
    on_gold = labelled & data.is_gold[data.j_item] & ~np.isnan(data.gold_grade[data.j_item])
    gold_answered = np.bincount(data.j_assessor[on_gold], minlength=n)
    hit = on_gold & (np.asarray(data.scale)[np.maximum(data.j_grade, 0)] == data.gold_grade[data.j_item])
    gold_correct = np.bincount(data.j_assessor[hit], minlength=n)
    known = _known_seconds(data.j_seconds)
    campaign_median = float(np.median(known)) if known.size else 0.0
    fast_limit = max(FAST_SECONDS, campaign_median * FAST_SHARE)
    timed = np.isfinite(data.j_seconds)
    order = np.lexsort((data.j_seconds, data.j_assessor))
    order = order[timed[order]]
    bounds = np.searchsorted(data.j_assessor[order], np.arange(n + 1))
    low = low_agreement_threshold(stat)
    gold_floor = max(gold_threshold, LOW_GOLD)
    rows = []
    for a, person in enumerate(data.assessors):
        seconds = data.j_seconds[order[bounds[a]:bounds[a + 1]]]  # sorted: the median is the middle
        median = float(np.median(seconds)) if seconds.size else None
        agreement_value = None if np.isnan(agree[a]) else float(agree[a])
        accuracy = gold_correct[a] / gold_answered[a] if gold_answered[a] else None
        flags = []
        if flag_speed and median is not None and median < fast_limit:
            flags.append("too fast")
        if agreement_value is not None and agreement_value < low:
            flags.append("low agreement")
        if accuracy is not None and gold_answered[a] >= max(gold_min_answers, 1) and accuracy < gold_floor:
            flags.append("low gold accuracy")
        if person["blocked"]:
            flags.append("blocked")
        rows.append({**person, "judgments": int(counts[a]), "skips": int(skips[a]), "median_seconds": median,
                     "distribution": [{"grade": g, "count": int(dist[a, k])} for k, g in enumerate(data.scale)],
                     "agreement": agreement_value, "gold_answered": int(gold_answered[a]),
                     "gold_correct": int(gold_correct[a]), "gold_accuracy": accuracy, "flags": flags})
    return rows
