"""Sampling estimators: prels format, agreement with trec_eval's infAP, and unbiasedness by simulation."""

import math
import random
import statistics

import pytest

from metrics import evaluate, qrels_from_dict, run_from_dict
from metrics.sampling import (
    Prel,
    estimated_relevant,
    evaluate_sampled,
    format_prels,
    infap,
    infndcg,
    parse_prels,
    read_prels,
    xinfap,
)

# --- generators ---------------------------------------------------------------------------------

def _runs(rng: random.Random, docs: list[str], n_runs: int, depth: int) -> dict[str, list[str]]:
    """Return rankings that share a noisy notion of quality: lower doc index = better."""
    out = {}
    for r in range(n_runs):
        noise = 5 + 15 * r
        scored = sorted(docs, key=lambda d: int(d[1:]) + rng.gauss(0, noise))
        out[f"run{r}"] = scored[:depth]
    return out


def _complete_grades(rng: random.Random, docs: list[str], max_grade: int = 2) -> dict[str, int]:
    grades = {}
    for d in docs:
        p_rel = 0.6 * math.exp(-int(d[1:]) / 60)
        grades[d] = rng.randint(1, max_grade) if rng.random() < p_rel else 0
    return grades


def _pool(rankings: dict[str, list[str]], depth: int) -> dict[str, int]:
    """Return {docno: best rank} over the runs' top depth."""
    best: dict[str, int] = {}
    for ranking in rankings.values():
        for i, d in enumerate(ranking[:depth], start=1):
            best[d] = min(best.get(d, i), i)
    return best


def _sample(rng: random.Random, best: dict[str, int], grades: dict[str, int],
            strata: tuple[tuple[int, float], ...]) -> dict[str, Prel]:
    """Stratified simple random sample without replacement; prob = n/N in each stratum."""
    bands: list[list[str]] = [[] for _ in strata]
    for d, r in sorted(best.items()):
        bands[next(i for i, (last, _) in enumerate(strata) if r <= last)].append(d)
    out = {}
    for i, docs in enumerate(bands):
        if not docs:
            continue
        n = min(len(docs), max(1, round(strata[i][1] * len(docs))))
        drawn = set(rng.sample(docs, n))
        for d in docs:
            out[d] = Prel(grades[d] if d in drawn else -1, f"s{i}", n / len(docs))
    return out


def _true_ap(ranking: list[str], grades: dict[str, int]) -> float:
    rel_total = sum(1 for g in grades.values() if g > 0)
    found, total = 0, 0.0
    for i, d in enumerate(ranking, start=1):
        if grades.get(d, 0) > 0:
            found += 1
            total += found / i
    return total / rel_total


def _true_ndcg(ranking: list[str], grades: dict[str, int], k: int | None) -> float:
    cut = ranking if k is None else ranking[:k]
    dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(cut))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


def _as_run(rankings_by_topic: dict[str, list[str]]):
    return run_from_dict({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings_by_topic.items()})


# --- prels format -------------------------------------------------------------------------------

def test_prels_round_trip_through_text_and_file(tmp_path):
    prels = {"2": {"b": Prel(-1, "11-30", 0.5), "a": Prel(2, "1-10", 1.0)}, "1": {"x": Prel(0, "s", 0.125)}}
    text = format_prels(prels)
    assert text.splitlines()[0] == "1 x 0 s 0.125"
    assert parse_prels(text) == prels
    path = tmp_path / "sample.prels"
    path.write_text("# comment\n\n" + text)
    assert read_prels(path) == prels


@pytest.mark.parametrize("line, message", [
    ("1 d 1 s", "expected"),
    ("1 d x s 0.5", "integer"),
    ("1 d -2 s 0.5", "unsampled"),
    ("1 d 1 s 0", "prob"),
    ("1 d 1 s 1.5", "prob"),
])
def test_prels_reader_rejects_bad_lines_with_the_line_number(line, message):
    with pytest.raises(ValueError, match=message) as err:
        parse_prels("1 ok 1 s 1\n" + line + "\n", path="f")
    assert "f:2" in str(err.value)


