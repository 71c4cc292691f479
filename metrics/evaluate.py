"""Score runs against qrels: per-topic values and trec_eval-style aggregates.

``evaluate`` handles one run; ``evaluate_many`` scores many runs against one qrels,
preparing the qrels once. Results convert to plain dicts, rows, CSV and JSON.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .io import Qrels, Run
from .measures.batch import make_batch, prepare_qrels
from .registry import Request, resolve

MIN_GEO_MEAN = 0.00001

__all__ = ["EvaluationResult", "evaluate", "evaluate_many", "MissingTopicsWarning"]


class MissingTopicsWarning(UserWarning):
    """Qrels topics absent from a run were skipped (pass complete=True to average them in as 0)."""


@dataclass
class EvaluationResult:
    """Per-topic and aggregate values of one run, in trec_eval's output names and order."""

    tag: str
    names: list[str]
    kinds: dict[str, str]
    per_topic: dict[str, dict[str, float | str]]
    aggregate: dict[str, float]
    missing_topics: list[str] = field(default_factory=list)
    summary_only: set[str] = field(default_factory=set)  # names trec_eval prints no per-topic line for

    def to_dict(self) -> dict:
        """Return a JSON-ready dict: tag, measure names, per_topic, aggregate, missing topics."""
        return {"runid": self.tag, "measures": list(self.names), "per_topic": self.per_topic,
                "aggregate": self.aggregate, "missing_topics": list(self.missing_topics)}

    def rows(self, *, per_topic: bool = True) -> list[tuple[str, str, str, float | str]]:
        """Return ``(runid, measure, qid|'all', value)`` rows in trec_eval order."""
        out = []
        if per_topic:
            for q, vals in self.per_topic.items():
                for n in self.names:
                    if n in vals and n not in self.summary_only:
                        out.append((self.tag, n, q, vals[n]))
        for n in self.names:
            if n in self.aggregate:
                out.append((self.tag, n, "all", self.aggregate[n]))
        return out


def _aggregate(req: Request, values: np.ndarray, n_topics: int) -> float | None:
    """Sum, mean or geometric mean of per-topic values, summed one topic after the other as trec_eval
    does (numpy's pairwise sums round differently in the last digit)."""
    agg = req.measure.aggregate
    if agg == "none":
        return None
    if agg == "sum":
        return float(sum(values.tolist()))
    if n_topics == 0:
        return 0.0
    if agg == "gmean":
        return float(math.exp(sum(np.log(np.maximum(values, MIN_GEO_MEAN)).tolist()) / n_topics))
    return float(sum(values.tolist()) / n_topics)


def evaluate(qrels: Qrels, run: Run, measures: Sequence[str] | str = ("official",), *, relevance_level: int = 1,
             complete: bool = False, max_docs: int | None = None, judged_only: bool = False,
             num_docs: int = 0, warn: bool = True) -> EvaluationResult:
    """Score one run as trec_eval 10.0 does, returning per-topic and aggregate values.

    Topics of the run absent from the qrels are ignored. Qrels topics absent from the run
    are skipped with a ``MissingTopicsWarning``, or with ``complete=True`` (trec_eval -c)
    scored as an empty ranking, i.e. averaged in as 0.

    >>> from metrics.io import qrels_from_dict, run_from_dict
    >>> q = qrels_from_dict({"1": {"a": 1, "b": 0, "c": 1}})
    >>> r = run_from_dict({"1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> res = evaluate(q, r, ["map", "P.2"])
    >>> round(res.aggregate["map"], 4), res.aggregate["P_2"]
    (0.8333, 0.5)
    """
    if isinstance(measures, str):
        measures = [measures]
    requests = resolve(measures)
    return _evaluate(prepare_qrels(qrels), qrels, run, requests, level=relevance_level, complete=complete,
                     max_docs=max_docs, judged_only=judged_only, num_docs=num_docs, warn=warn)


def evaluate_many(qrels: Qrels, runs: Iterable[Run], measures: Sequence[str] | str = ("official",),
                  **options) -> list[EvaluationResult]:
    """Score many runs against one qrels, preparing the qrels once."""
    if isinstance(measures, str):
        measures = [measures]
    requests = resolve(measures)
    prepared = prepare_qrels(qrels)
    level = options.pop("relevance_level", 1)
    return [_evaluate(prepared, qrels, r, requests, level=level, **options) for r in runs]


def _evaluate(prepared, qrels: Qrels, run: Run, requests: list[Request], *, level: int = 1,
              complete: bool = False, max_docs: int | None = None, judged_only: bool = False, num_docs: int = 0,
              warn: bool = True) -> EvaluationResult:
    qrel_topics = sorted(prepared)
    present = [q for q in qrel_topics if q in run.topics]
    missing = [q for q in qrel_topics if q not in run.topics]
    if missing and not complete and warn:
        warnings.warn(f"run {run.tag}: {len(missing)} qrels topic(s) not in the run were skipped "
                      f"(use -c / complete=True to score them as 0): {', '.join(missing[:10])}"
                      + (" …" if len(missing) > 10 else ""), MissingTopicsWarning, stacklevel=3)
    qids = qrel_topics if complete else present
    batch = make_batch(prepared, run, qids, level=level, max_docs=max_docs, judged_only=judged_only)
    batch.num_docs = num_docs
    names: list[str] = []
    summary_only: set[str] = set()
    kinds: dict[str, str] = {}
    columns: list[list] = []  # per name, the values of every topic in qids order
    aggregate: dict[str, float] = {}
    for req in requests:
        for name, vals in req.measure.func(batch, req.params):
            if req.measure.single and req.printable:
                name = f"{name}_{req.printable}"  # trec_eval appends the parameter text
            names.append(name)
            if req.measure.summary_only:
                summary_only.add(name)
            kinds[name] = req.measure.output_kind
            if req.measure.output_kind == "str":
                columns.append(list(vals))
                continue
            vals = np.asarray(vals, dtype=np.float64)
            as_int = req.measure.output_kind == "int"
            columns.append(vals.astype(np.int64).tolist() if as_int else vals.tolist())
            agg = _aggregate(req, vals, len(qids))
            if name == "num_rel" and complete:
                # trec_eval's -c summary recounts num_rel from the whole qrels: entries graded above 0, whatever -l
                agg = float(sum(int(c[1:].sum()) for c in batch.level_counts))
            if agg is not None:
                aggregate[name] = int(agg) if as_int else agg
    # one dict per topic from its row of values (a setitem per value costs twice as much)
    per_topic = {q: dict(zip(names, row)) for q, row in zip(qids, zip(*columns))} if columns else {q: {} for q in qids}
    return EvaluationResult(tag=run.tag, names=names, kinds=kinds, per_topic=per_topic, aggregate=aggregate,
                            missing_topics=[] if complete else missing, summary_only=summary_only)


def results_to_json(results: Sequence[EvaluationResult], *, per_topic: bool = True) -> str:
    """Serialise results as a JSON list of run objects."""
    import json  # here, not at the top: the trec output of the command line needs neither json nor csv
    data = []
    for r in results:
        d = r.to_dict()
        if not per_topic:
            d.pop("per_topic")
        data.append(d)
    return json.dumps(data, indent=1, sort_keys=False)


def results_to_csv(results: Sequence[EvaluationResult], *, per_topic: bool = True) -> str:
    """Serialise results as CSV with header ``runid,measure,qid,value`` (long table form)."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["runid", "measure", "qid", "value"])
    for r in results:
        for row in r.rows(per_topic=per_topic):
            w.writerow(row)
    return buf.getvalue()
