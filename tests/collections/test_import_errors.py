from collections_app.importers.errors import MAX_PROBLEMS, ImportFailed, ImportProblem, ProblemList
from collections_app.importers.summary import ImportSummary


def test_problem_names_file_and_line_or_only_the_file():
    assert str(ImportProblem("a.run", 3, "expected 6 columns, found 5")) == "a.run:3: expected 6 columns, found 5"
    assert str(ImportProblem("a.run", None, "the file has no run lines")) == "a.run: the file has no run lines"


def test_many_problems_are_capped_with_a_count_of_the_rest():
    problems = ProblemList()
    for line in range(1, 121):
        problems.add("big.run", line, "bad")
    try:
        problems.raise_if_any()
    except ImportFailed as exc:
        assert len(exc.problems) == MAX_PROBLEMS
        assert str(exc).endswith(f"... and {120 - MAX_PROBLEMS} more problems")
        assert exc.code == "invalid_file"
    else:
        raise AssertionError("ImportFailed was not raised")


def test_first_specific_code_wins():
    problems = ProblemList()
    problems.add("a", 1, "x", code="unknown_topic")
    problems.add("a", 2, "y", code="bad_score")
    assert ImportFailed(problems.items, code=problems.code).code == "unknown_topic"


def test_summary_line_mentions_replacements_and_warnings():
    assert ImportSummary(kind="topics", created=3, lines=3).line() == "topics: 3 created from 3 lines"
    summary = ImportSummary(kind="runs", created=1, replaced=2, lines=9, warnings=["w1", "w2", "w3", "w4"])
    assert summary.line() == "runs: 1 created, 2 replaced from 9 lines; 4 warnings: w1; w2; w3; ... 1 more"
