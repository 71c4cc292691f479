"""Edge cases: no relevant documents, missing topics, empty runs, k beyond the ranking,
all unjudged, negative grades, -M, -J, -l, ties."""

import math

import pytest

from metrics import MissingTopicsWarning, evaluate, evaluate_many, qrels_from_dict, run_from_dict
from metrics.registry import ALL_TREC


def test_topic_without_relevant_documents_counts_and_scores_zero():
    qrels = qrels_from_dict({"1": {"a": 0}, "2": {"b": 1}})
    run = run_from_dict({"1": {"a": 1.0}, "2": {"b": 1.0}})
    res = evaluate(qrels, run, ["map", "num_q", "recip_rank", "ndcg"])
    assert res.per_topic["1"]["map"] == 0.0
    assert res.aggregate["num_q"] == 2
    assert res.aggregate["map"] == 0.5


def test_run_topics_missing_from_qrels_are_ignored():
    res = evaluate(qrels_from_dict({"1": {"a": 1}}), run_from_dict({"1": {"a": 1.0}, "9": {"a": 1.0}}), ["map"])
    assert list(res.per_topic) == ["1"]


def test_qrels_topic_missing_from_run_is_skipped_with_warning_or_zero_with_complete():
    qrels = qrels_from_dict({"1": {"a": 1}, "2": {"b": 1}})
    run = run_from_dict({"1": {"a": 1.0}})
    with pytest.warns(MissingTopicsWarning, match="2"):
        res = evaluate(qrels, run, ["map", "gm_map", "num_rel"])
    assert res.aggregate["map"] == 1.0 and res.missing_topics == ["2"]
    res = evaluate(qrels, run, ["map", "gm_map", "num_rel", "num_q"], complete=True)
    assert res.aggregate["map"] == 0.5
    assert res.aggregate["num_q"] == 2 and res.aggregate["num_rel"] == 2
    assert res.aggregate["gm_map"] == pytest.approx(math.exp((0 + math.log(1e-5)) / 2))


def test_empty_run_every_measure_defined():
    qrels = qrels_from_dict({"1": {"a": 1}})
    res = evaluate(qrels, run_from_dict({}), ["all_trec"], complete=True, warn=False)
    for name, value in res.aggregate.items():
        assert not (isinstance(value, float) and math.isnan(value)), name
    assert res.aggregate["map"] == 0.0 and res.aggregate["num_ret"] == 0


def test_k_larger_than_ranking_divides_by_k():
    res = evaluate(qrels_from_dict({"1": {"a": 1}}), run_from_dict({"1": {"a": 1.0}}), ["P.1,10", "success.10"])
    assert res.aggregate["P_1"] == 1.0 and res.aggregate["P_10"] == 0.1 and res.aggregate["success_10"] == 1.0


def test_all_documents_unjudged():
    qrels = qrels_from_dict({"1": {"z": 1}})
    run = run_from_dict({"1": {"a": 2.0, "b": 1.0}})
    res = evaluate(qrels, run, ["bpref", "judged.2", "num_nonrel_judged_ret", "map"]).aggregate
    assert res == {"bpref": 0.0, "judged_2": 0.0, "num_nonrel_judged_ret": 0, "map": 0.0}
    res = evaluate(qrels, run, ["num_ret", "iprec_at_recall.0"], judged_only=True).aggregate
    assert res["num_ret"] == 0 and res["iprec_at_recall_0.00"] == 0.0


