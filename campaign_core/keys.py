"""Keyboard keys for labels: the scale's keys, changed per campaign by its lead, with clash checks.

The default key of each grade comes from the collection's scale (``collections_app.scales``:
each grade may carry a one-character ``key``); a grade without one falls back to its number
when that is one character (the keys qrelsmith always used). A campaign's ``keys`` maps a
grade (as a string, JSON's only key type) to another key. Keys are compared case-insensitively
because the page lower-cases what is pressed, and none may take a key the page already uses
for something else.
"""
from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

RESERVED: dict[str, str] = {
    "s": "can't judge",
    "c": "comment",
    "k": "back",
    "j": "return to current",
    "?": "help",
    " ": "scrolling",
}


def default_key(grade: dict[str, Any]) -> str:
    """Return the scale's key for one grade, or its number when that is a single character, else ""."""
    key = grade.get("key")
    if isinstance(key, str) and len(key) == 1:
        return key
    number = str(grade.get("grade", ""))
    return number if len(number) == 1 else ""


def labels_with_keys(scale: list[dict[str, Any]], overrides: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Return the scale's grades as [{grade, name, key}] with the campaign's keys applied."""
    overrides = overrides or {}
    return [
        {"grade": g["grade"], "name": g["name"], "key": overrides.get(str(g["grade"])) or default_key(g)}
        for g in scale
    ]


def keys_problems(scale: list[dict[str, Any]], overrides: dict[str, str]) -> list[str]:
    """Return what is wrong with a campaign's keys (empty when they can be saved).

    Finds keys that are not one character, grades not on the scale, two grades on one key
    (also when only their case differs) and keys the judging page reserves.
    """
    problems: list[str] = []
    grades = {str(g["grade"]) for g in scale}
    for grade, key in overrides.items():
        if grade not in grades:
            problems.append(f"Grade {grade} is not on this collection's scale.")
        if not isinstance(key, str) or len(key) != 1:
            problems.append(f"Grade {grade}: a key must be exactly one character.")
    if problems:
        return problems
    owner: dict[str, dict[str, Any]] = {}
    for label in labels_with_keys(scale, overrides):
        key = label["key"].lower()
        if not key:
            problems.append(f"“{label['name']}” has no key.")
        elif key in RESERVED:
            problems.append(f"Key “{label['key']}” for “{label['name']}” is already used for {RESERVED[key]}.")
        elif key in owner:
            problems.append(f"Key “{label['key']}” is given to both “{owner[key]['name']}” and “{label['name']}”.")
        else:
            owner[key] = label
    return problems


def validate_keys(scale: list[dict[str, Any]], overrides: dict[str, str]) -> None:
    """Raise ValidationError(code="key_clash") listing every problem of a campaign's keys."""
    problems = keys_problems(scale, overrides)
    if problems:
        raise ValidationError(" ".join(problems), code="key_clash")
