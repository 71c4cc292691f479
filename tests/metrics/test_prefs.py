"""trec_eval preference measures (-R prefs / qrels_prefs): hand-derived cases, a brute-force
reference on generated cases, readers and CLI.

Notation in the docstrings: "docid" is trec_eval's internal rank of a judged document —
judged retrieved documents 0, 1, … in run order, then judged unretrieved ones in docno
order. A preference A > B is *retrieved* (both in the run: fulfilled iff A above B),
*implied* (one in the run: fulfilled iff it is A) or *not occurring* (neither: a failure).
"""

import gzip
import itertools
import math
import random

import pytest

from metrics.cli import main
from metrics.evaluate import MissingTopicsWarning
from metrics.io import MetricsInputError, qrels_from_dict, run_from_dict
from metrics.prefs import (
    PREFS_MEASURES,
    evaluate_prefs,
    pref_counts,
    prefs_from_qrels,
    prefs_from_records,
    read_prefs,
    read_qrels_prefs,
    resolve_prefs,
)

ALL = list(PREFS_MEASURES)


def _topic(prefs_lines, run_scores, measures=ALL, **kw):
    p = prefs_from_records([("1", *ln) for ln in prefs_lines])
    r = run_from_dict({"1": run_scores})
    return evaluate_prefs(p, r, measures, **kw).per_topic["1"]


def test_single_jsg_equivalence_classes_every_measure():
    """One JG, one JSG: a=2, b=1, c=0, e=0. Run: b, a, x (unjudged), c; e not retrieved.

    docids: b=0, a=1, c=2 (retrieved, run order), e=3. Preferences (higher level first):
      a>b: a(1) below b(0), both retrieved   -> possible_ret, not fulfilled
      a>c: 1 < 2, both retrieved             -> fulfilled_ret
      a>e: a retrieved, e not                -> fulfilled_imp
      b>c: 0 < 2                             -> fulfilled_ret
      b>e: b retrieved, e not                -> fulfilled_imp
    ful_ret=2, poss_ret=3, ful_imp=2, poss_imp=2, notoccur=0 => poss=5, ful=4.
    simp = 4/5, simp_ret = 2/3, simp_imp = (2+2)/(poss_ret+poss_imp = 3+2) = 4/5.
    pair (one JG, so per pair 0 or 1): pairs (b,a)=0 (a>b failed), (a,c)=1, (b,c)=1,
      (a,e)=1, (b,e)=1 -> 4/5; pair_ret over the 3 retrieved pairs -> 2/3.
    avgjg = simp (one JG). Rnonrel: R = 2 relevant (a, b), N = 2 non-relevant (c, e);
      R >= N adds R*(R-N) = 0 -> 4/5. Rnonrel_ret: R = 2 retrieved relevant, N = 1 (c):
      ful = ful_ret + num_rel_ret*(R-N) = 2 + 2 = 4, poss = poss_ret + num_rel*(R-N) = 3 + 2 = 5.
    """
    v = _topic([("u", "s", "a", 2), ("u", "s", "b", 1), ("u", "s", "c", 0), ("u", "s", "e", 0)],
               {"b": 4, "a": 3, "x": 2, "c": 1})
    assert v["num_q"] == 1
    assert (v["prefs_num_prefs_poss"], v["prefs_num_prefs_ful"], v["prefs_num_prefs_ful_ret"]) == (5, 4, 2)
    assert v["prefs_simp"] == pytest.approx(0.8)
    assert v["prefs_simp_ret"] == pytest.approx(2 / 3)
    assert v["prefs_simp_imp"] == pytest.approx(0.8)
    assert v["prefs_pair"] == pytest.approx(0.8)
    assert v["prefs_pair_ret"] == pytest.approx(2 / 3)
    assert v["prefs_pair_imp"] == pytest.approx(0.8)
    assert v["prefs_avgjg"] == pytest.approx(0.8)
    assert v["prefs_avgjg_ret"] == pytest.approx(2 / 3)
    assert v["prefs_avgjg_imp"] == pytest.approx(0.8)
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(0.8)
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(0.8)


