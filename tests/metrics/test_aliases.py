"""ir_measures names: each maps to one of our measures and gives its values (and ir_measures' own, when installed)."""

from __future__ import annotations

import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.aliases import output_name, trec_spec
from metrics.cli import main
from tests.metrics._gen import make_case

# ir_measures name -> the trec_eval (or our) measure it must equal
PAIRS = {
    "AP": "map", "AP@10": "map_cut.10", "P@5": "P.5", "R@100": "recall.100", "RR": "recip_rank",
    "RR@10": "recip_rank_cut.10", "nDCG": "ndcg", "nDCG@10": "ndcg_cut.10", "Rprec": "Rprec", "Bpref": "bpref",
    "Judged@10": "judged_ret.10", "infAP": "infAP", "NumQ": "num_q", "NumRet": "num_ret", "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret", "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map",
    "Success@5": "success.5", "RBP(p=0.8)": "rbp.p=0.8",
}


def cases():
    for seed in range(20):
        qd, rd = make_case(seed, negative=seed % 3 == 0, missing_topics=False, max_grade=1 if seed % 2 else 3)
        rd.pop("extra_topic")
        yield {q: d for q, d in qd.items() if q in rd}, rd


@pytest.mark.parametrize("alias, trec", PAIRS.items())
def test_each_alias_equals_its_measure(alias, trec):
    assert trec_spec(alias) == trec
    for qd, rd in cases():
        q, r = qrels_from_dict(qd), run_from_dict(rd)
        ours = evaluate(q, r, [alias])
        ref = evaluate(q, r, [trec])
        assert ours.names == ref.names == [output_name(alias)]
        assert ours.per_topic == ref.per_topic and ours.aggregate == ref.aggregate


def test_values_equal_the_ir_measures_package():
    ir_measures = pytest.importorskip("ir_measures")
    names = [n for n in PAIRS if not n.startswith("RBP")]  # RBP needs a provider ir_measures does not bundle
    for qd, rd in cases():
        res = evaluate(qrels_from_dict(qd), run_from_dict(rd), names)
        for n in names:
            theirs = {m.query_id: m.value for m in ir_measures.parse_measure(n).iter_calc(qd, rd)}
            assert theirs, n
            for q, v in theirs.items():
                assert res.per_topic[q][output_name(n)] == pytest.approx(v, abs=1e-9), (n, q)


def test_ir_measures_objects_are_accepted():
    ir_measures = pytest.importorskip("ir_measures")
    q = qrels_from_dict({"1": {"a": 1, "b": 0}})
    r = run_from_dict({"1": {"a": 2.0, "b": 1.0}})
    res = evaluate(q, r, [ir_measures.nDCG @ 10, ir_measures.P @ 1, ir_measures.AP])
    assert res.aggregate == {"map": 1.0, "P_1": 1.0, "ndcg_cut_10": 1.0}


def test_several_cutoffs_of_one_alias_family_all_print():
    q = qrels_from_dict({"1": {"a": 1}})
    r = run_from_dict({"1": {"a": 2.0, "b": 1.0}})
    assert evaluate(q, r, ["P@1", "P@2"]).names == ["P_1", "P_2"]


@pytest.mark.parametrize("bad", ["P(rel=2)@5", "nDCG(judged_only=True)@10", "RBP(q=1)"])
def test_parameters_we_cannot_honour_are_refused(bad):
    with pytest.raises(ValueError, match="not supported|only RBP"):
        trec_spec(bad)


def test_cli_accepts_ir_measures_names_and_prints_that_format(tmp_path, capsys):
    qf, rf = tmp_path / "q", tmp_path / "r"
    qf.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    rf.write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n2 Q0 c 1 1 t\n")
    assert main(["-q", "-m", "nDCG@10", "-m", "P@1", "-m", "AP", str(qf), str(rf)]) == 0
    names = {line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()}
    assert names == {"map", "P_1", "ndcg_cut_10"}
    assert main(["--format", "ir_measures", "-q", "-m", "P@1", "-m", "AP", str(qf), str(rf)]) == 0
    assert capsys.readouterr().out == ("1\tAP\t0.5\n1\tP@1\t0.0\n2\tAP\t1.0\n2\tP@1\t1.0\n"
                                       "all\tAP\t0.75\nall\tP@1\t0.5\n")
