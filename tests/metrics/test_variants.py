"""Lecture-note variants (metrics.measures.variants, metrics.curves): the seeds' worked examples
with their known answers, hand-derived cases, and a plain-Python reference on generated cases.
"""

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.curves import gain_vectors, pr_curve_11pt, rprec_histogram
from metrics.registry import ALL_TREC, registry, resolve

from ._gen import make_case


def ranked(docs):
    """Run scores that rank ``docs`` in the given order."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def with_hits(hits, n):
    docs = [f"n{i:02d}" for i in range(n)]
    for pos, d in hits:
        docs[pos - 1] = d
    return ranked(docs)


def rn_case(pattern, n_relevant):
    """Seed 000's exercises: a string of R/N, plus unretrieved relevant docs up to n_relevant."""
    docs = [f"{c}{i}" for i, c in enumerate(pattern)]
    rel = {d: 1 for d in docs if d[0] == "R"}
    for i in range(n_relevant - len(rel)):
        rel[f"U{i}"] = 1
    return qrels_from_dict({"q": rel}), run_from_dict({"q": ranked(docs)})


# ------------------------------------------------------------------ seed 002: graded example
Q1 = {"d3": 3, "d5": 3, "d9": 3, "d25": 2, "d39": 2, "d44": 2, "d56": 1, "d71": 1, "d89": 1, "d123": 1}
Q2 = {"d3": 3, "d56": 2, "d129": 1}


def seed002_graded():
    qrels = qrels_from_dict({"q1": Q1, "q2": Q2})
    run = run_from_dict({"q1": with_hits([(1, "d123"), (3, "d56"), (6, "d9"), (10, "d25"), (15, "d3")], 15),
                         "q2": with_hits([(3, "d56"), (8, "d129"), (15, "d3")], 15)})
    return qrels, run


def test_seed002_gain_vectors_per_topic():
    """G1 = (1,0,1,0,0,3,0,0,0,2,0,0,0,0,3), G2 = (0,0,2,0,0,0,0,1,0,0,0,0,0,0,3): the notes'
    CG, DCG (rel_1 + Σ rel_i/log2 i), ICG and IDCG vectors, printed there to one decimal."""
    gv = gain_vectors(*seed002_graded())
    v1, v2 = gv.per_topic["q1"], gv.per_topic["q2"]
    assert gv.depth == 15
    assert v1["cg"].tolist() == [1, 1, 2, 2, 2, 5, 5, 5, 5, 7, 7, 7, 7, 7, 10]
    assert v2["cg"].tolist() == [0, 0, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 6]
    assert np.round(v1["dcg"], 1).tolist() == [1.0, 1.0, 1.6, 1.6, 1.6, 2.8, 2.8, 2.8, 2.8, 3.4, 3.4, 3.4, 3.4, 3.4,
                                               4.2]
    assert np.round(v2["dcg"], 1).tolist() == [0.0, 0.0, 1.3, 1.3, 1.3, 1.3, 1.3, 1.6, 1.6, 1.6, 1.6, 1.6, 1.6, 1.6,
                                               2.4]
    assert v1["icg"].tolist() == [3, 6, 9, 11, 13, 15, 16, 17, 18, 19, 19, 19, 19, 19, 19]
    assert v2["icg"].tolist() == [3, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]
    assert np.round(v1["idcg"], 1).tolist() == [3.0, 6.0, 7.9, 8.9, 9.8, 10.5, 10.9, 11.2, 11.5, 11.8, 11.8, 11.8,
                                                11.8, 11.8, 11.8]
    assert np.round(v2["idcg"], 1).tolist() == [3.0, 5.0] + [5.6] * 13
    # exact value behind the notes' 1.6 at rank 3: 1 + 0/log2 2 + 1/log2 3
    assert v1["dcg"][2] == pytest.approx(1 + 1 / math.log2(3))