def test_prels_reader_rejects_a_duplicate_document():
    with pytest.raises(ValueError, match="duplicate"):
        parse_prels("1 d 1 s 1\n1 d 0 s 1\n")


# --- worked examples ----------------------------------------------------------------------------

def test_infap_worked_example_by_hand():
    # a rel, b unjudged, c nonrel, d rel, e not pooled, f rel -- judged relevant: a, d, f, g
    p = {d: Prel(g, "s", 0.5) for d, g in {"a": 1, "b": -1, "c": 0, "d": 1, "f": 1, "g": 1}.items()}
    got = infap(["a", "b", "c", "d", "e", "f"], p)
    at_d = 1 / 4 + (3 / 4) * (3 / 3) * ((1 + 1e-5) / (2 + 2e-5))
    at_f = 1 / 6 + (5 / 6) * (4 / 5) * ((2 + 1e-5) / (3 + 2e-5))
    assert got == pytest.approx((1 + at_d + at_f) / 4, abs=1e-12)


def test_estimators_are_zero_without_judged_relevant_documents():
    p = {"a": Prel(0, "s", 1.0), "b": Prel(-1, "s", 0.5)}
    assert infap(["a", "b"], p) == xinfap(["a", "b"], p) == infndcg(["a", "b"], p) == 0.0
    assert estimated_relevant(p) == 0.0


def test_bad_arguments_raise_value_error():
    p = {"a": Prel(1, "s", 1.0)}
    with pytest.raises(ValueError):
        infap(["a"], p, level=0)
    with pytest.raises(ValueError):
        infndcg(["a"], p, k=0)
    with pytest.raises(ValueError, match="known"):
        evaluate_sampled({"1": ["a"]}, {"1": p}, measure="statAP")


def test_evaluate_sampled_scores_every_prels_topic_and_zero_for_unretrieved():
    prels = {"1": {"a": Prel(1, "s", 1.0)}, "2": {"b": Prel(1, "s", 1.0)}}
    assert evaluate_sampled({"1": ["a"]}, prels, measure="infAP") == {"1": 1.0, "2": 0.0}


# --- agreement where the estimators coincide with trec_eval --------------------------------------

def _generated_uniform_case(seed: int):
    rng = random.Random(seed)
    rankings, prels, qrels = {}, {}, {}
    for t in range(4):
        docs = [f"d{i}" for i in range(120)]
        grades = _complete_grades(rng, docs)
        runs = _runs(rng, docs, 4, 60)
        best = _pool(runs, rng.choice([10, 20, 40]))
        rate = rng.choice([0.2, 0.5, 1.0])
        p = _sample(rng, best, grades, ((10**9, rate),))
        q = f"q{t}"
        prels[q] = p
        qrels[q] = {d: (x.grade if x.judged else -2) for d, x in p.items()}
        rankings[q] = runs["run3"]  # the noisiest run retrieves many unpooled documents
    return rankings, prels, qrels


@pytest.mark.parametrize("seed", range(25))
def test_infap_and_one_stratum_xinfap_equal_trec_eval_infap(seed):
    rankings, prels, qrels = _generated_uniform_case(seed)
    res = evaluate(qrels_from_dict(qrels), _as_run(rankings), ["infAP"], warn=False)
    for q in prels:
        expected = res.per_topic[q]["infAP"]
        assert infap(rankings[q], prels[q]) == pytest.approx(expected, abs=1e-12)
        assert xinfap(rankings[q], prels[q]) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_infap_equals_pytrec_eval_infap(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rankings, prels, qrels = _generated_uniform_case(seed)
    run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"infAP"}).evaluate(run)
    for q in prels:
        assert infap(rankings[q], prels[q]) == pytest.approx(got[q]["infAP"], abs=1e-6)