def test_complete_ranking_of_six_documents_gives_thirteen_preferences():
    """trec_eval's get_prefs.c example: levels 3, 2, 0, 6, 0, 2 for docno1..6 -> 13 preferences.

    Levels 6:{4}, 3:{1}, 2:{2,6}, 0:{3,5}: doc4 beats 5 docs, doc1 beats 4, doc2 and doc6
    beat 2 each = 13. The run retrieves exactly the ideal order 4, 1, 2, 6, 3, 5, so every
    preference is fulfilled and retrieved.
    """
    lv = {"d1": 3, "d2": 2, "d3": 0, "d4": 6, "d5": 0, "d6": 2}
    v = _topic([("u", "s", d, g) for d, g in lv.items()], {"d4": 6, "d1": 5, "d2": 4, "d6": 3, "d3": 2, "d5": 1})
    assert v["prefs_num_prefs_poss"] == 13
    assert v["prefs_num_prefs_ful_ret"] == 13
    for name in ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_simp_ret", "prefs_avgjg_Rnonrel"):
        assert v[name] == 1.0, name


def test_sub_groups_combine_transitively():
    """get_prefs.c: JSG1 1>2>3, JSG2 2>4 -> 5 preferences 1>2, 1>3, 2>3, 2>4 and 1>4 (via 2).

    Run retrieves 4, 1 only: docids 4=0, 1=1, then 2=2, 3=3 (unretrieved, docno order).
      1>2, 1>3, 1>4?  1>4: both retrieved, 1 below 4 -> possible_ret only.
      1>2, 1>3: implied fulfilled (1 retrieved).   2>3: not occurring.   2>4: implied failure.
    ful = 2 (both implied), poss = 5; ful_ret = 0, poss_ret = 1; simp_imp = 2/4.
    """
    lines = [("u", "s1", "d1", 3), ("u", "s1", "d2", 2), ("u", "s1", "d3", 1),
             ("u", "s2", "d2", 5), ("u", "s2", "d4", 4)]
    v = _topic(lines, {"d4": 2, "d1": 1})
    assert v["prefs_num_prefs_poss"] == 5
    assert v["prefs_num_prefs_ful"] == 2
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == pytest.approx(2 / 5)
    assert v["prefs_simp_ret"] == 0.0
    assert v["prefs_simp_imp"] == pytest.approx(2 / 4)


def test_judgment_groups_disagree_pair_averages_over_groups():
    """get_prefs.c: JG1 1>2; JG2 (sub1) 3>1, 4>1, 3>4, (sub2) 2>1 -> 5 preferences, 1>2 vs 2>1 conflict.

    Run: d1, d2, d3, d4 (docids 0..3). Fulfilled: 1>2 (JG1); 3>4 (JG2). Failed: 3>1, 4>1, 2>1.
    simp = 2/5. avgjg = (1/1 + 1/4)/2 = 0.625.
    pair: pairs (1,2): counts 1 each way -> 1/2; (1,3): 0/1; (1,4): 0/1; (3,4): 1/1 -> (0.5+0+0+1)/4.
    """
    lines = [("u1", "s1", "d1", 3), ("u1", "s1", "d2", 2),
             ("u2", "s1", "d1", 0), ("u2", "s1", "d3", 6), ("u2", "s1", "d4", 2),
             ("u2", "s2", "d1", 0), ("u2", "s2", "d2", 8)]
    v = _topic(lines, {"d1": 4, "d2": 3, "d3": 2, "d4": 1})
    assert v["prefs_num_prefs_poss"] == 5
    assert v["prefs_simp"] == pytest.approx(2 / 5)
    assert v["prefs_avgjg"] == pytest.approx(0.625)
    assert v["prefs_pair"] == pytest.approx(1.5 / 4)


def test_rnonrel_recalculation_keeps_trec_eval_quirk():
    """JG: a=1, n1=n2=n3=0; run a, n1, n2 (n3 unretrieved). R = 1 < N = 3 -> recalculate.

    docids a=0, n1=1, n2=2, n3=3; ECs [a] and [n1, n2, n3]; kept non-relevant = first R = [n1].
    m_prefs_avgjg_Rnonrel.c compares *every* class — the non-relevant one included — with the
    kept docs: a vs n1: 0 < 1 and retrieved -> fulfilled; n1 vs n1, n2 vs n1, n3 vs n1 -> 3
    possible. ful = 1, poss = 1 + 3 = 4 -> 0.25 (a reading of the description would say 1.0).
    Plain prefs_avgjg counts a>n1, a>n2 (fulfilled) and a>n3 (implied fulfilled) -> 1.0.
    """
    v = _topic([("u", "s", "a", 1), ("u", "s", "n1", 0), ("u", "s", "n2", 0), ("u", "s", "n3", 0)],
               {"a": 3, "n1": 2, "n2": 1})
    assert v["prefs_avgjg"] == 1.0
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(0.25)


