"""The agreement statistics a lead can pick on the dashboard, and how each is computed.

The heatmap compares two assessors at a time, so every statistic is computed pairwise
exactly as named. Per-topic and over-time values pool all assessors of a group of items;
the two-rater statistics (percent agreement, Cohen's κ, Scott's π) are then replaced by their
multi-rater counterpart, named on the page: observed agreement over label pairs for percent,
Fleiss' κ (Scott's π generalised) for unweighted Cohen/Scott, Krippendorff's α ordinal for
linear weights and α interval for quadratic weights (quadratic-weighted κ and interval α
coincide asymptotically). A mean of per-pair values inside each topic would cost 190 pair
computations per topic for 20 assessors and rest on a handful of shared items per pair.
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
    _c("cohen", "Cohen's κ", {"statistic": "cohen"}, {"statistic": "fleiss"}, "Fleiss' κ"),
    _c("cohen_linear", "Cohen's κ, linear weights", {"statistic": "cohen", "weights": "linear"},
       {"statistic": "krippendorff", "level": "ordinal"}, "Krippendorff's α (ordinal)"),
    _c("cohen_quadratic", "Cohen's κ, quadratic weights", {"statistic": "cohen", "weights": "quadratic"},
       {"statistic": "krippendorff", "level": "interval"}, "Krippendorff's α (interval)"),
    _c("scott", "Scott's π", {"statistic": "scott"}, {"statistic": "fleiss"}, "Fleiss' κ"),
    _c("percent", "Percent agreement", {"statistic": "percent"}, {"statistic": "fleiss", "observed": True},
       "Observed agreement (share of agreeing label pairs)"),
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
