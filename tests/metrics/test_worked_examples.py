"""Worked examples from REFERENCE.md and the lecture notes (seeds 001, 002, 003)."""

import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict


def ranking_with_hits(hits: list[int], relevant: list[str], n: int) -> dict[str, float]:
    docs = [f"n{i}" for i in range(n)]
    for pos, d in zip(hits, relevant):
        docs[pos - 1] = d
    return {d: float(n - i) for i, d in enumerate(docs)}


Q1_REL = ["d3", "d5", "d9", "d25", "d39", "d44", "d56", "d71", "d89", "d123"]
Q2_REL = ["d3", "d56", "d129"]


def seed002():
    qrels = qrels_from_dict({"q1": {d: 1 for d in Q1_REL}, "q2": {d: 1 for d in Q2_REL}})
    run = run_from_dict({"q1": ranking_with_hits([1, 3, 6, 10, 15], ["d123", "d56", "d9", "d25", "d3"], 15),
                         "q2": ranking_with_hits([3, 8, 15], ["d56", "d129", "d3"], 15)})
    return qrels, run


def test_seed002_q1_precision_and_r_precision():
    qrels, run = seed002()
    res = evaluate(qrels, run, ["P.5,10", "Rprec"]).per_topic["q1"]
    assert res["P_5"] == pytest.approx(0.4)
    assert res["P_10"] == pytest.approx(0.4)
    assert res["Rprec"] == pytest.approx(0.4)


def test_seed002_q1_interpolated_precision_at_11_recall_levels():
    qrels, run = seed002()
    res = evaluate(qrels, run, ["iprec_at_recall"]).per_topic["q1"]
    got = [round(100 * res[f"iprec_at_recall_{p / 10:3.2f}"], 1) for p in range(11)]
    assert got == [100, 100, 66.7, 50, 40, 33.3, 0, 0, 0, 0, 0]


def test_seed002_q2_interpolated_precision_follows_trec_eval_10_rounding():
    """The notes (and trec_eval 9.x) give 33.3 (0-30%), 25 (40-60%), 20 (70-100%).

    trec_eval 10.0 maps 40% of R=3 to lround(1.2) = 1 document and 70%/80% to 2, so 40%
    stays at 33.3 and 70%-80% at 25. We follow 10.0; the notes' textbook curve (recall >= r)
    is the 11-point variant in metrics.variants.
    """
    qrels, run = seed002()
    res = evaluate(qrels, run, ["iprec_at_recall"]).per_topic["q2"]
    got = [round(100 * res[f"iprec_at_recall_{p / 10:3.2f}"], 1) for p in range(11)]
    assert got == [33.3, 33.3, 33.3, 33.3, 33.3, 25, 25, 25, 25, 20, 20]


def test_seed001_average_precision_of_hits_at_1_3_5():
    qrels = qrels_from_dict({"q": {"a": 1, "b": 1, "c": 1}})
    run = run_from_dict({"q": ranking_with_hits([1, 3, 5], ["a", "b", "c"], 10)})
    assert evaluate(qrels, run, ["map"]).aggregate["map"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert round(evaluate(qrels, run, ["map"]).aggregate["map"], 2) == 0.76


def test_seed003_average_precision_with_unretrieved_relevant_documents():
    rel = [f"r{i}" for i in range(10)]
    qrels = qrels_from_dict({"q": {d: 1 for d in rel}})
    run = run_from_dict({"q": ranking_with_hits([1, 2, 5, 8], rel[:4], 10)})
    assert evaluate(qrels, run, ["map"]).aggregate["map"] == pytest.approx(0.31)


def test_seed001_gains_dcg_at_10_in_trec_eval_linear_form():
    """Gains 3,2,3,0,0,1,2,2,3,0: the notes' 9.61 uses rel_1 + Σ rel_i/log2 i (a variant);
    trec_eval's ndcg_cut discounts by log2(i+1). Both normalise by the ideal ordering."""
    gains = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    docs = [f"g{i}" for i in range(10)]
    qrels = qrels_from_dict({"q": dict(zip(docs, gains))})
    run = run_from_dict({"q": {d: 10.0 - i for i, d in enumerate(docs)}})
    import math
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gains, reverse=True)))
    assert evaluate(qrels, run, ["ndcg_cut.10"]).aggregate["ndcg_cut_10"] == pytest.approx(dcg / ideal)
    assert evaluate(qrels, run, ["dcg"]).aggregate["dcg"] == pytest.approx(dcg)
