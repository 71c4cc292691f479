"""ranked_docnos and qrels_without: the building blocks of leave-one-run-out pool bias."""
from __future__ import annotations

import random

import pytest

from metrics import evaluate, qrels_from_dict, qrels_without, ranked_docnos, run_from_dict


def test_ranked_docnos_is_trec_eval_order_with_ties_by_docno_descending():
    run = run_from_dict({"1": {"da": 2.0, "dz": 2.0, "dé": 2.0, "db": 3.0, "dc": 1.0}, "2": {"x": 1.0}})
    assert ranked_docnos(run, "1") == ["db", "dé", "dz", "da", "dc"]  # UTF-8 bytes: é sorts after z
    assert ranked_docnos(run, "1", 2) == ["db", "dé"]
    assert ranked_docnos(run, "missing") == []


@pytest.mark.parametrize("seed", range(20))
def test_qrels_without_scores_as_a_qrels_built_without_those_documents(seed):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)]
    qrels = {str(q): {d: rng.choice((-1, 0, 0, 1, 2)) for d in rng.sample(docs, 25)} for q in range(4)}
    run = run_from_dict({str(q): {d: float(rng.randint(0, 9)) for d in rng.sample(docs, 30)} for q in range(4)})
    removed = {q: rng.sample(sorted(judged), rng.randint(0, 6)) for q, judged in qrels.items()}
    removed["unknown topic"] = ["d1"]
    full = qrels_from_dict(qrels)
    evaluate(full, run, ["map"])  # fills the prepared cache that qrels_without reuses
    reduced = qrels_without(full, removed)
    rebuilt = qrels_from_dict({q: {d: g for d, g in docs.items() if d not in removed[q]} for q, docs in qrels.items()})
    assert reduced.to_dict() == rebuilt.to_dict()
    measures = ["map", "ndcg_cut.10", "P.5", "bpref", "Rprec", "num_rel"]
    got, want = evaluate(reduced, run, measures), evaluate(rebuilt, run, measures)
    assert got.per_topic == want.per_topic and got.aggregate == want.aggregate
    assert evaluate(full, run, ["map"]).aggregate == evaluate(qrels_from_dict(qrels), run, ["map"]).aggregate  # unchanged