def test_negative_grades_are_neither_relevant_nor_nonrelevant():
    qrels = qrels_from_dict({"1": {"a": -1, "b": 0, "c": 1}})
    run = run_from_dict({"1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    res = evaluate(qrels, run, ["num_rel", "num_nonrel_judged_ret", "bpref", "relstring", "P.1"])
    assert res.aggregate["num_rel"] == 1 and res.aggregate["num_nonrel_judged_ret"] == 1
    assert res.per_topic["1"]["relstring"] == ".01"
    assert res.aggregate["bpref"] == 0.0  # one judged non-relevant above the only relevant doc
    # -J drops unjudged and negative-grade documents before ranking
    assert evaluate(qrels, run, ["P.1"], judged_only=True).aggregate["P_1"] == 0.0
    assert evaluate(qrels, run, ["P.2"], judged_only=True).aggregate["P_2"] == 0.5


def test_max_docs_keeps_top_n_by_score_not_by_rank_column():
    qrels = qrels_from_dict({"1": {"c": 1}})
    run = run_from_dict({"1": {"a": 1.0, "b": 2.0, "c": 3.0}})
    assert evaluate(qrels, run, ["num_ret", "P.1"], max_docs=1).aggregate == {"num_ret": 1, "P_1": 1.0}


def test_relevance_level_changes_what_counts():
    qrels = qrels_from_dict({"1": {"a": 1, "b": 2}})
    run = run_from_dict({"1": {"a": 2.0, "b": 1.0}})
    assert evaluate(qrels, run, ["recip_rank"], relevance_level=2).aggregate["recip_rank"] == 0.5


def test_ties_are_broken_by_docno_descending():
    qrels = qrels_from_dict({"1": {"b": 1}})
    run = run_from_dict({"1": {"a": 1.0, "b": 1.0, "B": 1.0}})
    # byte-wise descending: "b" > "a" > "B"
    assert evaluate(qrels, run, ["recip_rank"]).aggregate["recip_rank"] == 1.0
    qrels = qrels_from_dict({"1": {"B": 1}})
    assert evaluate(qrels, run, ["recip_rank"]).aggregate["recip_rank"] == pytest.approx(1 / 3)


def test_ndcg_gain_remapping_and_parameter_syntax():
    qrels = qrels_from_dict({"1": {"a": 1, "b": 2}})
    run = run_from_dict({"1": {"a": 2.0, "b": 1.0}})
    plain = evaluate(qrels, run, ["ndcg"]).aggregate["ndcg"]
    assert plain == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    remapped = evaluate(qrels, run, ["ndcg.2=0.5"]).aggregate["ndcg_2=0.5"]
    assert remapped == 1.0  # level 1 (gain 1) now outranks level 2 (gain 0.5)


def test_all_trec_output_order_follows_trec_eval():
    res = evaluate(qrels_from_dict({"1": {"a": 1}}), run_from_dict({"1": {"a": 1.0}}), ["all_trec"])
    order = [n for n in res.names]
    assert order.index("P_5") < order.index("recall_5") < order.index("infAP") < order.index("ndcg")
    assert order.index("ndcg_cut_5") < order.index("map_cut_5") < order.index("success_1") < order.index("set_P")
    assert "judged_10" not in order and "rbp_0.80" not in order
    assert set(ALL_TREC) >= {"map", "ndcg_rel", "Rndcg", "utility", "11pt_avg", "set_F"}


def test_evaluate_many_prepares_qrels_once_and_scores_each_run():
    qrels = qrels_from_dict({"1": {"a": 1}})
    runs = [run_from_dict({"1": {"a": 1.0, "b": 2.0}}, tag="x"), run_from_dict({"1": {"a": 3.0}}, tag="y")]
    out = evaluate_many(qrels, runs, ["recip_rank"])
    assert [(r.tag, r.aggregate["recip_rank"]) for r in out] == [("x", 0.5), ("y", 1.0)]
    assert "prepared" in qrels._cache


def test_rbp_from_its_definition():
    qrels = qrels_from_dict({"1": {"a": 1, "c": 1}})
    run = run_from_dict({"1": {"a": 3.0, "b": 2.0, "c": 1.0}})
    res = evaluate(qrels, run, ["rbp.p=0.5"]).aggregate
    assert res["rbp_p=0.5"] == pytest.approx(0.5 * (1 + 0.25))
    assert evaluate(qrels, run, ["rbp"]).aggregate["rbp"] == pytest.approx(0.1 * (1 + 0.81))  # trec_eval's p = 0.9
    graded = qrels_from_dict({"1": {"a": 2, "c": 1}})  # grades scaled to [0, 1] by the topic's highest
    assert evaluate(graded, run, ["rbp.p=0.5"]).aggregate["rbp_p=0.5"] == pytest.approx(0.5 * (1 + 0.25 * 0.5))
