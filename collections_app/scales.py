"""Relevance scales: an ordered list of grades, each with a name and a keyboard key.

A scale is stored on the collection as JSON, e.g.
``[{"grade": 0, "name": "Not relevant", "key": "0"}, ...]``; ``relevant_threshold``
on the collection says which grade counts as relevant for binary measures
(trec_eval's ``-l``). A grade may carry ``"cannot_judge": true``: it means "could not
judge" (a broken page, a foreign language) — it is a label like any other in judgments,
exports and qrels, and agreement can leave it out (``agreement_grades``).

Custom scales are written as a spec (``parse_spec``): ``binary``, ``graded``, or a comma
list of integer grades each optionally named and keyed, ``GRADE[:NAME[:KEY]]``, e.g.
``"-2:broken,0:not relevant,1:relevant,2:highly relevant"``. A grade 0–9 gets its digit as
key unless told otherwise; any other grade gets the first free letter that the judging page
does not already use (``RESERVED_KEYS``: j/k next/previous, s skip, c comment, ? help).
"""
from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

BINARY = "binary"
GRADED = "graded"

PRESETS: dict[str, dict[str, Any]] = {
    BINARY: {
        "label": "Binary 0/1",
        "grades": [
            {"grade": 0, "name": "Not relevant", "key": "0"},
            {"grade": 1, "name": "Relevant", "key": "1"},
        ],
        "relevant_threshold": 1,
    },
    GRADED: {
        "label": "TREC graded 0–3",
        "grades": [
            {"grade": 0, "name": "Not relevant", "key": "0"},
            {"grade": 1, "name": "Related", "key": "1"},
            {"grade": 2, "name": "Highly relevant", "key": "2"},
            {"grade": 3, "name": "Perfectly relevant", "key": "3"},
        ],
        "relevant_threshold": 1,
    },
}


def preset(name: str) -> tuple[list[dict[str, Any]], int]:
    """Return (grades, relevant_threshold) of a named preset; raise ValueError for an unknown name."""
    try:
        chosen = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown scale preset {name!r} (choose from {', '.join(PRESETS)})") from None
    return [dict(grade) for grade in chosen["grades"]], chosen["relevant_threshold"]


RESERVED_KEYS = frozenset("jksc?")
_SPARE_KEYS = [ch for ch in "abdefghilmnopqrtuvwxyz" if ch not in RESERVED_KEYS]
SPEC_HELP = ('binary, graded, or a comma list of GRADE[:NAME[:KEY]], e.g. '
             '"-2:broken,0:not relevant,1:relevant,2:highly relevant"')


def parse_spec(spec: str, *, relevant_threshold: int | None = None,
               cannot_judge: tuple[int, ...] | list[int] = ()) -> tuple[list[dict[str, Any]], int]:
    """Return (grades, relevant_threshold) for a preset name or a custom scale spec.

    The threshold defaults to the preset's, else to the lowest grade above 0 (else the
    highest grade). ``cannot_judge`` lists grades that mean "could not judge". Raises
    ValidationError (codes ``scale_spec``, ``scale_threshold`` and those of validate_scale).

    >>> grades, threshold = parse_spec("-2:broken,0,1:relevant,2", cannot_judge=[-2])
    >>> [(g["grade"], g["name"], g["key"], g.get("cannot_judge", False)) for g in grades], threshold
    ([(-2, 'broken', 'a', True), (0, '0', '0', False), (1, 'relevant', '1', False), (2, '2', '2', False)], 1)
    """
    text = (spec or "").strip()
    if text in PRESETS:
        grades, default = preset(text)
    else:
        grades = []
        for position, part in enumerate(text.split(","), start=1):
            pieces = [piece.strip() for piece in part.split(":")]
            if len(pieces) > 3 or not pieces[0]:
                raise ValidationError(f"Scale item {position} ({part.strip()!r}) must be GRADE[:NAME[:KEY]]; "
                                      f"a scale is {SPEC_HELP}.", code="scale_spec")
            try:
                grade = int(pieces[0])
            except ValueError:
                raise ValidationError(f"Scale item {position}: {pieces[0]!r} is not an integer grade; "
                                      f"a scale is {SPEC_HELP}.", code="scale_spec") from None
            item: dict[str, Any] = {"grade": grade, "name": pieces[1] if len(pieces) > 1 and pieces[1] else str(grade)}
            if len(pieces) == 3 and pieces[2]:
                item["key"] = pieces[2].lower()  # the judging page matches keys in lower case
            grades.append(item)
        taken = {item["key"] for item in grades if "key" in item}
        for item in grades:
            if "key" not in item:
                digit = str(item["grade"])
                if 0 <= item["grade"] <= 9 and digit not in taken:
                    item["key"] = digit
                else:
                    item["key"] = next((ch for ch in _SPARE_KEYS if ch not in taken), "")
                taken.add(item["key"])
        positive = sorted(item["grade"] for item in grades if item["grade"] > 0)
        default = positive[0] if positive else max((item["grade"] for item in grades), default=0)
        grades.sort(key=lambda item: item["grade"])
    wanted = set(cannot_judge)
    known = {item["grade"] for item in grades}
    if wanted - known:
        raise ValidationError(f"'Could not judge' grades {sorted(wanted - known)} are not on the scale.",
                              code="scale_spec")
    for item in grades:
        if item["grade"] in wanted:
            item["cannot_judge"] = True
    threshold = default if relevant_threshold is None else relevant_threshold
    validate_scale(grades)
    if threshold not in known:
        raise ValidationError(f"The relevant threshold {threshold} is not a grade of the scale "
                              f"({', '.join(str(g) for g in sorted(known))}).", code="scale_threshold")
    return grades, threshold


