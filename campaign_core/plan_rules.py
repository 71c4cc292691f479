"""The rules both campaign kinds' plans share (seed, lease, gold, crowd), each problem named by its option.

``judging.plan.CampaignPlan`` and ``preferences.plan.PrefPlan`` are each validated once, when
they are made; the options they have in common obey the same limits, written here once. A
problem is ``(option, ValidationError)``: the flat option name the form field and the API field
carry, so both show the message beside its input. ``number_input`` turns a limit into the
browser's hint (the plan, not the form field, refuses a value outside it).
"""
from __future__ import annotations

from collections.abc import Iterable

from django import forms
from django.core.exceptions import ValidationError

MAX_INT = 2**31 - 1  # the columns are 32-bit integers: refuse what the database would refuse with a 500
LEASE_SECONDS = (30, 24 * 3600)
MAX_GOLD_RATE = 0.5
MAX_CROWD_BATCH = 1000

Problem = tuple[str, ValidationError]


def problem(option: str, message: str, code: str) -> Problem:
    return option, ValidationError(message, code=code)


def raise_problems(problems: Iterable[Problem]) -> None:
    """Raise one ValidationError listing every problem under its option's name (nothing if there is none)."""
    by_option: dict[str, list[ValidationError]] = {}
    for option, error in problems:
        by_option.setdefault(option, []).append(error)
    if by_option:
        raise ValidationError(by_option)


def order_problems(*, seed: int, lease_seconds: int) -> list[Problem]:
    """Refuse a seed that does not fit its column and a lease shorter than a glance or longer than a day."""
    found = []
    if not -MAX_INT - 1 <= seed <= MAX_INT:
        found.append(problem("seed", f"The seed must be between {-MAX_INT - 1} and {MAX_INT}.", "bad_size"))
    low, high = LEASE_SECONDS
    if not low <= lease_seconds <= high:
        found.append(problem("lease_seconds", f"Leases last between {low} and {high} s.", "bad_size"))
    return found


def gold_problems(*, rate: float, accuracy_threshold: float) -> list[Problem]:
    """Refuse a gold share above half of anyone's work and a threshold that is not a share."""
    found = []
    if not 0.0 <= rate <= MAX_GOLD_RATE:
        found.append(problem("gold_rate", f"The gold rate must lie in [0, {MAX_GOLD_RATE}].", "bad_fraction"))
    if not 0.0 <= accuracy_threshold <= 1.0:
        found.append(problem("gold_accuracy_threshold", "The gold accuracy threshold must lie in [0, 1].",
                             "bad_fraction"))
    return found


def crowd_problems(*, batch_size: int, max_workers: int, max_new_per_ip_hour: int, unit: str) -> list[Problem]:
    """Refuse an empty or huge crowd batch (of ``unit``: pairs, items) and negative entry caps."""
    found = []
    if not 1 <= batch_size <= MAX_CROWD_BATCH:
        found.append(problem("crowd_batch_size", f"A crowd batch holds between 1 and {MAX_CROWD_BATCH} {unit}.",
                             "bad_size"))
    for option, value in (("crowd_max_workers", max_workers), ("crowd_max_new_per_ip_hour", max_new_per_ip_hour)):
        if not 0 <= value <= MAX_INT:
            found.append(problem(option, "Crowd caps cannot be negative (0 means no limit).", "bad_size"))
    return found


def number_input(low: float | None = None, high: float | None = None) -> forms.NumberInput:
    """A number input whose min/max are only the browser's hint: the plan is what refuses a value."""
    return forms.NumberInput(attrs={name: value for name, value in (("min", low), ("max", high)) if value is not None})
