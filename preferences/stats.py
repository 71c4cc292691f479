"""Preference statistics as pure functions over (item, topic, assessor, outcome, left_won) rows.

Outcomes are in system terms (+1 A better, 0 tie, -1 B better); placement has already been
undone when the judgment was stored. The sign test ignores ties (the classical convention):
under H0 A and B are equally likely to win a non-tied comparison. The win-rate interval is
the Wilson score interval of wins / (wins + losses) (``scipy.stats.binomtest(...)
.proportion_ci(method="wilson")``, which equals statsmodels' ``proportion_confint(...,
method="wilson")``). The position-bias check asks the same of the left panel.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from scipy.stats import binomtest

from agreement import CI, AgreementResult, agreement


@dataclass(frozen=True)
class Row:
    """One judgment: item and topic ids, assessor id, outcome (+1/0/-1) and the panel answer."""

    item: int
    topic: str
    assessor: int
    outcome: int
    choice: int


@dataclass(frozen=True)
class Tally:
    """Wins/ties/losses of system A against B, with the sign test and the win-rate interval."""

    wins: int
    ties: int
    losses: int
    p_value: float | None
    win_rate: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def n(self) -> int:
        return self.wins + self.ties + self.losses


def tally(outcomes: Iterable[int], *, confidence: float = 0.95) -> Tally:
    """Count outcomes and test wins against losses (two-sided sign test, ties dropped)."""
    outcomes = list(outcomes)
    wins, ties, losses = outcomes.count(1), outcomes.count(0), outcomes.count(-1)
    decided = wins + losses
    if decided == 0:
        return Tally(wins, ties, losses, None, None, None, None)
    test = binomtest(wins, decided, 0.5)
    ci = test.proportion_ci(confidence_level=confidence, method="wilson")
    return Tally(wins, ties, losses, float(test.pvalue), wins / decided, float(ci.low), float(ci.high))


def by_topic(rows: Iterable[Row]) -> dict[str, Tally]:
    """Per-topic tallies, topics in sorted order."""
    groups: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        groups[row.topic].append(row.outcome)
    return {topic: tally(groups[topic]) for topic in sorted(groups)}


def topic_majorities(rows: Iterable[Row]) -> list[int]:
    """Each topic's majority outcome (sign of the summed outcomes): one vote per topic."""
    sums: dict[str, int] = defaultdict(int)
    for row in rows:
        sums[row.topic] += row.outcome
    return [(s > 0) - (s < 0) for _, s in sorted(sums.items())]


def position_bias(rows: Iterable[Row], *, confidence: float = 0.95) -> Tally:
    """How often the left panel wins whatever system it shows: wins = left better, losses = right better."""
    return tally([-row.choice for row in rows], confidence=confidence)


def preference_agreement(rows: Iterable[Row], *, statistic: str = "krippendorff",
                         ci: CI = "bootstrap") -> AgreementResult | None:
    """Agreement between assessors on the outcome (categories -1, 0, +1), via :func:`agreement.agreement`.

    Returns None when no item has two judgments. Krippendorff's α tolerates missing ratings, so
    it works for any overlap design; the result carries the number of items judged at least
    twice, the raw (observed) agreement, a bootstrap interval over items (1000 resamples, seed
    0) and, when α is undefined (e.g. a single outcome everywhere), the reason.
    """
    triples = [(row.item, row.assessor, row.outcome) for row in rows]
    per_item: dict[int, int] = defaultdict(int)
    for item, _, _ in triples:
        per_item[item] += 1
    if not any(n >= 2 for n in per_item.values()):
        return None
    return agreement(triples, statistic=statistic, categories=[-1, 0, 1], ci=ci)
