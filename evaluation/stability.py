"""Ranking stability: would other qrels (another version, another assessor) rank the systems differently?

Each qrels scores every run; the systems are ranked by one measure's mean under each, and the two
rankings are compared with Kendall's τ-b, Yilmaz et al.'s τ_AP (ties broken by name, the first
qrels as truth) and the list of swapped pairs (systems whose order flips).
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from evaluation.leaderboard import score_runs, system_scores
from judging.models import Assessor, Campaign, Judgment
from metrics import Qrels, qrels_from_dict
from metrics import Run as MetricsRun
from metrics.correlation import kendall_tau_b, tau_ap

MAX_ASSESSOR_PAIRS = 10


@dataclass
class Comparison:
    """Two system rankings of the same runs and how far they agree."""

    label_a: str
    label_b: str
    scores_a: dict[str, float]
    scores_b: dict[str, float]
    tau: float | None
    tau_ap: float | None
    swapped: list[tuple[str, str]] = field(default_factory=list)
    n_items: int | None = None
    n_topics: int | None = None
    note: str = ""


def swapped_pairs(a: Mapping[str, float], b: Mapping[str, float]) -> list[tuple[str, str]]:
    """Return pairs ``(x, y)`` that ``a`` puts strictly above each other in one order and ``b`` strictly in the other.

    Each pair is listed with the system ``a`` ranks higher first; pairs tied in either ranking are not swaps.

    >>> swapped_pairs({"x": 3, "y": 2, "z": 1}, {"x": 2, "y": 3, "z": 1})
    [('x', 'y')]
    """
    out = []
    for x, y in itertools.combinations(sorted(a), 2):
        da, db = a[x] - a[y], b[x] - b[y]
        if da * db < 0:
            out.append((x, y) if da > 0 else (y, x))
    return sorted(out, key=lambda p: (-a[p[0]], p))


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def compare_rankings(label_a: str, scores_a: dict[str, float], label_b: str, scores_b: dict[str, float]) -> Comparison:
    """Compare two system rankings (τ undefined with fewer than two systems or one level ranking)."""
    if len(scores_a) < 2:
        return Comparison(label_a, label_b, scores_a, scores_b, None, None, note="fewer than two runs")
    tau = _finite(kendall_tau_b(scores_a, scores_b))
    ap = _finite(tau_ap(scores_a, scores_b, ties="name"))
    note = "" if tau is not None else "one ranking puts every run level"
    return Comparison(label_a, label_b, scores_a, scores_b, tau, ap, swapped_pairs(scores_a, scores_b), note=note)


def stability_between(qrels_a: Qrels, qrels_b: Qrels, runs: Sequence[MetricsRun], *, measure: str, request: str,
                      relevance_level: int, label_a: str, label_b: str) -> Comparison:
    """Rank the runs by ``measure`` under each qrels and compare the two rankings."""
    a = system_scores(score_runs(qrels_a, runs, relevance_level=relevance_level, measures=[request]), measure)
    b = system_scores(score_runs(qrels_b, runs, relevance_level=relevance_level, measures=[request]), measure)
    return compare_rankings(label_a, a, label_b, b)


def assessor_qrels(campaign: Campaign) -> tuple[dict[int, str], dict[int, dict[tuple[str, str], int]]]:
    """Return assessor names and each assessor's labels ``{(qid, docno): grade}`` on regular items (one query each).

    Skips and blocked assessors are left out, as in the freeze rules.
    """
    names = {a.pk: str(a) for a in Assessor.objects.filter(campaign=campaign).select_related("user")}
    labels: dict[int, dict[tuple[str, str], int]] = defaultdict(dict)
    rows = Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, skipped=False,
                                   assessor__blocked=False).values_list(
        "assessor_id", "item__pair__topic__qid", "item__pair__docno", "grade")
    for assessor_id, qid, docno, grade in rows.iterator(chunk_size=20_000):
        labels[assessor_id][(qid, docno)] = cast(int, grade)  # not skipped, so graded (a check constraint)
    return names, dict(labels)


def _as_qrels(labels: Mapping[tuple[str, str], int], keys: set[tuple[str, str]], name: str) -> Qrels:
    data: dict[str, dict[str, int]] = {}
    for key in keys:
        data.setdefault(key[0], {})[key[1]] = labels[key]
    return qrels_from_dict(data, name=name)


def stability_by_assessors(campaign: Campaign, runs: Sequence[MetricsRun], *, measure: str, request: str,
                           relevance_level: int, max_pairs: int = MAX_ASSESSOR_PAIRS) -> list[Comparison]:
    """For each pair of assessors who judged the same items, rank the runs under each one's labels on those items.

    Only the items both judged enter either qrels, so the two qrels differ only where the assessors disagree.
    The ``max_pairs`` pairs with the largest overlap are compared (ties by assessor names).
    """
    names, labels = assessor_qrels(campaign)
    pairs = []
    for a, b in itertools.combinations(sorted(labels), 2):
        common = set(labels[a]) & set(labels[b])
        if common:
            pairs.append((len(common), names[a], names[b], a, b, common))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    out = []
    for n_items, name_a, name_b, a, b, common in pairs[:max_pairs]:
        comparison = stability_between(_as_qrels(labels[a], common, name_a), _as_qrels(labels[b], common, name_b), runs,
                                       measure=measure, request=request, relevance_level=relevance_level,
                                       label_a=name_a, label_b=name_b)
        comparison.n_items = n_items
        comparison.n_topics = len({q for q, _ in common})
        out.append(comparison)
    return out