def test_rnonrel_zero_over_zero_zeroes_the_topic_like_c():
    """Two JGs. JG u1: a>b fulfilled (1.0). JG u2: c=2 (not retrieved) > a=0 (retrieved).

    prefs_avgjg_Rnonrel_ret for u2: R = retrieved relevant = 0 < N = 1 -> recalculate over
    retrieved docs only: nothing to count, 0/0 = NaN in C, so the sum is NaN, fails "> 0"
    and the topic scores 0 — although u1 alone would give 0.5. prefs_avgjg_ret skips u2
    (no possible preference) and gives 1/2.
    """
    lines = [("u1", "s", "a", 2), ("u1", "s", "b", 1), ("u2", "s", "a", 0), ("u2", "s", "c", 2)]
    v = _topic(lines, {"a": 2, "b": 1})
    assert v["prefs_avgjg_ret"] == pytest.approx(0.5)
    assert v["prefs_avgjg_Rnonrel_ret"] == 0.0


def test_ties_break_by_docno_ascending_in_prefs():
    """form_prefs_counts.c sorts equal scores by docno ascending (not descending as form_res_rels).

    a=1 > b=0 with equal scores: a ranks first -> fulfilled (simp 1). With b=1 > a=0 -> 0.
    """
    assert _topic([("u", "s", "a", 1), ("u", "s", "b", 0)], {"a": 1.0, "b": 1.0})["prefs_simp"] == 1.0
    assert _topic([("u", "s", "b", 1), ("u", "s", "a", 0)], {"a": 1.0, "b": 1.0})["prefs_simp"] == 0.0


def test_max_docs_cuts_the_ranking():
    """-M 1 keeps only b: a=1 > b=0 becomes an implied failure (b retrieved, a not)."""
    lines = [("u", "s", "a", 1), ("u", "s", "b", 0)]
    assert _topic(lines, {"b": 2, "a": 1})["prefs_simp"] == 0.0
    assert _topic(lines, {"a": 2, "b": 1})["prefs_simp"] == 1.0
    assert _topic(lines, {"a": 2, "b": 1}, max_docs=0)["prefs_simp"] == 0.0  # neither retrieved
    assert _topic(lines, {"a": 2, "b": 1}, max_docs=0)["prefs_simp_imp"] == 0.0
    assert _topic(lines, {"a": 2, "b": 1}, max_docs=0)["prefs_num_prefs_poss"] == 1


def test_summary_sums_counts_and_averages_ratios_missing_topics():
    """Topic 1: a>b fulfilled (simp 1). Topic 2: c>d, run retrieves d only (simp 0), topic 3 absent.

    Without -c: num_q 2, simp (1 + 0)/2, num_prefs_poss 1 + 1. With -c topic 3 (x>y) is an
    empty ranking: 1 possible, 0 fulfilled, so simp = 1/3 and num_prefs_poss = 3.
    """
    p = prefs_from_records([("1", "u", "s", "a", 1), ("1", "u", "s", "b", 0), ("2", "u", "s", "c", 1),
                            ("2", "u", "s", "d", 0), ("3", "u", "s", "x", 1), ("3", "u", "s", "y", 0)])
    r = run_from_dict({"1": {"a": 2, "b": 1}, "2": {"d": 1}, "9": {"z": 1}})
    with pytest.warns(MissingTopicsWarning):
        res = evaluate_prefs(p, r, "all_prefs")
    assert res.aggregate["num_q"] == 2
    assert res.aggregate["prefs_simp"] == pytest.approx(0.5)
    assert res.aggregate["prefs_num_prefs_poss"] == 2 and isinstance(res.aggregate["prefs_num_prefs_poss"], int)
    assert res.missing_topics == ["3"]
    full = evaluate_prefs(p, r, "all_prefs", complete=True)
    assert full.aggregate["num_q"] == 3
    assert full.aggregate["prefs_simp"] == pytest.approx(1 / 3)
    assert full.aggregate["prefs_num_prefs_poss"] == 3
    assert full.per_topic["3"]["prefs_simp"] == 0.0


