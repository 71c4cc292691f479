"""Prompt templates for model assessors: the defaults, rendering a pair, and reading the answer.

No Django here: plain strings in, plain values out, so the rules can be read and tested alone.

- **Templates** are ``str.format`` texts over the placeholders in :data:`PLACEHOLDERS` (literal
  braces are written ``{{`` and ``}}``). The graded default follows UMBRELA (Upadhyay et al.,
  2024, reproducing Thomas et al.'s Bing prompt): the 0–3 meanings, the "split into steps"
  instruction and the ``##final score: N`` answer line. On a scale other than 0–3 the same
  prompt names the collection's own lowest and highest grades. The binary default asks for
  ``##final score: 0`` or ``1``.
- **Parsing never guesses.** The label is the number after ``final score`` (one such number, or
  several that all agree), or an answer that is nothing but one number. Anything else — no
  number, two different numbers, a number off the answer scale — is unparseable (None, with the
  reason), and the caller records a skip with the raw text kept.
- **Label probabilities**: when the endpoint returns log-probabilities, the token that carries
  the parsed number is found in the answer and its alternatives that are themselves grades of
  the answer scale give ``{grade: probability}`` (renormalised over those grades).
"""
from __future__ import annotations

import math
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PLACEHOLDERS: dict[str, str] = {
    "query": "the topic's title (the query)",
    "description": "the topic's description",
    "narrative": "the topic's narrative",
    "title": "the document's title",
    "document": "the document's text (cut at the judge's maximum length)",
    "grades": "the answer scale, e.g. 0, 1, 2, 3",
    "min_grade": "the lowest grade of the answer scale",
    "max_grade": "the highest grade of the answer scale",
}

GRADED_SYSTEM = "You are a search quality rater evaluating the relevance of passages."

UMBRELA_MEANINGS = """0 = represent that the passage has nothing to do with the query,
1 = represents that the passage seems related to the query but does not answer it,
2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, or hidden amongst extraneous information and
3 = represents that the passage is dedicated to the query and contains the exact answer."""

GENERIC_MEANINGS = """{min_grade} = the passage has nothing to do with the query,
higher grades = the passage answers the query more completely and more directly, up to
{max_grade} = the passage is dedicated to the query and contains the exact answer."""

GRADED_USER = """Given a query and a passage, you must provide a score on an integer scale of {min_grade} to {max_grade} with the following meanings:
%s
Important Instruction: assign a middle grade if the passage is somewhat related to the topic but not completely, a higher grade if the passage presents something very important related to the entire topic but also has some extra information, and the highest grade if the passage only and entirely refers to the topic. If none of the above satisfies, give it {min_grade}.

Query: {query}
Description: {description}
Narrative: {narrative}
Passage: {title}
{document}

Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the passage is (T).
Consider the aspects above and the relative importance of each, and decide on a final score (O). Final score must be an integer value only.
Do not provide any code in result. Provide the score in the format of: ##final score: score without providing any reasoning."""

BINARY_USER = """Given a query and a passage, decide whether the passage is relevant to the query: 1 if it contains information that answers or helps answer the query (as the description and narrative explain), 0 if it does not.

Query: {query}
Description: {description}
Narrative: {narrative}
Passage: {title}
{document}

Answer with one line in the format: ##final score: 0 or ##final score: 1, without providing any reasoning."""

_FINAL = re.compile(r"final\s*score\s*[:=：]?\s*[*_`\s]*(-?\d+)", re.IGNORECASE)
_BARE = re.compile(r"^\s*[*_`\s]*(-?\d+)[*_`\s.]*$")


def default_template(*, binary: bool, scale: Sequence[int]) -> tuple[str, str]:
    """Return the default (system, user) texts for a graded or binary judge on a scale.

    >>> "0 = represent" in default_template(binary=False, scale=[0, 1, 2, 3])[1]
    True
    >>> "0 = represent" in default_template(binary=False, scale=[0, 1, 2])[1]
    False
    """
    if binary:
        return GRADED_SYSTEM, BINARY_USER
    meanings = UMBRELA_MEANINGS if tuple(scale) == (0, 1, 2, 3) else GENERIC_MEANINGS
    return GRADED_SYSTEM, GRADED_USER % meanings


def template_problems(text: str) -> list[str]:
    """Return what is wrong with a template text (unknown placeholders, stray braces); empty when fine.

    >>> template_problems("Query: {query} {doc}")
    ['unknown placeholder {doc}; use one of {query}, {description}, {narrative}, {title}, {document}, {grades}, {min_grade}, {max_grade}']
    >>> template_problems("a { b")
    ["expected '}' before end of string (write {{ for a literal brace)"]
    """
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:
        return [f"{exc} (write {{{{ for a literal brace)"]
    known = ", ".join(f"{{{name}}}" for name in PLACEHOLDERS)
    return [f"unknown placeholder {{{name}}}; use one of {known}" for name in dict.fromkeys(fields)
            if name not in PLACEHOLDERS]


