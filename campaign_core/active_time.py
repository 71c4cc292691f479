"""Active judging time as the browser measures it, sanity-clamped the same way for both campaign kinds.

The judging pages pause their clock while the tab is hidden or idle, so more than two hours
on one item means a broken clock, not a slow assessor; NaN and garbage count as nothing.
"""
from __future__ import annotations

import math

MAX_ACTIVE_SECONDS = 2 * 3600.0


def clamp_seconds(value: object) -> float:
    """Return active seconds clamped to [0, 2 h]; NaN and values that are not numbers become 0.

    >>> clamp_seconds(3.5), clamp_seconds(-1), clamp_seconds(10**9), clamp_seconds("x"), clamp_seconds(float("nan"))
    (3.5, 0.0, 7200.0, 0.0, 0.0)
    """
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    if math.isnan(seconds):
        return 0.0
    return max(0.0, min(seconds, MAX_ACTIVE_SECONDS))