def test_seed002_gain_vectors_averaged():
    """Averages over q1, q2 as tabulated in the notes. The notes average their one-decimal
    per-topic DCG values and round half up (DCG[6] = (2.8 + 1.3)/2 = 2.05 -> 2.1; exactly 2.027),
    which reproduces their row exactly; the exact means are within 0.075 of it. NCG and NDCG
    are the ratio of the averaged curves (NCG[15] = 8.0/12.5 = 0.64)."""
    gv = gain_vectors(*seed002_graded())
    m = gv.mean
    assert m["cg"].tolist() == [0.5, 0.5, 2.0, 2.0, 2.0, 3.5, 3.5, 4.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 8.0]
    assert m["icg"].tolist() == [3.0, 5.5, 7.5, 8.5, 9.5, 10.5, 11.0, 11.5, 12.0, 12.5, 12.5, 12.5, 12.5, 12.5, 12.5]
    notes_dcg = [0.5, 0.5, 1.5, 1.5, 1.5, 2.1, 2.1, 2.2, 2.2, 2.5, 2.5, 2.5, 2.5, 2.5, 3.3]
    assert m["dcg"] == pytest.approx(notes_dcg, abs=0.075)
    d1, d2 = (np.round(gv.per_topic[q]["dcg"], 1) for q in ("q1", "q2"))
    half_up = [float(Decimal(str(round((a + b) / 2, 2))).quantize(Decimal("0.1"), ROUND_HALF_UP)) for a, b in zip(d1, d2)]
    assert half_up == notes_dcg
    notes_idcg = [3.0, 5.5, 6.8, 7.3, 7.7, 8.1, 8.3, 8.4, 8.6, 8.7, 8.7, 8.7, 8.7, 8.7, 8.7]
    assert np.round(m["idcg"], 1).tolist() == notes_idcg
    notes_ncg = [0.17, 0.09, 0.27, 0.24, 0.21, 0.33, 0.32, 0.35, 0.33, 0.40, 0.40, 0.40, 0.40, 0.40, 0.64]
    assert np.round(m["ncg"], 2).tolist() == notes_ncg
    notes_ndcg = [0.17, 0.09, 0.21, 0.20, 0.19, 0.25, 0.25, 0.26, 0.26, 0.29, 0.29, 0.29, 0.29, 0.29, 0.38]
    assert m["ndcg"] == pytest.approx(notes_ndcg, abs=0.011)  # 0.3734 vs the notes' 3.3/8.7 = 0.379
    # the usual nDCG averaging (mean of per-topic ratios) differs: rank 15 -> (4.16/11.83 + 2.36/5.63)/2
    assert m["mean_ndcg"][14] == pytest.approx((gv.per_topic["q1"]["ndcg"][14] + gv.per_topic["q2"]["ndcg"][14]) / 2)
    assert m["mean_ndcg"][14] == pytest.approx(0.39, abs=0.005)


def test_gain_vectors_options_and_short_rankings():
    """Depth beyond the ranking carries the last value; exponential gain 2^g-1; trec_eval's discount."""
    q = qrels_from_dict({"q": {"a": 3, "b": 1, "c": 2}})
    r = run_from_dict({"q": ranked(["b", "a"])})
    gv = gain_vectors(q, r, depth=4)
    assert gv.per_topic["q"]["cg"].tolist() == [1, 4, 4, 4]
    assert gv.per_topic["q"]["icg"].tolist() == [3, 5, 6, 6]
    ex = gain_vectors(q, r, depth=2, gain="exponential", discount="log2i1")
    assert ex.per_topic["q"]["dcg"].tolist() == pytest.approx([1.0, 1.0 + 7 / math.log2(3)])
    assert ex.per_topic["q"]["idcg"].tolist() == pytest.approx([7.0, 7.0 + 3 / math.log2(3)])
    # trec_eval's ndcg_cut_2 equals the linear/log2i1 NDCG vector at rank 2
    lin = gain_vectors(q, r, depth=2, discount="log2i1")
    assert lin.per_topic["q"]["ndcg"][1] == pytest.approx(evaluate(q, r, ["ndcg_cut.2"]).aggregate["ndcg_cut_2"])
    with pytest.raises(ValueError):
        gain_vectors(q, r, gain="square")
    with pytest.raises(ValueError):
        gain_vectors(q, r, depth=0)