def spec_of(grades: list[dict[str, Any]]) -> str:
    """Return the spec that parse_spec turns back into these grades (names and keys spelled out)."""
    return ",".join(f"{item['grade']}:{item['name']}:{item['key']}" for item in grades)


def agreement_grades(grades: list[dict[str, Any]], *, include_cannot_judge: bool) -> list[int]:
    """Return the grades agreement statistics count; "could not judge" grades only when asked.

    >>> agreement_grades([{"grade": -2, "name": "b", "key": "a", "cannot_judge": True},
    ...                   {"grade": 0, "name": "n", "key": "0"}], include_cannot_judge=False)
    [0]
    """
    return [item["grade"] for item in grades if include_cannot_judge or not item.get("cannot_judge")]


def validate_scale(grades: Any) -> None:
    """Raise ValidationError unless grades is a non-empty list of distinct grades and distinct keys."""
    if not isinstance(grades, list) or not grades:
        raise ValidationError("The scale must be a non-empty list of grades.", code="scale_empty")
    seen_grades: set[int] = set()
    seen_keys: set[str] = set()
    for position, item in enumerate(grades, start=1):
        if (not isinstance(item, dict) or set(item) - {"grade", "name", "key", "cannot_judge"}
                or not {"grade", "name", "key"} <= set(item)):
            raise ValidationError(f"Grade {position} must have 'grade', 'name' and 'key' (and may have "
                                  "'cannot_judge').", code="scale_shape")
        if not isinstance(item.get("cannot_judge", False), bool):
            raise ValidationError(f"Grade {position}: 'cannot_judge' must be true or false.", code="scale_shape")
        if not isinstance(item["name"], str) or not item["name"].strip() or len(item["name"]) > 100:
            raise ValidationError(f"Grade {position}: 'name' must be 1 to 100 characters.", code="scale_name")
        if not isinstance(item["grade"], int) or isinstance(item["grade"], bool):
            raise ValidationError(f"Grade {position}: 'grade' must be an integer.", code="scale_grade")
        if not isinstance(item["key"], str) or len(item["key"]) != 1 or item["key"].isspace():
            raise ValidationError(f"Grade {position}: 'key' must be a single character.", code="scale_key")
        if item["key"].lower() in RESERVED_KEYS:
            raise ValidationError(f"Grade {position}: key {item['key']!r} is taken by the judging page "
                                  f"({', '.join(sorted(RESERVED_KEYS))}).", code="scale_key")
        if item["grade"] in seen_grades:
            raise ValidationError(f"Grade {item['grade']} appears twice.", code="scale_duplicate_grade")
        if item["key"] in seen_keys:
            raise ValidationError(f"Key {item['key']!r} is used twice.", code="scale_duplicate_key")
        seen_grades.add(item["grade"])
        seen_keys.add(item["key"])
    ordered = [item["grade"] for item in grades]
    if ordered != sorted(ordered):
        raise ValidationError("Grades must be listed from lowest to highest.", code="scale_order")


def scale_grades(scale: Any) -> set[int]:
    """Return the grades a stored scale allows (importers check qrels grades against it)."""
    return {item["grade"] for item in scale or [] if isinstance(item, dict) and "grade" in item}