def test_nicknames_and_order():
    assert resolve_prefs("prefs") == ["num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                                      "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"]
    assert resolve_prefs(["prefs_avgjg_imp", "prefs_simp"]) == ["prefs_simp", "prefs_avgjg_imp"]
    assert len(resolve_prefs("all_prefs")) == 15
    with pytest.raises(ValueError, match="unknown preference measure"):
        resolve_prefs(["map"])


def test_inconsistent_judgment_group_is_an_error():
    """JSG1 a>b, JSG2 b>a in one JG is a cycle (trec_eval aborts); 0 and non-0 for one doc too."""
    cyc = [("u", "s1", "a", 2), ("u", "s1", "b", 1), ("u", "s2", "b", 2), ("u", "s2", "a", 1)]
    with pytest.raises(ValueError, match="topic 1: inconsistent"):
        _topic(cyc, {"a": 1})
    zero = [("u", "s1", "a", 2), ("u", "s1", "b", 1), ("u", "s2", "a", 0), ("u", "s2", "c", 1)]
    with pytest.raises(ValueError, match="both 0 and non-0"):
        _topic(zero, {"a": 1})
    # the same preferences in different JGs are fine (users may disagree)
    ok = [("u", "s1", "a", 2), ("u", "s1", "b", 1), ("v", "s2", "b", 2), ("v", "s2", "a", 1)]
    assert _topic(ok, {"a": 2, "b": 1})["prefs_simp"] == pytest.approx(0.5)


# ----------------------------------------------------------------------------------------
# Brute-force reference: enumerate preferences as (jg, A, B) triples and classify them.


def _brute(lines, ranked):
    prefs = set()
    for jg in {ln[0] for ln in lines}:
        direct = set()
        for jsg in {ln[1] for ln in lines if ln[0] == jg}:
            grp = [(d, lvl) for g, s, d, lvl in lines if g == jg and s == jsg]
            direct |= {(a, b) for (a, la), (b, lb) in itertools.product(grp, grp) if la > lb}
        closure = set(direct)
        while True:
            extra = {(a, d) for a, b in closure for c, d in closure if b == c} - closure
            if not extra:
                break
            closure |= extra
        prefs |= {(jg, a, b) for a, b in closure}
    pos = {d: i for i, d in enumerate(ranked)}
    out = {"ful_ret": 0, "poss_ret": 0, "ful_imp": 0, "poss_imp": 0, "notoccur": 0}
    per_jg = {}
    pair = {}
    for jg, a, b in prefs:
        ra, rb = a in pos, b in pos
        c = per_jg.setdefault(jg, {"f": 0, "p": 0, "fr": 0, "pr": 0, "fi": 0, "pi": 0})
        c["p"] += 1
        if ra and rb:
            ok = pos[a] < pos[b]
            out["poss_ret"] += 1
            out["ful_ret"] += ok
            c["pr"] += 1
            c["fr"] += ok
            c["pi"] += 1
            c["fi"] += ok
            c["f"] += ok
        elif ra or rb:
            out["poss_imp"] += 1
            out["ful_imp"] += ra
            c["pi"] += 1
            c["fi"] += ra
            c["f"] += ra
        else:
            out["notoccur"] += 1
        key = tuple(sorted((a, b)))
        pair.setdefault(key, [0, 0])
        first = min((a, b), key=lambda d: (pos.get(d, math.inf), d))
        pair[key][0 if a == first else 1] += 1
    return out, per_jg, pair, pos


def _avg_over_jgs(per_jg, f, p, n_jgs):
    """Mean of fulfilled/possible over *all* JGs (a JG without preferences counts as 0)."""
    s = sum(c[f] / c[p] for c in per_jg.values() if c[p])
    return s / n_jgs if s > 0 else 0.0


def _random_case(rng):
    docs = [f"d{i}" for i in range(rng.randint(2, 9))]
    lines = []
    for jg in range(rng.randint(1, 3)):
        n_sub = rng.choice([1, 1, 2, 3])
        if n_sub == 1:
            chosen = rng.sample(docs, rng.randint(2, len(docs)))
            lines += [(f"u{jg}", "s0", d, float(rng.randint(0, 3))) for d in chosen]
        else:  # consistent sub-groups: levels from one hidden order of the JG
            hidden = {d: rng.randint(1, 4) for d in docs}
            for s in range(n_sub):
                chosen = rng.sample(docs, rng.randint(2, min(4, len(docs))))
                lines += [(f"u{jg}", f"s{s}", d, float(hidden[d])) for d in chosen]
    run = {d: float(rng.randint(0, 5)) for d in rng.sample(docs + ["x1", "x2"], rng.randint(0, len(docs) + 2))}
    return lines, run


@pytest.mark.parametrize("seed", range(150))
def test_counts_and_ratios_match_brute_force(seed):
    rng = random.Random(seed)
    lines, run = _random_case(rng)
    ranked = sorted(run, key=lambda d: (-run[d], d))
    v = _topic(lines, run, complete=True)
    tot, per_jg, pair, pos = _brute(lines, ranked)
    poss = tot["poss_ret"] + tot["poss_imp"] + tot["notoccur"]
    n_jgs = len({ln[0] for ln in lines})
    assert v["prefs_num_prefs_poss"] == poss
    assert v["prefs_num_prefs_ful"] == tot["ful_ret"] + tot["ful_imp"]
    assert v["prefs_num_prefs_ful_ret"] == tot["ful_ret"]
    assert v["prefs_simp"] == pytest.approx((tot["ful_ret"] + tot["ful_imp"]) / poss if poss else 0.0)
    assert v["prefs_simp_ret"] == pytest.approx(tot["ful_ret"] / tot["poss_ret"] if tot["poss_ret"] else 0.0)
    pi = tot["poss_ret"] + tot["poss_imp"]
    assert v["prefs_simp_imp"] == pytest.approx((tot["ful_ret"] + tot["ful_imp"]) / pi if pi else 0.0)
    assert v["prefs_avgjg"] == pytest.approx(_avg_over_jgs(per_jg, "f", "p", n_jgs))
    assert v["prefs_avgjg_ret"] == pytest.approx(_avg_over_jgs(per_jg, "fr", "pr", n_jgs))
    assert v["prefs_avgjg_imp"] == pytest.approx(_avg_over_jgs(per_jg, "fi", "pi", n_jgs))
    fr = {"all": [], "imp": [], "ret": []}
    for (a, b), (n_first, n_second) in pair.items():
        ra, rb = a in pos, b in pos
        frac = n_first / (n_first + n_second)
        if ra and rb:
            for k in fr:
                fr[k].append(frac)
        elif ra or rb:
            fr["all"].append(frac)
            fr["imp"].append(frac)
        else:
            fr["all"].append(0.0)
    for k, name in (("all", "prefs_pair"), ("imp", "prefs_pair_imp"), ("ret", "prefs_pair_ret")):
        assert v[name] == pytest.approx(sum(fr[k]) / len(fr[k]) if fr[k] else 0.0), name
    for name in ALL:
        if PREFS_MEASURES[name].output_kind == "float":
            assert 0.0 <= v[name] <= 1.0, name


def test_pref_counts_docid_ranks():
    """Judged retrieved docs first in run order, then judged unretrieved in docno order."""
    pc = pref_counts([("u", "s", "z", 1), ("u", "s", "m", 0), ("u", "s", "a", 0)], ["q", "m", "x"])
    assert (pc.num_judged, pc.num_judged_ret) == (3, 1)
    assert [list(e) for e in pc.jgs[0].ecs] == [[2], [0, 1]]  # z -> 2; m -> 0, a -> 1


# ----------------------------------------------------------------------------------------
# Readers and CLI


def test_read_prefs_and_qrels_prefs(tmp_path):
    p = tmp_path / "p.txt"
    p.write_text("# comment\n1 u1 s1 a 3\n\n1 u1 s1 b 2.5\n2 u2 s1 c 0\n")
    prefs = read_prefs(p)
    assert prefs.topics == {"1": [("u1", "s1", "a", 3.0), ("u1", "s1", "b", 2.5)], "2": [("u2", "s1", "c", 0.0)]}
    q = tmp_path / "q.txt.gz"
    with gzip.open(q, "wt") as fh:
        fh.write("1 0 a 1\n1 0 b 0\n1 7 a 0\n1 7 b 1\n")
    qp = read_qrels_prefs(q)
    assert qp.topics["1"] == [("0", "0", "a", 1.0), ("0", "0", "b", 0.0), ("7", "0", "a", 0.0), ("7", "0", "b", 1.0)]
    # iter 0 prefers a, iter 7 prefers b: two JGs that disagree
    r = run_from_dict({"1": {"a": 2, "b": 1}})
    res = evaluate_prefs(qp, r, ["prefs_simp", "prefs_pair"])
    assert res.aggregate["prefs_simp"] == pytest.approx(0.5)
    assert res.aggregate["prefs_pair"] == pytest.approx(0.5)


@pytest.mark.parametrize("text,problem,line", [
    ("1 u s a 1\n1 u s b\n", "expected 5", 2),
    ("1 u s a 1\n1 u s b high\n", "not a number", 2),
    ("1 u s a 1\n\n1 u s a 2\n", "repeated in topic '1'", 3),
])
def test_read_prefs_errors_name_file_and_line(tmp_path, text, problem, line):
    p = tmp_path / "bad.prefs"
    p.write_text(text)
    with pytest.raises(MetricsInputError, match=problem) as exc:
        read_prefs(p)
    assert exc.value.line == line and exc.value.path == str(p)


def test_prefs_from_qrels_matches_qrels_prefs_file(tmp_path):
    qd = {"1": {"a": 2, "b": 1, "c": 0}, "2": {"d": 1, "e": 0}}
    f = tmp_path / "q"
    f.write_text("".join(f"{q} 0 {d} {g}\n" for q, dd in qd.items() for d, g in dd.items()))
    r = run_from_dict({"1": {"c": 3, "a": 2, "b": 1}, "2": {"e": 1}})
    a = evaluate_prefs(prefs_from_qrels(qrels_from_dict(qd)), r, "all_prefs")
    b = evaluate_prefs(read_qrels_prefs(f), r, "all_prefs")
    assert a.per_topic == b.per_topic


def test_prefs_from_records_rejects_bad_records():
    with pytest.raises(ValueError, match="repeated"):
        prefs_from_records([("1", "u", "s", "a", 1), ("1", "u", "s", "a", 0)])
    with pytest.raises(ValueError, match="whitespace"):
        prefs_from_records([("1", "u", "s", "a b", 1)])
    with pytest.raises(ValueError, match="expected"):
        prefs_from_records([("1", "u", "a", 1)])


def test_cli_prefs(tmp_path, capsys):
    p = tmp_path / "p"
    p.write_text("1 u s a 2\n1 u s b 1\n1 u s c 0\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 b 1 3 sys\n1 Q0 a 2 2 sys\n1 Q0 c 3 1 sys\n")
    assert main(["-R", "prefs", "-q", "-m", "prefs_simp", "-m", "prefs_num_prefs_poss", str(p), str(r)]) == 0
    out = capsys.readouterr().out.splitlines()
    # a>b failed, a>c and b>c fulfilled
    assert out == ["prefs_num_prefs_poss  \t1\t3", "prefs_simp            \t1\t0.6667",
                   "prefs_num_prefs_poss  \tall\t3", "prefs_simp            \tall\t0.6667"]
    assert main(["-R", "prefs", str(p), str(r)]) == 0
    names = [ln.split("\t")[0].strip() for ln in capsys.readouterr().out.splitlines()]
    assert names == ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                     "prefs_simp", "prefs_pair", "prefs_avgjg"]
    q = tmp_path / "q"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n")
    assert main(["-R", "qrels_prefs", "-m", "prefs_simp", str(q), str(r)]) == 0
    assert capsys.readouterr().out == "prefs_simp            \tall\t0.6667\n"
    assert main(["-R", "prefs", str(q), str(r)]) == 2
    assert "q:1: expected 5" in capsys.readouterr().err