def test_scalar_gain_entries_equal_the_vectors():
    qrels, run = seed002_graded()
    res = evaluate(qrels, run, ["cg_cut.3,15", "ncg_cut.15", "dcg_log2i_cut.3,15", "idcg_log2i_cut.15",
                                "ndcg_log2i_cut.15"])
    gv = gain_vectors(qrels, run)
    for q in ("q1", "q2"):
        v, r = gv.per_topic[q], res.per_topic[q]
        assert r["cg_cut_3"] == v["cg"][2] and r["cg_cut_15"] == v["cg"][14]
        assert r["ncg_cut_15"] == pytest.approx(v["ncg"][14])
        assert r["dcg_log2i_cut_3"] == pytest.approx(v["dcg"][2])
        assert r["dcg_log2i_cut_15"] == pytest.approx(v["dcg"][14])
        assert r["idcg_log2i_cut_15"] == pytest.approx(v["idcg"][14])
        assert r["ndcg_log2i_cut_15"] == pytest.approx(v["ndcg"][14])
    want = 1 + 1 / math.log2(3) + 3 / math.log2(6) + 2 / math.log2(10) + 3 / math.log2(15)  # G1's hits
    assert res.per_topic["q1"]["dcg_log2i_cut_15"] == pytest.approx(want)


def test_seed001_dcg_at_10_is_9_61():
    """Gains 3,2,3,0,0,1,2,2,3,0: 3 + 2/1 + 3/log2 3 + 1/log2 6 + 2/log2 7 + 2/3 + 3/log2 9 = 9.61."""
    gains = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    docs = [f"g{i}" for i in range(10)]
    res = evaluate(qrels_from_dict({"q": dict(zip(docs, gains))}), run_from_dict({"q": ranked(docs)}),
                   ["dcg_log2i_cut.10", "ndcg_log2i_cut.10"])
    assert round(res.aggregate["dcg_log2i_cut_10"], 2) == 9.61
    ideal = 3 + 3 + 3 / math.log2(3) + 2 / 2 + 2 / math.log2(5) + 2 / math.log2(6) + 1 / math.log2(7)
    assert res.aggregate["ndcg_log2i_cut_10"] == pytest.approx(res.aggregate["dcg_log2i_cut_10"] / ideal)


def test_seed004_ndcg_of_rf2_is_0_9203():
    """Ground truth gains (2,2,1,0); RF2 ranks them (2,1,2,0): DCG 2+1+2/log2 3 = 4.262,
    IDCG 2+2+1/log2 3 = 4.631, NDCG = 0.9203; the ground-truth order itself scores 1."""
    qrels = qrels_from_dict({"q": {"a": 2, "b": 2, "c": 1, "d": 0}})
    rf2 = evaluate(qrels, run_from_dict({"q": ranked(["a", "c", "b", "d"])}), ["ndcg_log2i_cut.4"])
    assert round(rf2.aggregate["ndcg_log2i_cut_4"], 4) == 0.9203
    gt = evaluate(qrels, run_from_dict({"q": ranked(["a", "b", "c", "d"])}), ["ndcg_log2i_cut.4"])
    assert gt.aggregate["ndcg_log2i_cut_4"] == 1.0


def test_ndcg_exp_cut_by_hand():
    """Seed 000's nDCG@K: gain 2^rel - 1, discount log2(i+1). Ranking a(2), x(unjudged), d(3);
    judged grades 3, 2, 1, 0. DCG@3 = 3/1 + 0 + 7/2 = 6.5; IDCG@3 = 7 + 3/log2 3 + 1/2."""
    q = qrels_from_dict({"q": {"a": 2, "b": 1, "c": 0, "d": 3}})
    res = evaluate(q, run_from_dict({"q": ranked(["a", "x", "d"])}), ["ndcg_exp_cut.3", "ndcg_cut.3"])
    assert res.aggregate["ndcg_exp_cut_3"] == pytest.approx(6.5 / (7 + 3 / math.log2(3) + 0.5))
    # trec_eval's ndcg_cut (linear gain) differs: (2 + 3/2) / (3 + 2/log2 3 + 1/2)
    assert res.aggregate["ndcg_cut_3"] == pytest.approx(3.5 / (3.5 + 2 / math.log2(3)))


