"""Leaderboard and per-topic scores of a collection's runs against one qrels."""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from metrics import EvaluationResult, MissingTopicsWarning, Qrels, evaluate_many
from metrics import Run as MetricsRun

# (trec_eval request, output name, column heading)
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("map", "map", "MAP"),
    ("ndcg_cut.10", "ndcg_cut_10", "nDCG@10"),
    ("P.10", "P_10", "P@10"),
    ("Rprec", "Rprec", "R-prec"),
    ("bpref", "bpref", "bpref"),
    ("judged.10", "judged_10", "judged@10"),
)
MEASURE_NAMES = tuple(name for _, name, _ in COLUMNS)
REQUESTS = tuple(req for req, _, _ in COLUMNS)
CURVE_NAMES = tuple(f"iprec_at_recall_{x / 10:.2f}" for x in range(11))
# output name → request text, for the measure choosers of significance, stability and the command
NAME_TO_REQUEST = {name: req for req, name, _ in COLUMNS}


@dataclass
class Row:
    """One run on the leaderboard: its scores by output name and its rank under the sort measure."""

    tag: str
    scores: dict[str, float]
    num_topics: int
    rank: int = 0


def score_runs(qrels: Qrels, runs: Sequence[MetricsRun], *, relevance_level: int,
               measures: Sequence[str] = REQUESTS + ("iprec_at_recall",)) -> list[EvaluationResult]:
    """Score every run on the qrels topics it retrieved for (trec_eval's default, no -c)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        return evaluate_many(qrels, runs, list(measures), relevance_level=relevance_level)


def leaderboard_rows(results: Sequence[EvaluationResult], *, sort: str = "map", descending: bool = True) -> list[Row]:
    """Return leaderboard rows sorted by one measure (ties by tag), ranked 1.. in that order."""
    if sort not in MEASURE_NAMES:
        sort = "map"
    rows = [Row(r.tag, {n: float(r.aggregate.get(n, 0.0)) for n in MEASURE_NAMES + CURVE_NAMES if n in r.aggregate},
                len(r.per_topic)) for r in results]
    rows.sort(key=lambda row: row.tag)
    rows.sort(key=lambda row: row.scores.get(sort, 0.0), reverse=descending)
    for i, row in enumerate(rows, 1):
        row.rank = i
    return rows


def system_scores(results: Sequence[EvaluationResult], measure: str) -> dict[str, float]:
    """Return ``{tag: aggregate value}`` of one measure."""
    return {r.tag: float(r.aggregate.get(measure, 0.0)) for r in results}


def per_topic(result: EvaluationResult) -> list[dict]:
    """Return one run's per-topic values of the leaderboard measures, in qid order as metrics yields them."""
    return [{"qid": qid, "scores": {n: float(vals[n]) for n in MEASURE_NAMES if n in vals}}
            for qid, vals in result.per_topic.items()]
