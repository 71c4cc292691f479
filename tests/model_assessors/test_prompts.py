"""Prompt rendering and answer parsing: the docstring examples and the cases that must never yield a label."""
import doctest
import math

import pytest

from model_assessors import prompts


def test_docstring_examples_hold():
    result = doctest.testmod(prompts)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("text", [
    "", "relevant", "##final score:", "final score: two", "3 or 2", "score 1 and score 2",
    "##final score: 1\n##final score: 2", "##final score: -1", "##final score: 4",
])
def test_answers_without_one_clear_score_on_the_scale_do_not_parse(text):
    parsed = prompts.parse_answer(text, scale=[0, 1, 2, 3])
    assert parsed.label is None and parsed.problem


@pytest.mark.parametrize(("text", "label"), [
    ("##final score: 3", 3), ("Final Score: **2**", 2), ("M: 2, T: 1\n##final score: 1", 1),
    ("##final score: 2\n##final score: 2", 2), ("0.", 0), ("final score = 1", 1),
])
def test_answers_with_one_score_parse_to_it(text, label):
    assert prompts.parse_answer(text, scale=[0, 1, 2, 3]).label == label


def test_the_graded_default_names_the_collections_own_scale():
    _, text = prompts.default_template(binary=False, scale=[0, 1, 2, 3, 4])
    rendered = prompts.render(text, {"query": "q", "document": "d {query} }{", "min_grade": "0", "max_grade": "4"})
    assert "integer scale of 0 to 4" in rendered and "d {query} }{" in rendered
    assert prompts.template_problems(text) == []


def test_label_probabilities_read_the_token_that_carries_the_label_even_inside_a_longer_token():
    content = [{"token": "##final", "logprob": 0.0}, {"token": " score: 1", "logprob": math.log(0.8),
               "top_logprobs": [{"token": " score: 1", "logprob": math.log(0.8)}]}]
    offset = prompts.parse_answer("##final score: 1", scale=[0, 1]).offset
    # The alternative is not a bare number: nothing can be read, so no probabilities rather than a made-up one.
    assert prompts.label_probabilities(content, offset=offset, scale=[0, 1]) == {}
    content[1] = {"token": " score: ", "logprob": 0.0}
    content.append({"token": "1", "logprob": math.log(0.8), "top_logprobs": [
        {"token": "1", "logprob": math.log(0.8)}, {"token": " 0", "logprob": math.log(0.2)}]})
    probabilities = prompts.label_probabilities(content, offset=offset, scale=[0, 1])
    assert probabilities == pytest.approx({0: 0.2, 1: 0.8})
