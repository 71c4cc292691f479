"""Pool bias: how much does each run (or group of runs) owe to the relevant documents only it found?

For each run, its *unique relevant* documents are the qrels documents at or above the relevance
threshold that it retrieved within the top ``depth`` and that no other run (leave-one-run-out) or no
run of another group (leave-one-group-out) retrieved within the same depth. Those documents are
*removed* from the qrels (they become unjudged, as if the pool had been built without the run),
the run is scored again, and its MAP and nDCG@10 are compared with the full-qrels scores. The rank
change puts the reduced score among the other runs' full-qrels scores (Zobel 1998's method).
Only relevant documents are removed; non-relevant unique documents stay judged (they do not change
MAP or nDCG, only bpref and judged@k).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from metrics import Run as MetricsRun
from metrics import qrels_from_dict, qrels_without, ranked_docnos

from .leaderboard import score_runs

MEASURES = (("map", "map"), ("ndcg_cut.10", "ndcg_cut_10"))


@dataclass
class BiasRow:
    """One run's unique relevant documents and its scores with and without them."""

    tag: str
    group: str
    unique_relevant: int
    unique_by_topic: dict[str, list[str]]
    full: dict[str, float]
    reduced: dict[str, float]
    rank_full: int
    rank_reduced: int

    @property
    def difference(self) -> dict[str, float]:
        return {n: self.reduced[n] - self.full[n] for n in self.full}

    @property
    def rank_change(self) -> int:
        """Places lost (positive) or gained (negative) on MAP when the run's unique relevant documents are removed."""
        return self.rank_reduced - self.rank_full


def top_docs(runs: Sequence[MetricsRun], depth: int) -> dict[str, dict[str, set[str]]]:
    """Return ``{tag: {qid: set of docnos ranked in the top depth}}`` in trec_eval's ranking order."""
    return {run.tag: {qid: set(ranked_docnos(run, qid, depth)) for qid in run.qids} for run in runs}


def unique_relevant(qrels_dict: Mapping[str, Mapping[str, int]], tops: Mapping[str, Mapping[str, set[str]]],
                    groups: Mapping[str, str], *, relevance_level: int) -> dict[str, dict[str, list[str]]]:
    """Return ``{tag: {qid: [docnos]}}``: relevant documents in ``tops`` retrieved by the run's group only.

    With every run in its own group this is leave-one-run-out. Otherwise it is leave-one-group-out:
    a pool built without the group would miss every relevant document only the group found, so each
    run of the group gets all of them (found by the run itself or by a sibling).
    """
    finders: dict[tuple[str, str], set[str]] = defaultdict(set)
    group_docs: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tag, topics in tops.items():
        for qid, docs in topics.items():
            relevant = qrels_dict.get(qid, {})
            for docno in docs:
                if docno in relevant and relevant[docno] >= relevance_level:
                    finders[(qid, docno)].add(groups[tag])
                    group_docs[groups[tag]][qid].add(docno)
    out: dict[str, dict[str, list[str]]] = {}
    for tag in tops:
        group = groups[tag]
        out[tag] = {}
        for qid, docs in group_docs[group].items():
            mine = sorted(d for d in docs if finders[(qid, d)] == {group})
            if mine:
                out[tag][qid] = mine
    return out


def _rank(value: float, others: Sequence[float]) -> int:
    """1 + the number of other runs strictly better (ties share the better rank)."""
    return 1 + sum(1 for o in others if o > value)


def pool_bias(qrels_dict: Mapping[str, Mapping[str, int]], runs: Sequence[MetricsRun], *, relevance_level: int,
              depth: int, groups: Mapping[str, str] | None = None) -> list[BiasRow]:
    """Return one BiasRow per run, sorted by the MAP lost (largest first), then by tag.

    ``groups`` maps tag → group; None means leave-one-run-out (each run its own group).
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    groups = dict(groups) if groups is not None else {r.tag: r.tag for r in runs}
    qrels = qrels_from_dict(qrels_dict)
    requests = [req for req, _ in MEASURES]
    full = {r.tag: {n: float(r.aggregate.get(n, 0.0)) for _, n in MEASURES}
            for r in score_runs(qrels, runs, relevance_level=relevance_level, measures=requests)}
    unique = unique_relevant(qrels_dict, top_docs(runs, depth), groups, relevance_level=relevance_level)
    rows = []
    for run in runs:
        removed = unique[run.tag]
        if removed:
            reduced_qrels = qrels_without(qrels, removed)
            (result,) = score_runs(reduced_qrels, [run], relevance_level=relevance_level, measures=requests)
            reduced = {n: float(result.aggregate.get(n, 0.0)) for _, n in MEASURES}
        else:
            reduced = dict(full[run.tag])
        others = [full[t]["map"] for t in full if t != run.tag]
        rows.append(BiasRow(run.tag, groups[run.tag], sum(len(v) for v in removed.values()), removed, full[run.tag],
                            reduced, _rank(full[run.tag]["map"], others), _rank(reduced["map"], others)))
    rows.sort(key=lambda r: (r.difference["map"], r.tag))
    return rows
