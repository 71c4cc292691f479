"""trec_eval agreement: pytrec_eval-terrier (trec_eval 9.x core) on seeded qrels/runs.

Scores are distinct multiples of 1/8 or exact small-integer ties, so 32-bit floats in
pytrec_eval rank exactly as 64-bit doubles here. Where 10.0 differs from 9.x
(iprec_at_recall / 11pt_avg rounding), the difference is tested explicitly.
"""

import math

import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.measures.batch import make_batch, prepare_qrels
from metrics.measures.trec import _iprec_values

from ._gen import make_case
from .reference_impl import measures as reference_measures

pytrec_eval = pytest.importorskip("pytrec_eval")

COMMON = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "P", "recall",
          "infAP", "gm_bpref", "Rprec_mult", "utility", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
          "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
          "num_nonrel_judged_ret"]
CASES = [dict(seed=s, ties=s % 2 == 1, negative=s % 3 == 0) for s in range(40)]


def _legacy_cut(x: float) -> int:
    return int(x + 0.9)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"seed{c['seed']}-ties{int(c['ties'])}-neg{int(c['negative'])}")
def test_every_shared_measure_matches_pytrec_eval_per_topic(case):
    qd, rd = make_case(case["seed"], ties=case["ties"], negative=case["negative"])
    expected = pytrec_eval.RelevanceEvaluator(qd, set(COMMON)).evaluate(rd)
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), COMMON, warn=False)
    assert set(got.per_topic) == set(expected)
    compared = 0
    for q, vals in got.per_topic.items():
        for name, value in vals.items():
            if name == "num_q":
                continue
            want = expected[q][name]
            if name.startswith("gm_"):  # pytrec_eval reports log(max(x, 1e-5)) per topic
                want, value = math.exp(want), max(value, 1e-5)
            assert value == pytest.approx(want, abs=1e-9), (q, name)
            compared += 1
    assert compared > 100


@pytest.mark.parametrize("seed", range(12))
def test_graded_level_2_matches_pytrec_eval(seed):
    qd, rd = make_case(seed, ties=False)
    names = ["map", "P", "bpref", "Rprec", "recip_rank", "infAP", "set_F"]
    ev = pytrec_eval.RelevanceEvaluator(qd, set(names), relevance_level=2)
    expected = ev.evaluate(rd)
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), names, relevance_level=2, warn=False)
    for q, vals in got.per_topic.items():
        for name, value in vals.items():
            if name != "num_q":
                assert value == pytest.approx(expected[q][name], abs=1e-9), (q, name)


@pytest.mark.parametrize("seed", range(20))
def test_iprec_at_recall_with_9x_rounding_matches_pytrec_eval(seed):
    """pytrec_eval embeds trec_eval 9.x: cutoff (long)(pct*R + 0.9). Same code path, other rounding."""
    qd, rd = make_case(seed, ties=seed % 2 == 0)
    expected = pytrec_eval.RelevanceEvaluator(qd, {"iprec_at_recall"}).evaluate(rd)
    prepared = prepare_qrels(qrels_from_dict(qd))
    run = run_from_dict(rd)
    qids = sorted(q for q in prepared if q in run.topics)
    batch = make_batch(prepared, run, qids)
    points = [i / 10 for i in range(11)]
    vals = _iprec_values(batch, points, cutoff=_legacy_cut)
    for t, q in enumerate(qids):
        for p, v in zip(points, vals):
            assert v[t] == pytest.approx(expected[q][f"iprec_at_recall_{p:3.2f}"], abs=1e-12)


def test_iprec_at_recall_uses_trec_eval_10_lround_not_9x():
    """R = 3, hits at 3, 8, 15: 10.0 uses lround(0.4*3) = 1 doc; 9.x used (long)(1.2+0.9) = 2."""
    qd = {"q2": {"d3": 1, "d56": 1, "d129": 1}}
    docs = [f"x{i}" for i in range(15)]
    docs[2], docs[7], docs[14] = "d3", "d56", "d129"
    rd = {"q2": {d: 100.0 - i for i, d in enumerate(docs)}}
    ours = evaluate(qrels_from_dict(qd), run_from_dict(rd), ["iprec_at_recall"]).aggregate
    old = pytrec_eval.RelevanceEvaluator(qd, {"iprec_at_recall"}).evaluate(rd)["q2"]
    assert ours["iprec_at_recall_0.40"] == pytest.approx(1 / 3)
    assert old["iprec_at_recall_0.40"] == pytest.approx(0.25)
    assert ours["iprec_at_recall_0.80"] == pytest.approx(0.25)
    assert old["iprec_at_recall_0.80"] == pytest.approx(0.2)


@pytest.mark.parametrize("seed", range(25))
def test_vectorised_path_matches_plain_reference(seed):
    qd, rd = make_case(seed, ties=seed % 2 == 0, negative=seed % 4 == 0)
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), ["map", "recip_rank", "P.5,10,20", "recall.5,10,20",
                                                           "ndcg_cut.5,10,20", "Rprec", "bpref"], warn=False)
    for q, vals in got.per_topic.items():
        ref = reference_measures(qd[q], rd[q])
        for name, want in ref.items():
            assert vals[name] == pytest.approx(want, abs=1e-12), (q, name)