def render(text: str, values: Mapping[str, str]) -> str:
    """Fill a template's placeholders; the values (document text included) are inserted, never formatted.

    >>> render("Q: {query} / {document}", {"query": "solar {power}", "document": "d"})
    'Q: solar {power} / d'
    """
    return text.format_map({name: values.get(name, "") for name in PLACEHOLDERS})


def answer_scale(*, binary: bool, scale: Sequence[int]) -> tuple[int, ...]:
    """Return the numbers the prompt asks for: 0 and 1 for a binary prompt, else the collection's grades."""
    return (0, 1) if binary else tuple(scale)


def to_collection_grade(answer: int, *, binary: bool, scale: Sequence[int], threshold: int) -> int:
    """Map an answer onto the collection's scale: a binary 1 is the relevance threshold, 0 the lowest grade.

    >>> to_collection_grade(1, binary=True, scale=[0, 1, 2, 3], threshold=2), to_collection_grade(2, binary=False, scale=[0, 1, 2, 3], threshold=2)
    (2, 2)
    """
    if not binary:
        return answer
    return threshold if answer == 1 else min(scale)


@dataclass(frozen=True)
class Parsed:
    """The number read from an answer (None when it does not parse), where it stands, and why not."""

    label: int | None
    offset: int | None = None
    problem: str = ""


def parse_answer(text: str, *, scale: Sequence[int]) -> Parsed:
    """Read the label from an answer on the given answer scale, or say why there is none.

    >>> parse_answer("##final score: 2", scale=[0, 1, 2, 3]).label
    2
    >>> parse_answer(" 3 ", scale=[0, 1, 2, 3]).label
    3
    >>> parse_answer("I think it is relevant", scale=[0, 1, 2, 3]).problem
    'no final score in the answer'
    >>> parse_answer("final score: 1 ... final score: 3", scale=[0, 1, 2, 3]).problem
    'conflicting scores 1, 3'
    >>> parse_answer("##final score: 7", scale=[0, 1, 2, 3]).problem
    'score 7 is not on the scale 0, 1, 2, 3'
    """
    matches = list(_FINAL.finditer(text or ""))
    if not matches:
        bare = _BARE.match(text or "")
        if bare is None:
            return Parsed(None, problem="no final score in the answer")
        matches = [bare]
    values = sorted({int(m.group(1)) for m in matches})
    if len(values) > 1:
        return Parsed(None, problem="conflicting scores " + ", ".join(map(str, values)))
    value = values[0]
    if value not in scale:
        return Parsed(None, problem=f"score {value} is not on the scale {', '.join(map(str, scale))}")
    return Parsed(value, offset=matches[-1].start(1))


def label_probabilities(content: Sequence[Mapping] | None, *, offset: int | None,
                        scale: Sequence[int]) -> dict[int, float]:
    """Return {answer: probability} from the log-probabilities of the token carrying the label.

    ``content`` is the chat-completions ``choices[0].logprobs.content`` list (``token``,
    ``logprob``, ``top_logprobs``). The token whose characters cover ``offset`` (where the label
    stands in the answer) is the decision; its alternatives that read as a number on the scale
    share the probability, renormalised. Empty when there is nothing to read.

    >>> content = [{"token": "##final score: ", "logprob": 0.0, "top_logprobs": []},
    ...            {"token": "2", "logprob": math.log(0.6), "top_logprobs": [
    ...                {"token": "2", "logprob": math.log(0.6)}, {"token": "1", "logprob": math.log(0.3)},
    ...                {"token": "x", "logprob": math.log(0.1)}]}]
    >>> {k: round(v, 3) for k, v in label_probabilities(content, offset=15, scale=[0, 1, 2, 3]).items()}
    {1: 0.333, 2: 0.667}
    """
    if not content or offset is None:
        return {}
    position = 0
    for token in content:
        text = str(token.get("token", ""))
        if position <= offset < position + len(text):
            weights: dict[int, float] = {}
            alternatives = token.get("top_logprobs") or [token]
            for alt in alternatives:
                word = str(alt.get("token", "")).strip()
                if word.lstrip("-").isdigit() and int(word) in scale:
                    weights[int(word)] = weights.get(int(word), 0.0) + math.exp(float(alt.get("logprob", -math.inf)))
            total = sum(weights.values())
            return {k: v / total for k, v in sorted(weights.items())} if total > 0 else {}
        position += len(text)
    return {}


def uncertainty(probabilities: Mapping[int, float]) -> float | None:
    """Return 1 − the top label's probability (0 = certain); None without probabilities.

    >>> uncertainty({0: 0.25, 1: 0.75}), uncertainty({})
    (0.25, None)
    """
    if not probabilities:
        return None
    return 1.0 - max(probabilities.values())
