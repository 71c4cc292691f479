"""Stopping aid: how many relevant documents are probably still unfound in a topic's pool.

Estimator (deliberately simple and conservative). Adaptive orders judge the likeliest
documents first, so the rate of relevant documents among the judgments falls along the
discovery curve, and the rate over the most recent ``window`` judgments is an upper estimate of
the rate among the documents not judged yet. Remaining relevant is estimated as

    remaining = rate_recent * unjudged,   rate_recent = k / w

(k relevant among the last w judgments), with a Clopper-Pearson interval (level ``level``) on
the rate scaled the same way. Below ``min_judged`` judgments there is not enough data and the
function says so instead of guessing. The estimate never exceeds the unjudged count and is 0
when the pool is exhausted.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RemainingEstimate:
    judged: int
    found: int
    unjudged: int
    enough_data: bool
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    window: int = 0
    recent_relevant: int = 0

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def clopper_pearson(k: int, n: int, *, level: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval for k successes in n trials.

    >>> clopper_pearson(0, 10)[0]
    0.0
    """
    from scipy.stats import beta

    if not 0 <= k <= n or n < 1:
        raise ValueError("need 0 <= k <= n and n >= 1")
    a = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))
    return low, high


def estimate_remaining(
    labels: Sequence[bool],
    *,
    unjudged: int,
    window: int = 50,
    min_judged: int = 20,
    level: float = 0.95,
) -> RemainingEstimate:
    """Estimate unfound relevant documents from the labels in judging order (see module doc).

    >>> e = estimate_remaining([True] * 10 + [False] * 40, unjudged=100, window=20)
    >>> (e.estimate, e.recent_relevant)
    (0.0, 0)
    """
    if unjudged < 0 or window < 1 or min_judged < 1:
        raise ValueError("unjudged must be >= 0, window and min_judged >= 1")
    judged, found = len(labels), sum(bool(x) for x in labels)
    if unjudged == 0:
        return RemainingEstimate(judged, found, 0, True, 0.0, 0.0, 0.0)
    if judged < min_judged:
        return RemainingEstimate(judged, found, unjudged, False)
    recent = labels[-window:]
    w, k = len(recent), sum(bool(x) for x in recent)
    lo, hi = clopper_pearson(k, w, level=level)
    return RemainingEstimate(judged, found, unjudged, True, k / w * unjudged, lo * unjudged, hi * unjudged, w, k)
