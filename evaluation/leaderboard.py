"""Leaderboard and per-topic scores of a collection's runs against one qrels."""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluation.estimates import ESTIMATE_NAMES, RunEstimate
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
# ir_measures names of the leaderboard measures, accepted wherever a measure is chosen (metrics.aliases
# maps each to the same measure; judged@10 divides by 10, which no ir_measures name does)
IR_MEASURES_NAMES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "Rprec": "Rprec", "Bpref": "bpref"}


def measure_name(measure: str) -> str | None:
    """Return the leaderboard output name of ``measure`` given by that name or its ir_measures name, else None."""
    if measure in NAME_TO_REQUEST:
        return measure
    return IR_MEASURES_NAMES.get(measure)


@dataclass
class Row:
    """One run on the leaderboard: its scores by output name and its rank under the sort measure."""

    tag: str
    scores: dict[str, float]
    num_topics: int
    rank: int = 0
    estimate_topics: int | None = None  # topics the sampled-pool estimates average over; None without them


def score_runs(qrels: Qrels, runs: Sequence[MetricsRun], *, relevance_level: int,
               measures: Sequence[str] = REQUESTS + ("iprec_at_recall",)) -> list[EvaluationResult]:
    """Score every run on the qrels topics it retrieved for (trec_eval's default, no -c)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        return evaluate_many(qrels, runs, list(measures), relevance_level=relevance_level)


def sort_measure(sort: str | None, *, estimated: bool) -> str:
    """Return the measure to sort by: ``sort`` if the board has it, else xinfAP with estimates, else MAP."""
    if sort in MEASURE_NAMES or (estimated and sort in ESTIMATE_NAMES):
        return sort
    return "xinfAP" if estimated and not sort else "map"


def leaderboard_rows(results: Sequence[EvaluationResult], *, sort: str | None = "map", descending: bool = True,
                     estimates: Mapping[str, RunEstimate] | None = None) -> list[Row]:
    """Return leaderboard rows sorted by one measure (ties by tag), ranked 1.. in that order.

    With ``estimates`` (a sampled campaign's) each row also holds infAP, xinfAP and infNDCG_cut_10,
    which can be sorted by too.
    """
    sort = sort_measure(sort, estimated=estimates is not None)
    rows = [Row(r.tag, {n: float(r.aggregate.get(n, 0.0)) for n in MEASURE_NAMES + CURVE_NAMES if n in r.aggregate},
                len(r.per_topic)) for r in results]
    if estimates is not None:
        for row in rows:
            estimate = estimates.get(row.tag)
            row.scores.update(estimate.scores if estimate else dict.fromkeys(ESTIMATE_NAMES, 0.0))
            row.estimate_topics = estimate.num_topics if estimate else 0
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
