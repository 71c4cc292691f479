"""trec_eval's experimental binG and G: pytrec_eval agreement on generated cases (default
gains; pytrec_eval cannot pass G's gain pairs) and hand-derived cases from m_binG.c / m_G.c.
"""

import math

import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.cli import main
from metrics.registry import ALL_TREC

from ._gen import make_case

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = {"q": {"a": 1, "b": 0, "c": 2, "d": 1}}
RUN = {"q": {"b": 0.9, "x": 0.8, "a": 0.5, "c": 0.3, "d": 0.1}}


@pytest.mark.parametrize("seed", range(40))
def test_bing_and_g_match_pytrec_eval(seed):
    qd, rd = make_case(seed, ties=seed % 2 == 1, negative=seed % 3 == 0)
    expected = pytrec_eval.RelevanceEvaluator(qd, {"binG", "G"}).evaluate(rd)
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), ["binG", "G"], warn=False)
    assert set(got.per_topic) == set(expected)
    for q, vals in got.per_topic.items():
        assert vals["binG"] == pytest.approx(expected[q]["binG"], abs=1e-12), q
        assert vals["G"] == pytest.approx(expected[q]["G"], abs=1e-12), q


@pytest.mark.parametrize("seed", range(10))
def test_bing_at_level_2_matches_pytrec_eval(seed):
    qd, rd = make_case(seed, ties=False)
    expected = pytrec_eval.RelevanceEvaluator(qd, {"binG", "G"}, relevance_level=2).evaluate(rd)
    got = evaluate(qrels_from_dict(qd), run_from_dict(rd), ["binG", "G"], relevance_level=2, warn=False)
    for q, vals in got.per_topic.items():
        assert vals["binG"] == pytest.approx(expected[q]["binG"], abs=1e-12)
        assert vals["G"] == pytest.approx(expected[q]["G"], abs=1e-12)  # G ignores -l


def test_bing_by_hand():
    """Ranking b(0) x(unjudged) a(1) c(2) d(1); 3 relevant.

    a, c and d each have 2 non-relevant documents (b, x) above them: 1/log2(2+2) = 0.5 each;
    binG = (0.5 + 0.5 + 0.5) / 3 = 0.5.
    """
    res = evaluate(qrels_from_dict(QRELS), run_from_dict(RUN), ["binG"])
    assert res.per_topic["q"]["binG"] == pytest.approx(0.5)


def test_bing_divides_by_all_relevant_and_is_zero_without_hits():
    """Hits at ranks 1 and 3 of 4 relevant: (1/log2 2 + 1/log2 3) / 4; nothing relevant -> 0."""
    q = qrels_from_dict({"q": {"r1": 1, "r2": 1, "r3": 1, "r4": 1, "n": 0}})
    res = evaluate(q, run_from_dict({"q": {"r1": 3, "n": 2, "r2": 1}}), ["binG"])
    assert res.per_topic["q"]["binG"] == pytest.approx((1 + 1 / math.log2(3)) / 4)
    res = evaluate(q, run_from_dict({"q": {"n": 2, "z": 1}}), ["binG"])
    assert res.per_topic["q"]["binG"] == 0.0


def test_g_by_hand_default_gains():
    """Gains = grades; levels sorted by gain: 0 (1 doc), 1 (2 docs), 2 (1 doc). Ideal 2, 1, 1.

    rank doc gain  ideal  sum_ideal  sum_cost  sum_results  G term
    1    b   0     2      2          2         0            -
    2    x   0     1      3          3         0            -
    3    a   1     1      4          4         1            1/log2(2+4-1)
    4    c   2     0      4          5 (floor) 3            2/log2(2+5-3) = 1
    5    d   1     -      4          6         4            1/log2(2+6-4) = 0.5
    G = (1/log2 5 + 1 + 0.5) / 4.
    """
    res = evaluate(qrels_from_dict(QRELS), run_from_dict(RUN), ["G"])
    assert res.per_topic["q"]["G"] == pytest.approx((1 / math.log2(5) + 1.5) / 4)