@pytest.mark.parametrize("seed", range(10))
def test_with_everything_judged_the_estimators_equal_map_and_ndcg(seed):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(150)]
    grades = _complete_grades(rng, docs)
    ranking = _runs(rng, docs, 3, 100)["run2"]
    prels = {"q": {d: Prel(g, "1-10" if int(d[1:]) < 30 else "rest", 1.0) for d, g in grades.items()}}
    qrels = {"q": grades}
    res = evaluate(qrels_from_dict(qrels), _as_run({"q": ranking}), ["map", "ndcg", "ndcg_cut.10"], warn=False)
    assert xinfap(ranking, prels["q"]) == pytest.approx(res.aggregate["map"], abs=1e-4)  # eps smoothing only
    assert infap(ranking, prels["q"]) == pytest.approx(res.aggregate["map"], abs=1e-4)
    assert infndcg(ranking, prels["q"]) == pytest.approx(res.aggregate["ndcg"], abs=1e-12)
    assert infndcg(ranking, prels["q"], k=10) == pytest.approx(res.aggregate["ndcg_cut_10"], abs=1e-12)


# --- unbiasedness by simulation -----------------------------------------------------------------

STRATA = ((10, 1.0), (30, 0.5), (100, 0.2))
N_SAMPLES = 600


def _simulate(seed: int):
    """Return (true AP, nDCG) per run and the per-sample estimates (xinfAP, infNDCG, naive AP)."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(300)]
    grades = _complete_grades(rng, docs)
    runs = _runs(rng, docs, 5, 100)
    best = _pool(runs, 100)
    pooled_grades = {d: grades[d] for d in best}  # the truth is the complete judgment of the pool
    truth = {t: (_true_ap(r, pooled_grades), _true_ndcg(r, pooled_grades, None)) for t, r in runs.items()}
    est = {t: ([], [], []) for t in runs}
    for _ in range(N_SAMPLES):
        p = _sample(rng, best, pooled_grades, STRATA)
        judged = {d: x.grade for d, x in p.items() if x.judged}
        for t, r in runs.items():
            est[t][0].append(xinfap(r, p))
            est[t][1].append(infndcg(r, p))
            est[t][2].append(_true_ap(r, judged) if any(g > 0 for g in judged.values()) else 0.0)
    return truth, est


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_xinfap_and_infndcg_are_unbiased_over_many_seeded_samples(seed):
    """The mean estimate over 600 stratified samples is within tolerance of the complete-pool value.

    Tolerance: 4 standard errors of the mean (so sampling noise alone fails about 1 in 15,000
    times) plus 0.01 for the estimators' known small bias (ratios of unbiased sums; eps smoothing
    for strata with nothing sampled above a rank). It cannot pass by luck: the same samples
    scored naively (AP over the judged documents only, i.e. condensed AP, unjudged ignored) are
    asserted to miss the truth by more than that tolerance for at least one run, so the test
    distinguishes an estimator that accounts for the sampling from one that does not.
    """
    truth, est = _simulate(seed)
    naive_misses = 0
    for tag, (ap, ndcg) in truth.items():
        xs, ns, naive = est[tag]
        for values, target in ((xs, ap), (ns, ndcg)):
            se = statistics.stdev(values) / math.sqrt(len(values))
            assert abs(statistics.fmean(values) - target) <= 4 * se + 0.01, (tag, target, statistics.fmean(values))
        se = statistics.stdev(naive) / math.sqrt(len(naive))
        naive_misses += abs(statistics.fmean(naive) - ap) > 4 * se + 0.01
    assert naive_misses >= 1


def test_samples_are_not_degenerate():
    """Guard for the simulation: deep strata really are sampled (estimates vary between samples)."""
    _truth, est = _simulate(1)
    assert all(statistics.stdev(est[t][0]) > 0.005 for t in est)
