"""Calibration: the pure comparisons against references, the planner, and the report over a judged campaign."""
from __future__ import annotations

import doctest
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judging.models import Item
from judging.services.qrels import adjudicate, final_labels, qrels_freeze
from model_assessors import calibration
from model_assessors.report import judge_report
from model_assessors.services.runs import run_start
from tests.model_assessors.fake_openai import default_label
from tests.model_assessors.helpers import human_judges


def test_docstring_examples_hold():
    result = doctest.testmod(calibration)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("seed", range(25))
def test_model_against_human_kappa_equals_scikit_learn_on_generated_labels(seed):
    rng = random.Random(seed)
    items = range(rng.randint(5, 60))
    model = {i: rng.choice([0, 1, 2, 3]) for i in items if rng.random() < 0.9}
    human = {i: (model.get(i, 0) if rng.random() < 0.6 else rng.choice([0, 1, 2, 3])) for i in items}
    shared = [i for i in model if i in human]
    result = calibration.compare(model, human, categories=[0, 1, 2, 3], threshold=2, n_boot=20)
    a, b = [model[i] for i in shared], [human[i] for i in shared]
    if result.kappa.value is not None:
        assert result.kappa.value == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3]))
        assert result.kappa_linear.value == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"))
    if result.kappa_binary.value is not None:
        assert result.kappa_binary.value == pytest.approx(
            cohen_kappa_score([int(x >= 2) for x in a], [int(x >= 2) for x in b], labels=[0, 1]))
    assert calibration.confusion(model, human, categories=[0, 1, 2, 3]).sum() == len(shared)


@pytest.mark.parametrize("seed", range(40))
def test_the_planner_finds_the_smallest_number_of_judgments_that_reaches_the_target(seed):
    rng = np.random.default_rng(seed)
    q = int(rng.integers(2, 5))
    table = rng.integers(0, 30, size=(q, q)) + np.diag(rng.integers(1, 40, size=q))
    total = int(rng.integers(10, 300))
    done = int(rng.integers(0, total))
    target = float(rng.uniform(-0.2, 1.0))
    plan = calibration.judgments_for_target_kappa(table, total_pairs=total, human_judged=done, target=target)
    scan = [m for m in range(done, total + 1) if calibration.hybrid_kappa(table, human_share=m / total) >= target - 1e-12]
    assert plan.more_judgments == scan[0] - done
    assert calibration.hybrid_kappa(table, human_share=1.0) == pytest.approx(1.0)


def test_the_planner_refuses_impossible_inputs():
    with pytest.raises(ValueError):
        calibration.judgments_for_target_kappa(np.eye(2), total_pairs=10, human_judged=11, target=0.8)
    with pytest.raises(ValueError):
        calibration.hybrid_kappa(np.zeros((2, 2)), human_share=0.5)


@pytest.mark.django_db
def test_the_report_compares_the_model_with_each_human_and_with_their_adjudicated_labels(
        make_judge, campaign, alice, bob, lead):
    judge = make_judge()
    run_start(judge=judge)
    truth = {f"T1-D{d}": default_label(f"T1-D{d}") for d in range(1, 6)}
    alice_grades = dict(truth, **{"T1-D1": (truth["T1-D1"] + 1) % 4})  # alice disagrees with the model once
    human_judges(campaign, alice, alice_grades)
    human_judges(campaign, bob, {"T2-D1": 0, "T2-D2": 0})
    item = Item.objects.get(campaign=campaign, pair__docno="T1-D1")
    adjudicate(item=item, grade=truth["T1-D1"], note="the model was right", user=lead)
    report = judge_report(judge, n_boot=50)
    names = dict(report.against_humans)
    assert set(names) == {"alice", "bob"}
    assert names["alice"].n_items == 5 and names["alice"].percent.value == pytest.approx(0.8)
    assert names["bob"].n_items == 2
    # Against the reference the adjudication replaces alice's disagreeing label.
    reference = report.against_reference
    assert reference.n_items == 7
    expected = {"T2-D1": default_label("T2-D1"), "T2-D2": default_label("T2-D2")}
    agree = 5 + sum(1 for d, g in expected.items() if g == 0)
    assert reference.percent.value == pytest.approx(agree / 7)
    confusion = np.array(report.confusion)
    assert confusion.sum() == 7 and np.trace(confusion) == agree
    assert [qid for qid, _, _ in report.topics] == ["401", "402"]
    assert report.topics[0][1].n_items == 5
    assert report.plans and all(p.total_pairs == 20 and p.human_judged == 7 for p in report.plans)


@pytest.mark.django_db
def test_the_hybrid_rule_takes_the_humans_label_where_they_judged_and_the_models_elsewhere(
        make_judge, campaign, alice, bob, lead):
    judge = make_judge()
    run_start(judge=judge)
    model = {d: default_label(d) for t in range(1, 5) for d in (f"T{t}-D{n}" for n in range(1, 6))}
    human_judges(campaign, alice, {"T1-D1": 3, "T1-D2": 0})
    human_judges(campaign, bob, {"T1-D3": (model["T1-D3"] + 2) % 4})
    item = Item.objects.get(campaign=campaign, pair__docno="T1-D4")
    adjudicate(item=item, grade=1, note="", user=lead)
    labels = final_labels(campaign=campaign, rule="hybrid")
    by_docno = {docno: grade for (_, docno), grade in labels.items()}
    expected = dict(model, **{"T1-D1": 3, "T1-D2": 0, "T1-D3": (model["T1-D3"] + 2) % 4, "T1-D4": 1})
    assert by_docno == expected
    # Under majority the model is one vote among others: T1-D1 has alice's 3 and the model's own grade (a tie
    # goes to the lowest), which is what "treated like anyone else's" means.
    majority = {docno: grade for (_, docno), grade in final_labels(campaign=campaign, rule="majority").items()}
    assert majority["T1-D1"] == min(3, model["T1-D1"])
    version = qrels_freeze(campaign=campaign, rule="hybrid", description="humans over the model", user=lead)
    assert version.num_judgments == 20 and version.rule == "hybrid"