def test_g_by_hand_remapped_gains():
    """G.1=3.5,2=9: gains 0, 3.5, 9 (level 0 keeps its grade). Ideal 9, 3.5, 3.5.

    rank doc gain  sum_ideal  sum_cost  sum_results  term
    1    b   0     9          9         0            -
    2    x   0     12.5       12.5      0            -
    3    a   3.5   16         16        3.5          3.5/log2(2+16-3.5)
    4    c   9     16         17        12.5         9/log2(2+17-12.5)
    5    d   3.5   16         18        16           3.5/log2(2+18-16)
    """
    res = evaluate(qrels_from_dict(QRELS), run_from_dict(RUN), ["G.1=3.5,2=9"])
    assert res.names == ["G_1=3.5,2=9"]
    want = (3.5 / math.log2(14.5) + 9 / math.log2(6.5) + 3.5 / 2) / 16
    assert res.per_topic["q"]["G_1=3.5,2=9"] == pytest.approx(want)


def test_g_keeps_trec_eval_gain_sort_for_gains_less_than_one_apart():
    """m_G.c sorts gains with ``(int)(g1 - g2)``: 0.5 and 0 compare equal and keep input order
    (parameters first), so the sorted list is (1: 0.5), (0: 0), (2: 2) and the ideal ranking
    stops at the zero-gain level 0 without counting level 1.

    qrels a=2, b=1, c=0; run a, b; G.1=0.5.
    rank 1 a: gain 2, ideal 2, sum_ideal 2, cost 2, term 2/log2(2+2-2) = 2
    rank 2 b: gain 0.5, ideal drops to level 0 (gain 0): cost floor 1 -> 3, term 0.5/log2(2+3-2.5)
    sum_ideal stays 2 -> G = (2 + 0.5/log2 2.5) / 2, above 1 (a correct sort would divide by 2.5).
    """
    q = qrels_from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    res = evaluate(q, run_from_dict({"q": {"a": 2.0, "b": 1.0}}), ["G.1=0.5"])
    assert res.per_topic["q"]["G_1=0.5"] == pytest.approx((2 + 0.5 / math.log2(2.5)) / 2)


def test_g_without_positive_gain_is_zero_and_negative_gains_allowed():
    q = qrels_from_dict({"q": {"a": 0, "b": 0}})
    assert evaluate(q, run_from_dict({"q": {"a": 1.0}}), ["G"]).per_topic["q"]["G"] == 0.0
    # G.1=-1: the only positive gain is level 2's; the level-1 doc costs -1 in sum_results
    q = qrels_from_dict({"q": {"a": 2, "b": 1}})
    res = evaluate(q, run_from_dict({"q": {"b": 2.0, "a": 1.0}}), ["G.1=-1"])
    # rank 1 b: gain -1, ideal 2, sum_ideal 2, cost 2, sum_results -1, term -1/log2(2+2+1)
    # rank 2 a: gain 2, ideal level 1 (-1) -> loop stops ideal<=0; cost +1 = 3, results 1, 2/log2(2+3-1)
    assert res.per_topic["q"]["G_1=-1"] == pytest.approx((-1 / math.log2(5) + 2 / 2) / 2)


def test_all_trec_prints_bing_and_g_after_11pt_avg(tmp_path, capsys):
    assert ALL_TREC.index("binG") == ALL_TREC.index("11pt_avg") + 1
    assert ALL_TREC.index("G") == ALL_TREC.index("binG") + 1
    assert ALL_TREC.index("ndcg") == ALL_TREC.index("G") + 1  # trec_eval's all_trec leaves out dcg and ideal_dcg
    qf, rf = tmp_path / "q", tmp_path / "r"
    qf.write_text("q 0 a 1\nq 0 b 0\nq 0 c 2\nq 0 d 1\n")
    rf.write_text("".join(f"q Q0 {d} 0 {s} t\n" for d, s in RUN["q"].items()))
    assert main(["-m", "all_trec", str(qf), str(rf)]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [ln.split("\t")[0].strip() for ln in lines]
    i = names.index("binG")
    assert names[i - 1] == "11pt_avg" and names[i + 1] == "G" and names[i + 2] == "ndcg"
    assert lines[i] == "binG                  \tall\t0.5000"
    assert lines[i + 1] == f"G                     \tall\t{(1 / math.log2(5) + 1.5) / 4:6.4f}"