# ------------------------------------------------------------------ seed 000 exercises (binary)
def test_seed000_exercise_8_1():
    """20 retrieved, R at 1, 2, 9, 10, 12, 16; 8 relevant in the collection.

    a) P@20 = 6/20 = 0.3  b) F@20 = 2·0.3·0.75/(0.3+0.75) = 3/7  h) MRR@20 = 1 (rank 1 relevant)
    e) AP over 8 relevant = (1 + 1 + 3/9 + 4/10 + 5/12 + 6/16)/8
    f) best case of the remaining 2 relevant at ranks 21, 22: + 7/21 + 8/22.
    recall@20 over min(8, 20) = 6/8; recall@5 over min(8, 5) = 2/5.
    """
    qrels, run = rn_case("RRNNNNNNRRNRNNNRNNNN", 8)
    res = evaluate(qrels, run, ["P.20", "F_cut.20", "recip_rank_cut.20", "map", "recall_capped.5,20", "E_cut.20"])
    a = res.aggregate
    assert a["P_20"] == pytest.approx(0.3)
    assert a["F_cut_20"] == pytest.approx(3 / 7)
    assert a["E_cut_20"] == pytest.approx(4 / 7)
    assert a["recip_rank_cut_20"] == 1.0
    ap = (1 + 1 + 3 / 9 + 4 / 10 + 5 / 12 + 6 / 16) / 8
    assert a["map"] == pytest.approx(ap)
    assert a["recall_capped_20"] == pytest.approx(6 / 8)
    assert a["recall_capped_5"] == pytest.approx(2 / 5)
    best, _ = rn_case("RRNNNNNNRRNRNNNRNNNNRR", 8)
    best_run = run_from_dict({"q": ranked([f"{c}{i}" for i, c in enumerate("RRNNNNNNRRNRNNNRNNNNRR")])})
    assert evaluate(best, best_run, ["map"]).aggregate["map"] == pytest.approx(ap + (7 / 21 + 8 / 22) / 8)


def test_seed000_exercise_8_2_f_measure_is_0_6():
    """RNNRR with 5 relevant in the collection: P@5 = 3/5, R@5 = 3/5, F = 0.6 (also on the set)."""
    qrels, run = rn_case("RNNRR", 5)
    a = evaluate(qrels, run, ["F_cut.5", "set_F", "E_set", "recall_capped.5"]).aggregate
    assert a["F_cut_5"] == pytest.approx(0.6)
    assert a["set_F"] == pytest.approx(0.6)
    assert a["E_set"] == pytest.approx(0.4)
    assert a["recall_capped_5"] == pytest.approx(0.6)


def test_e_measure_limits_follow_seed002():
    """E(j) = 1 - (1+b²)/(b²/r + 1/P): b = 0 gives 1 - P; a large b tends to 1 - r; b = 1 is 1 - F."""
    qrels, run = rn_case("RNRNNNNNNN", 4)  # P@10 = 0.2, r@10 = 0.5
    a = evaluate(qrels, run, ["E_cut.10=0,10=1,10=1000", "F_cut.10"]).aggregate
    assert a["E_cut_10_beta0"] == pytest.approx(0.8)
    assert a["E_cut_10_beta1000"] == pytest.approx(0.5, abs=1e-5)
    assert a["E_cut_10"] == pytest.approx(1 - a["F_cut_10"])
    p, r, b = 0.2, 0.5, 2.0
    a2 = evaluate(qrels, run, ["E_cut.10=2"]).aggregate
    assert a2["E_cut_10_beta2"] == pytest.approx(1 - (1 + b * b) / (b * b / r + 1 / p))


