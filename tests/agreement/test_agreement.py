"""Agreement statistics: worked examples, degenerate cases, data preparation and the dashboard helpers."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreement import (
    BINARY_CATEGORIES,
    NO_OVERLAP,
    ONE_CATEGORY,
    agreement,
    binarize,
    cohen_kappa,
    confusion_matrix,
    dedupe_judgments,
    fleiss_kappa,
    gwet_ac,
    krippendorff_alpha,
    pairwise_matrix,
    per_group,
    percent_agreement,
    rating_table,
    scott_pi,
    table_to_labels,
)
from tests.agreement.cases import (
    GRADES,
    matrix_to_triples,
    triples_from_pair,
    wikipedia_krippendorff_example,
)

# --- worked examples from REFERENCE.md ----------------------------------------------------------

def test_seed000_exercise_8_4_gives_kappa_minus_one_third_for_cohen_and_pooled():
    # 12 documents: P(A) = 1/3 and both judges say relevant on half of them, so P(E) = 1/2.
    a, b = table_to_labels([[2, 4], [4, 2]], categories=[0, 1])
    for result in (cohen_kappa(a, b, categories=[0, 1]), scott_pi(a, b, categories=[0, 1])):
        assert result.raw_agreement == pytest.approx(1 / 3)
        assert result.chance_agreement == pytest.approx(1 / 2)
        assert result.value == pytest.approx(-1 / 3)
        assert result.n_items == 12


def test_iir_table_8_2_pooled_is_0776_and_cohen_is_07761():
    # Rows judge 1 (yes, no), columns judge 2: 300 both yes, 70 both no, 20 and 10 disagreements.
    a, b = table_to_labels([[70, 10], [20, 300]], categories=[0, 1])
    assert round(scott_pi(a, b, categories=[0, 1]).value, 3) == 0.776
    assert round(cohen_kappa(a, b, categories=[0, 1]).value, 4) == 0.7761
    assert cohen_kappa(a, b, categories=[0, 1]).raw_agreement == pytest.approx(0.925)


def test_cohen_and_pooled_differ_when_marginals_differ():
    a, b = table_to_labels([[45, 15], [25, 15]], categories=[0, 1])
    assert round(cohen_kappa(a, b, categories=[0, 1]).value, 4) == 0.1304
    assert round(scott_pi(a, b, categories=[0, 1]).value, 4) == 0.1209


def test_kappa_paradox_skewed_table_gives_low_kappa_but_high_ac1():
    a, b = table_to_labels([[80, 10], [5, 5]], categories=[0, 1])
    kappa = cohen_kappa(a, b, categories=[0, 1])
    ac1 = gwet_ac(triples_from_pair(a, b), categories=[0, 1])
    assert kappa.raw_agreement == pytest.approx(0.85) and ac1.raw_agreement == pytest.approx(0.85)
    assert round(kappa.value, 3) == 0.318
    assert round(ac1.value, 3) == 0.808
    assert kappa.prevalence[0] == pytest.approx(175 / 200)


def test_equal_raw_agreement_gives_higher_kappa_on_a_balanced_table():
    a, b = table_to_labels([[43, 8], [7, 42]], categories=[0, 1])
    assert cohen_kappa(a, b, categories=[0, 1]).raw_agreement == pytest.approx(0.85)
    assert round(cohen_kappa(a, b, categories=[0, 1]).value, 2) == 0.70


def test_krippendorff_wikipedia_example_nominal_0691_interval_0811():
    triples = matrix_to_triples(wikipedia_krippendorff_example())
    nominal = krippendorff_alpha(triples, categories=[1, 2, 3, 4], level="nominal")
    interval = krippendorff_alpha(triples, categories=[1, 2, 3, 4], level="interval")
    assert round(nominal.value, 3) == 0.691
    assert round(interval.value, 3) == 0.811
    assert nominal.n_items == 12  # units with at least two values (3 are judged once or never)
    assert nominal.n_raters == 3


# --- degenerate cases ----------------------------------------------------------------------------

def test_no_overlap_is_undefined_with_reason_not_a_crash():
    result = cohen_kappa([1, None], [None, 0], categories=[0, 1])
    assert result.value is None and result.undefined_reason == NO_OVERLAP and result.n_items == 0
    assert krippendorff_alpha([("d1", "a", 1), ("d2", "b", 0)], categories=[0, 1]).undefined_reason == NO_OVERLAP
    assert fleiss_kappa([], categories=[0, 1]).undefined_reason == NO_OVERLAP
    assert gwet_ac([("d1", "a", 1)], categories=[0, 1]).undefined_reason == NO_OVERLAP


def test_all_labels_identical_is_undefined_never_a_silent_one():
    triples = triples_from_pair([1, 1, 1], [1, 1, 1])
    results = [
        cohen_kappa([1, 1, 1], [1, 1, 1], categories=[0, 1]),
        cohen_kappa([2, 2, 2], [2, 2, 2], categories=GRADES, weights="quadratic"),
        scott_pi([1, 1, 1], [1, 1, 1], categories=[0, 1]),
        fleiss_kappa(triples, categories=[0, 1]),
        krippendorff_alpha(triples, categories=[0, 1]),
        gwet_ac(triples, categories=[0, 1]),
    ]
    for result in results:
        assert result.value is None, result.statistic
        assert result.undefined_reason == ONE_CATEGORY
        assert result.raw_agreement == 1.0
        assert result.n_items == 3


def test_one_assessor_constant_and_the_other_varying_gives_kappa_zero():
    result = cohen_kappa([1, 1, 1, 1], [1, 0, 1, 0], categories=[0, 1])
    assert result.value == pytest.approx(0.0)
    assert result.undefined_reason is None


def test_percent_agreement_stays_defined_when_one_category_is_used():
    assert percent_agreement([1, 1], [1, 1], categories=[0, 1]).value == 1.0


def test_off_scale_label_is_rejected():
    with pytest.raises(ValueError, match="not on the scale"):
        cohen_kappa([0, 5], [0, 1], categories=[0, 1])
    with pytest.raises(ValueError, match="two categories"):
        cohen_kappa([0], [0], categories=[0])


# --- data preparation ---------------------------------------------------------------------------

def test_repeated_judgments_by_one_rater_keep_the_last_and_are_counted():
    judgments = [("d1", "a", 1), ("d1", "b", 1), ("d1", "a", 0), ("d2", "a", 1), ("d2", "b", 1), ("d2", "b", 1)]
    kept, dropped = dedupe_judgments(judgments)
    assert dropped == 2
    assert ("d1", "a", 0) in kept and ("d1", "a", 1) not in kept
    result = agreement(judgments, statistic="cohen", categories=[0, 1])
    assert result.duplicates_dropped == 2
    assert result.n_items == 2 and result.raw_agreement == 0.5


def test_binary_collapse_at_the_threshold_changes_graded_disagreement_into_agreement():
    judgments = triples_from_pair([0, 2, 3, 1, 0], [0, 3, 2, 0, 1])
    graded = agreement(judgments, statistic="cohen", categories=GRADES)
    binary = agreement(binarize(judgments, threshold=2), statistic="cohen", categories=BINARY_CATEGORIES)
    assert graded.raw_agreement == pytest.approx(0.2)
    assert binary.raw_agreement == pytest.approx(1.0)
    assert binary.value == pytest.approx(1.0)


def test_confusion_matrix_counts_only_items_both_judged():
    matrix = confusion_matrix([0, 3, 3, None, 1], [0, 2, 3, 1, None], categories=GRADES)
    assert matrix.sum() == 3
    assert matrix[3, 2] == 1 and matrix[3, 3] == 1 and matrix[0, 0] == 1


# --- helpers for the dashboard -------------------------------------------------------------------

def test_pairwise_matrix_gives_kappa_and_overlap_for_every_pair():
    rng = np.random.default_rng(8)
    judgments = []
    for item in range(40):
        truth = int(rng.integers(0, 4))
        for rater in ("ann", "bob", "cat"):
            if rater == "cat" and item >= 10:
                continue
            label = truth if rng.random() < 0.7 else int(rng.integers(0, 4))
            judgments.append((item, rater, label))
    judgments.append((99, "dan", 2))
    matrix = pairwise_matrix(judgments, categories=GRADES, statistic="cohen", weights="quadratic")
    assert matrix.raters == ("ann", "bob", "cat", "dan")
    overlaps = matrix.overlaps()
    assert overlaps[0, 1] == 40 and overlaps[0, 2] == 10 and overlaps[0, 3] == 0
    ann = [lab for _, r, lab in judgments if r == "ann"]
    bob = [lab for _, r, lab in judgments if r == "bob"]
    assert matrix.values()[0, 1] == pytest.approx(cohen_kappa_score(ann, bob, labels=GRADES, weights="quadratic"))
    assert np.isnan(matrix.values()[0, 3])
    assert matrix.results[("ann", "dan")].undefined_reason == NO_OVERLAP
    floored = pairwise_matrix(judgments, categories=GRADES, min_overlap=20)
    assert floored.results[("ann", "cat")].value is None
    assert "minimum 20" in floored.results[("ann", "cat")].undefined_reason


def test_per_group_computes_agreement_per_topic():
    judgments = triples_from_pair([0, 1, 0, 1], [0, 1, 0, 1]) + [
        (("t2", i), r, lab) for i, (r, lab) in enumerate([("a", 0), ("b", 1)])]
    judgments = [((("t1", i) if not isinstance(i, tuple) else i), r, lab) for i, r, lab in judgments]
    by_topic = per_group(judgments, key=lambda item: item[0], categories=[0, 1], statistic="cohen")
    assert by_topic["t1"].value == pytest.approx(1.0)
    assert by_topic["t2"].value is None and by_topic["t2"].undefined_reason == NO_OVERLAP


def test_agreement_dispatches_by_name_and_rejects_pair_statistics_on_three_raters():
    triples = [(i, r, (i + (r == "c")) % 2) for i in range(6) for r in ("a", "b", "c")]
    assert agreement(triples, statistic="fleiss", categories=[0, 1]).n_raters == 3
    with pytest.raises(ValueError, match="pairwise_matrix"):
        agreement(triples, statistic="cohen", categories=[0, 1])
    with pytest.raises(ValueError, match="unknown statistic"):
        agreement(triples, statistic="kendall", categories=[0, 1])


def test_rating_table_keeps_the_whole_scale_and_marks_missing():
    table = rating_table([("d1", "a", 3), ("d2", "b", 0)], categories=GRADES)
    assert table.positions.tolist() == [[3, -1], [-1, 0]]
    assert table.counts().tolist() == [[0, 0, 0, 1], [1, 0, 0, 0]]


def test_threshold_gives_binary_agreement_from_graded_judgments_in_every_helper():
    rng = np.random.default_rng(23)
    judgments = []
    for item in range(60):
        truth = int(rng.integers(0, 4))
        for rater in ("ann", "bob", "cat"):
            judgments.append(((item % 3, item), rater, truth if rng.random() < 0.6 else int(rng.integers(0, 4))))
    collapsed = binarize(judgments, threshold=2)
    for statistic in ("fleiss", "krippendorff", "gwet"):
        direct = agreement(judgments, statistic=statistic, categories=GRADES, threshold=2, ci=None)
        assert direct.value == pytest.approx(agreement(collapsed, statistic=statistic, categories=[0, 1], ci=None).value)
    matrix = pairwise_matrix(judgments, categories=GRADES, threshold=2)
    ann = [lab for _, r, lab in collapsed if r == "ann"]
    bob = [lab for _, r, lab in collapsed if r == "bob"]
    assert matrix.values()[0, 1] == pytest.approx(cohen_kappa_score(ann, bob))
    assert matrix.overlaps().diagonal().tolist() == [60, 60, 60]
    by_topic = per_group(judgments, key=lambda item: item[0], categories=GRADES, statistic="gwet", threshold=2)
    assert set(by_topic) == {0, 1, 2} and all(r.n_items == 20 for r in by_topic.values())


def test_mean_agreement_of_a_rater_weights_pairs_by_shared_items_and_skips_undefined_pairs():
    judgments = (
        [(i, "ann", i % 2) for i in range(30)]
        + [(i, "bob", i % 2) for i in range(10)]  # perfect with ann on 10 items
        + [(i, "cat", 1) for i in range(30)]  # constant: κ = 0 with ann on 30 items
        + [(100, "dan", 1)]  # shares nothing
    )
    matrix = pairwise_matrix(judgments, categories=[0, 1])
    assert matrix.mean_agreement("ann") == pytest.approx((1.0 * 10 + 0.0 * 30) / 40)
    assert matrix.mean_agreement("dan") is None


def test_per_group_pair_statistic_on_a_group_with_three_raters_is_undefined_not_a_crash():
    judgments = [(("t1", i), r, i % 2) for i in range(4) for r in ("a", "b")]
    judgments += [(("t2", i), r, i % 2) for i in range(4) for r in ("a", "b", "c")]
    by_topic = per_group(judgments, key=lambda item: item[0], categories=[0, 1], statistic="cohen")
    assert by_topic["t1"].value == pytest.approx(1.0)
    assert by_topic["t2"].value is None and "3 raters" in by_topic["t2"].undefined_reason
    assert by_topic["t2"].n_items == 4
