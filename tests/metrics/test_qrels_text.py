"""The one qrels text codec: strict reading with named lines, canonical writing, and round trips."""
from __future__ import annotations

import doctest
import random

import pytest

import metrics
from metrics import MetricsInputError, qrels_from_text, qrels_to_text
from metrics import qrels_text as module


def test_docstring_examples_hold():
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_reads_labels_skipping_blank_and_comment_lines_and_ignoring_iter():
    text = "# header\n401 0 d1 2\n\n401 Q0 d2 0\n402 7 d1 -2\n"
    assert qrels_from_text(text) == {("401", "d1"): 2, ("401", "d2"): 0, ("402", "d1"): -2}


@pytest.mark.parametrize("text, line, problem", [
    ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 whitespace-separated fields in a qrels line, found 3"),
    ("1 0 d1 1 extra\n", 1, "expected 4 whitespace-separated fields in a qrels line, found 5"),
    ("1 0 d1 1\n\n1 0 d2 high\n", 3, "relevance 'high' is not an integer"),
    ("1 0 d1 1.5\n", 1, "relevance '1.5' is not an integer"),
    ("1 0 d1 1\n1 0 d1 2\n", 2, "duplicate docno 'd1' in topic '1' of the qrels"),
])
def test_a_malformed_line_is_refused_naming_source_line_and_problem(text, line, problem):
    with pytest.raises(MetricsInputError) as caught:
        qrels_from_text(text, name="qrels v2")
    assert (caught.value.path, caught.value.line, caught.value.problem) == ("qrels v2", line, problem)
    assert str(caught.value) == f"qrels v2:{line}: {problem}"


def test_writes_numeric_qids_in_number_order_and_others_as_strings():
    assert qrels_to_text({("10", "a"): 1, ("2", "b"): 0, ("2", "a"): 3}) == "2 0 a 3\n2 0 b 0\n10 0 a 1\n"
    assert qrels_to_text({("10", "a"): 1, ("2", "a"): 1, ("q1", "a"): 0}) == "10 0 a 1\n2 0 a 1\nq1 0 a 0\n"
    assert qrels_to_text({}) == ""


@pytest.mark.parametrize("labels", [{("1", "d 1"): 1}, {("", "d1"): 1}, {("1", "d1"): 1.0}, {("1", "d1"): True},
                                    {("1", "d1"): "1"}])
def test_writing_refuses_labels_that_could_not_be_read_back(labels):
    with pytest.raises(ValueError):
        qrels_to_text(labels)


def test_numpy_integer_grades_are_written_as_integers():
    np = pytest.importorskip("numpy")
    assert qrels_to_text({("1", "d"): np.int64(2)}) == "1 0 d 2\n"


def _generated(rng: random.Random) -> dict[tuple[str, str], int]:
    """Heavy-tailed topics (a few large, many small), mixed qid styles, negative and tied grades."""
    numeric = rng.random() < 0.5
    labels = {}
    for t in range(rng.randint(0, 12)):
        qid = str(rng.randint(1, 999)) if numeric else f"q{t}-{rng.randint(0, 99)}"
        for _ in range(int(rng.paretovariate(1.2) * 3)):
            labels[(qid, f"DOC-{rng.randint(0, 400):04d}")] = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])
    return labels


def test_many_generated_label_sets_round_trip_and_agree_with_the_metrics_reader(tmp_path):
    rng = random.Random(12)
    for case in range(200):
        labels = _generated(rng)
        text = qrels_to_text(labels)
        assert qrels_from_text(text) == labels
        assert qrels_to_text(qrels_from_text(text)) == text  # canonical: one text per label set
        if labels:
            path = tmp_path / f"case{case}.txt"
            path.write_text(text)
            reference = metrics.read_qrels(path).to_dict()
            nested: dict[str, dict[str, int]] = {}
            for (qid, docno), grade in labels.items():
                nested.setdefault(qid, {})[docno] = grade
            assert reference == nested