def test_recip_rank_cut_threshold():
    """First relevant at rank 3: RR = 1/3 when S_h >= 3, 0 when S_h < 3 (seed 002's MRR with S_h)."""
    q = qrels_from_dict({"q": {"c": 1}, "z": {"m": 1}})
    r = run_from_dict({"q": ranked(["a", "b", "c"]), "z": ranked(["y"])})
    res = evaluate(q, r, ["recip_rank_cut.2,3,10", "recip_rank"])
    assert res.per_topic["q"]["recip_rank_cut_2"] == 0.0
    assert res.per_topic["q"]["recip_rank_cut_3"] == pytest.approx(1 / 3)
    assert res.per_topic["q"]["recip_rank_cut_10"] == res.per_topic["q"]["recip_rank"]
    assert res.aggregate["recip_rank_cut_3"] == pytest.approx(1 / 6)  # MRR over both topics


def test_recall_capped_vs_trec_recall():
    """R = 10 relevant, all 5 retrieved documents relevant: recall_5 = 0.5 but recall_capped_5 = 1."""
    rel = {f"r{i}": 1 for i in range(10)}
    res = evaluate(qrels_from_dict({"q": rel}), run_from_dict({"q": ranked(list(rel)[:5])}),
                   ["recall.5", "recall_capped.5", "relative_P.5"]).aggregate
    assert (res["recall_5"], res["recall_capped_5"], res["relative_P_5"]) == (0.5, 1.0, 1.0)


# ------------------------------------------------------------------ 11-point curves and histograms
def seed002_binary():
    qrels = qrels_from_dict({"q1": {d: 1 for d in Q1}, "q2": {d: 1 for d in Q2}})
    _, run = seed002_graded()
    return qrels, run


