"""The agreement statistics a lead can pick on the dashboard, and how each is computed.

The heatmap compares two assessors at a time, so every statistic is computed pairwise
exactly as named. Per-topic, over-time and overall values pool all assessors of a group of
items: the two-assessor statistics (percent agreement, Cohen's κ unweighted or weighted,
Scott's π) become their mean over every assessor pair sharing at least two items of the
group — Light's κ for Cohen's κ (agreement.mean_pairwise), named on the page — and
the many-assessor statistics (Fleiss, Krippendorff, Gwet) are computed on the group directly.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StatChoice:
    """One selectable statistic: its label, the pairwise call and the per-group call."""

    key: str
    label: str
    pair: dict
    group: dict
    group_label: str
    extra: dict = field(default_factory=dict)


def _c(key, label, pair, group=None, group_label=None):
    return StatChoice(key, label, pair, group or pair, group_label or label)


CHOICES: dict[str, StatChoice] = {c.key: c for c in (
    _c("cohen", "Cohen's κ", {"statistic": "cohen"}, {"mean_pairwise": "cohen"},
       "Mean pairwise Cohen's κ (Light's κ)"),
    _c("cohen_linear", "Cohen's κ, linear weights", {"statistic": "cohen", "weights": "linear"},
       {"mean_pairwise": "cohen", "weights": "linear"}, "Mean pairwise linear-weighted Cohen's κ"),
    _c("cohen_quadratic", "Cohen's κ, quadratic weights", {"statistic": "cohen", "weights": "quadratic"},
       {"mean_pairwise": "cohen", "weights": "quadratic"}, "Mean pairwise quadratic-weighted Cohen's κ"),
    _c("scott", "Scott's π", {"statistic": "scott"}, {"mean_pairwise": "scott"}, "Mean pairwise Scott's π"),
    _c("percent", "Percent agreement", {"statistic": "percent"}, {"mean_pairwise": "percent"},
       "Mean pairwise percent agreement"),
    _c("fleiss", "Fleiss' κ", {"statistic": "fleiss"}),
    _c("alpha_nominal", "Krippendorff's α (nominal)", {"statistic": "krippendorff", "level": "nominal"}),
    _c("alpha_ordinal", "Krippendorff's α (ordinal)", {"statistic": "krippendorff", "level": "ordinal"}),
    _c("alpha_interval", "Krippendorff's α (interval)", {"statistic": "krippendorff", "level": "interval"}),
    _c("ac1", "Gwet's AC1", {"statistic": "gwet"}),
    _c("ac2", "Gwet's AC2 (quadratic weights)", {"statistic": "gwet", "weights": "quadratic"}),
)}
DEFAULT = "cohen"


def choice(key: str | None) -> StatChoice:
    """Return the named choice, the default (Cohen's κ) for a missing or unknown key."""
    return CHOICES.get(key or DEFAULT, CHOICES[DEFAULT])
