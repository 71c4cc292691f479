"""Choose the contributing runs of a pool."""
from __future__ import annotations

from collections.abc import Iterable


def runs_choose(
    runs: Iterable[tuple[str, str]], *, tags: Iterable[str] | None = None, max_per_group: int | None = None
) -> list[str]:
    """Return the contributing run tags, sorted by tag, so the same request always picks the same runs.

    ``runs`` are ``(tag, group)`` pairs. ``tags`` keeps only those tags (unknown ones raise
    ``ValueError``). ``max_per_group`` keeps, per group, the first ``n`` runs by tag (byte-wise
    ascending) -- TREC's "at most n runs per group". A run with an empty group is a group of its own.

    >>> runs_choose([("b", "g"), ("a", "g"), ("c", "")], max_per_group=1)
    ['a', 'c']
    """
    groups = dict(runs)
    chosen = sorted(groups)
    if tags is not None:
        wanted = set(tags)
        unknown = sorted(wanted - set(groups))
        if unknown:
            raise ValueError(f"unknown run tag(s): {', '.join(unknown)}")
        chosen = [tag for tag in chosen if tag in wanted]
    if max_per_group is not None:
        if max_per_group < 1:
            raise ValueError("max_per_group must be at least 1")
        seen: dict[str, int] = {}
        kept = []
        for tag in chosen:
            key = groups[tag] or f"\0{tag}"  # empty group: the run is alone in its group
            if seen.get(key, 0) < max_per_group:
                seen[key] = seen.get(key, 0) + 1
                kept.append(tag)
        chosen = kept
    return chosen