def test_seed002_eleven_point_curves():
    """q1: 100,100,66.7,50,40,33.3,0,0,0,0,0. q2 (textbook, recall >= r): 33.3 for 0-30 %,
    25 for 40-60 %, 20 for 70-100 % (trec_eval 10's iprec_at_recall gives 33.3 at 40 %).
    Average: 66.6, 66.6, 49.9, 41.6, 32.5, 29.1, 12.5, 10, 10, 10, 10 (the notes truncate; 49.9
    is their (66.7 + 33.3)/2 - 0.1 rounding, exactly 50)."""
    c = pr_curve_11pt(*seed002_binary())
    assert c.recall == (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    assert np.round(100 * c.per_topic["q1"], 1).tolist() == [100, 100, 66.7, 50, 40, 33.3, 0, 0, 0, 0, 0]
    assert np.round(100 * c.per_topic["q2"], 1).tolist() == [33.3, 33.3, 33.3, 33.3, 25, 25, 25, 20, 20, 20, 20]
    notes = [66.6, 66.6, 49.9, 41.6, 32.5, 29.1, 12.5, 10, 10, 10, 10]
    assert (100 * c.mean).tolist() == pytest.approx(notes, abs=0.11)
    assert 100 * c.mean[5] == pytest.approx((100 / 3 + 25) / 2)


def test_eleven_point_edge_cases():
    """No relevant doc -> zeros (still averaged); recall exactly on a level counts (3/10 >= 0.3)."""
    rel = {f"r{i}": 1 for i in range(10)}
    q = qrels_from_dict({"q": rel, "e": {"n": 0}})
    r = run_from_dict({"q": ranked(["r0", "x", "r1", "r2"]), "e": ranked(["n"])})
    c = pr_curve_11pt(q, r)
    assert c.per_topic["e"].tolist() == [0.0] * 11
    assert c.per_topic["q"][3] == pytest.approx(3 / 4)  # 3 of 10 found at rank 4
    assert c.per_topic["q"][4] == 0.0
    assert c.mean.tolist() == pytest.approx((c.per_topic["q"] / 2).tolist())


def test_rprec_histogram_counts_wins():
    """Three topics, R = 2 each. A finds both at the top of t1 and t2 (RP 1, 1) and one in t3
    (0.5); B finds one in t1 (0.5), none in t2 (0), both in t3 (1). Differences 0.5, 1, -0.5."""
    q = qrels_from_dict({t: {f"{t}a": 1, f"{t}b": 1} for t in ("t1", "t2", "t3")})
    a = run_from_dict({"t1": ranked(["t1a", "t1b"]), "t2": ranked(["t2b", "t2a"]), "t3": ranked(["t3a", "x"])})
    b = run_from_dict({"t1": ranked(["x", "t1b"]), "t2": ranked(["y"]), "t3": ranked(["t3b", "t3a"])})
    h = rprec_histogram(q, a, b)
    assert h.rows() == [("t1", 0.5), ("t2", 1.0), ("t3", -0.5)]
    assert (h.a_better, h.b_better, h.ties) == (2, 1, 0)
    assert h.a.tolist() == [1.0, 1.0, 0.5]


# ------------------------------------------------------------------ registry and reference
def test_variants_are_registered_but_not_trec():
    reg = registry()
    names = ["recall_capped", "ndcg_exp_cut", "cg_cut", "ncg_cut", "dcg_log2i_cut", "idcg_log2i_cut",
             "ndcg_log2i_cut", "recip_rank_cut", "F_cut", "E_cut", "E_set"]
    for n in names:
        assert n in reg and not reg[n].trec and n not in ALL_TREC
    assert not reg["E_cut"].higher_is_better and not reg["E_set"].higher_is_better
    # as trec_eval: a family named twice keeps the first parameters given
    assert [(r.name, r.params) for r in resolve(["F_cut.10,20=0.5", "F_cut_5"])] == [
        ("F_cut", ((10, 1.0), (20, 0.5)))]
    with pytest.raises(ValueError):
        resolve(["F_cut.0"])
    with pytest.raises(ValueError):
        resolve(["E_cut.10=-1"])


def _reference(qd, rd, q, k):
    """Plain-Python per-topic values of every variant at cutoff k (ties by docno descending)."""
    grades = qd.get(q, {})
    order = sorted(rd[q], key=lambda d: (rd[q][d], d.encode()), reverse=True)
    g = [max(grades.get(d, 0), 0) for d in order[:k]]
    ideal = sorted((x for x in grades.values() if x > 0), reverse=True)[:k]
    R = sum(1 for x in grades.values() if x >= 1)
    rel_k = sum(1 for d in order[:k] if grades.get(d, 0) >= 1)

    def dcg(gs, gain, disc):
        return sum(gain(x) * disc(i) for i, x in enumerate(gs, 1))

    def lin(x):
        return x

    def exp_(x):
        return 2 ** x - 1

    def d_log2i(i):
        return 1.0 if i == 1 else 1 / math.log2(i)

    def d_log2i1(i):
        return 1 / math.log2(i + 1)

    def div(a, b):
        return a / b if b else 0.0

    first = next((i for i, d in enumerate(order, 1) if grades.get(d, 0) >= 1), None)
    p, r = rel_k / k, div(rel_k, R)
    return {
        f"recall_capped_{k}": div(rel_k, min(R, k)),
        f"ndcg_exp_cut_{k}": div(dcg(g, exp_, d_log2i1), dcg(ideal, exp_, d_log2i1)),
        f"cg_cut_{k}": float(sum(g)),
        f"ncg_cut_{k}": div(sum(g), sum(ideal)),
        f"dcg_log2i_cut_{k}": dcg(g, lin, d_log2i),
        f"idcg_log2i_cut_{k}": dcg(ideal, lin, d_log2i),
        f"ndcg_log2i_cut_{k}": div(dcg(g, lin, d_log2i), dcg(ideal, lin, d_log2i)),
        f"recip_rank_cut_{k}": 1 / first if first is not None and first <= k else 0.0,
        f"F_cut_{k}": div(2 * p * r, p + r),
        f"E_cut_{k}": 1 - div(2 * p * r, p + r),
    }


@pytest.mark.parametrize("seed", range(30))
def test_variants_match_plain_reference(seed):
    qd, rd = make_case(seed, ties=seed % 2 == 1, negative=seed % 3 == 0)
    specs = ["recall_capped", "ndcg_exp_cut", "cg_cut", "ncg_cut", "dcg_log2i_cut", "idcg_log2i_cut",
             "ndcg_log2i_cut", "recip_rank_cut", "F_cut", "E_cut"]
    ks = (1, 3, 10, 50)
    measures = [f"{s}.{','.join(map(str, ks))}" for s in specs]
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), measures, warn=False)
    checked = 0
    for q, vals in got.per_topic.items():
        for k in ks:
            for name, want in _reference(qd, rd, q, k).items():
                assert vals[name] == pytest.approx(want, abs=1e-12), (q, name)
                checked += 1
    assert checked >= 100


