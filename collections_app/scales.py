"""Relevance scales: an ordered list of grades, each with a name and a keyboard key.

A scale is stored on the collection as JSON, e.g.
``[{"grade": 0, "name": "Not relevant", "key": "0"}, ...]``; ``relevant_threshold``
on the collection says which grade counts as relevant for binary measures
(trec_eval's ``-l``).
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


def validate_scale(grades: Any) -> None:
    """Raise ValidationError unless grades is a non-empty list of distinct grades and distinct keys."""
    if not isinstance(grades, list) or not grades:
        raise ValidationError("The scale must be a non-empty list of grades.", code="scale_empty")
    seen_grades: set[int] = set()
    seen_keys: set[str] = set()
    for position, item in enumerate(grades, start=1):
        if not isinstance(item, dict) or set(item) - {"grade", "name", "key"} or not {"grade", "name", "key"} <= set(item):
            raise ValidationError(f"Grade {position} must have exactly 'grade', 'name' and 'key'.", code="scale_shape")
        if not isinstance(item["grade"], int) or isinstance(item["grade"], bool):
            raise ValidationError(f"Grade {position}: 'grade' must be an integer.", code="scale_grade")
        if not isinstance(item["key"], str) or len(item["key"]) != 1:
            raise ValidationError(f"Grade {position}: 'key' must be a single character.", code="scale_key")
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