@pytest.mark.parametrize("seed", range(10))
def test_pr_curve_matches_plain_reference(seed):
    qd, rd = make_case(seed, ties=seed % 2 == 1)
    c = pr_curve_11pt(qrels_from_dict(qd), run_from_dict(rd))
    for q, curve in c.per_topic.items():
        grades = qd[q]
        R = sum(1 for x in grades.values() if x >= 1)
        order = sorted(rd[q], key=lambda d: (rd[q][d], d.encode()), reverse=True)
        points, found = [], 0
        for i, d in enumerate(order, 1):
            if grades.get(d, 0) >= 1:
                found += 1
                points.append((found / R, found / i))
        want = [max([p for rr, p in points if rr >= j / 10 - 1e-12], default=0.0) for j in range(11)]
        assert curve.tolist() == pytest.approx(want), q


def test_cli_prints_variants_in_trec_format(tmp_path, capsys):
    from metrics.cli import main

    qrels, run = rn_case("RNNRR", 5)
    qf, rf = tmp_path / "q", tmp_path / "r"
    qf.write_text("".join(f"q 0 {d} {g}\n" for d, g in qrels.to_dict()["q"].items()))
    rf.write_text("".join(f"q Q0 {d} 0 {s} t\n" for d, s in run.to_dict()["q"].items()))
    assert main(["-m", "F_cut.5,5=2", "-m", "E_set.0.5", "-m", "recall_capped.5", str(qf), str(rf)]) == 0
    out = capsys.readouterr().out.splitlines()
    # registry order: recall_capped, F_cut, then E_set; beta 2 and 0.5 on P = R = 0.6 give 0.6
    assert out == ["recall_capped_5       \tall\t0.6000", "F_cut_5               \tall\t0.6000",
                   "F_cut_5_beta2         \tall\t0.6000", "E_set_0.5             \tall\t0.4000"]
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    assert "ndcg_exp_cut" in listing and "[not trec_eval]" in listing and "prefs_avgjg_Rnonrel" in listing


def test_zero_over_zero_cases_print_as_trec_eval_10():
    """trec_eval 10's m_rel_P.c returns before dividing when R = 0 and m_set_rel_P.c checks
    num_ret && num_rel, so both stay 0 (not NaN); binG/G leave 0 without relevant documents.
    The variants follow the same rule (0 when the denominator is 0); E = 1 - F is then 1."""
    q = qrels_from_dict({"q": {"a": 0, "b": 0}})
    r = run_from_dict({"q": ranked(["a", "x"])})
    names = ["relative_P.5", "set_relative_P", "binG", "G", "recall_capped.5", "ndcg_exp_cut.5", "ncg_cut.5",
             "ndcg_log2i_cut.5", "F_cut.5", "E_cut.5", "E_set"]
    v = evaluate(q, r, names).per_topic["q"]
    assert v["relative_P_5"] == v["set_relative_P"] == v["binG"] == v["G"] == 0.0
    assert v["recall_capped_5"] == v["ndcg_exp_cut_5"] == v["ncg_cut_5"] == v["ndcg_log2i_cut_5"] == 0.0
    assert v["F_cut_5"] == 0.0 and v["E_cut_5"] == 1.0 and v["E_set"] == 1.0
