"""Turn raw judgments into the tables agreement statistics need: dedupe, binary collapse, rating tables.

Agreement is computed from plain data — ``(item_id, rater_id, label)`` triples or two
aligned label sequences — so this module never touches the database. Labels live on an
ordered scale (the collection's grades, lowest first); every table keeps the *whole* scale,
so an unused grade still sits between its neighbours when distances matter.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Judgment = tuple[Hashable, Hashable, int | None]

BINARY_CATEGORIES: tuple[int, int] = (0, 1)


def check_categories(categories: Sequence[int]) -> tuple[int, ...]:
    """Return the scale as a tuple; raise ValueError unless it holds at least two distinct grades.

    >>> check_categories([0, 1, 2])
    (0, 1, 2)
    """
    scale = tuple(categories)
    if len(scale) < 2:
        raise ValueError("an agreement scale needs at least two categories")
    if len(set(scale)) != len(scale):
        raise ValueError(f"categories must be distinct, got {scale!r}")
    return scale


def dedupe_judgments(judgments: Iterable[Judgment]) -> tuple[list[Judgment], int]:
    """Keep only the last judgment of each (item, rater) and say how many earlier ones were dropped.

    A rater who judged the same item twice would otherwise count as two raters agreeing
    (or disagreeing) with themselves. Judgments whose label is None (skips) are dropped
    without being counted as duplicates, but a later skip does not erase an earlier label.

    >>> dedupe_judgments([("d1", "ann", 1), ("d1", "ann", 0), ("d2", "ann", 1)])
    ([('d1', 'ann', 0), ('d2', 'ann', 1)], 1)
    """
    last: dict[tuple[Hashable, Hashable], int] = {}
    dropped = 0
    for item, rater, label in judgments:
        if label is None:
            continue
        key = (item, rater)
        if key in last:
            dropped += 1
            del last[key]  # re-insert so the order reflects the kept (last) judgment
        last[key] = label
    return [(item, rater, label) for (item, rater), label in last.items()], dropped


def binarize_labels(labels: Sequence[int | None], *, threshold: int) -> list[int | None]:
    """Collapse graded labels to relevant (1) when grade >= threshold, else 0; None stays missing.

    >>> binarize_labels([0, 1, 2, 3, None, -1], threshold=2)
    [0, 0, 1, 1, None, 0]
    """
    return [None if label is None else int(label >= threshold) for label in labels]


def binarize(judgments: Iterable[Judgment], *, threshold: int) -> list[Judgment]:
    """Return the judgments with grades collapsed at the relevance threshold (use BINARY_CATEGORIES).

    >>> binarize([("d1", "ann", 3), ("d1", "bob", 0)], threshold=1)
    [('d1', 'ann', 1), ('d1', 'bob', 0)]
    """
    return [(item, rater, None if label is None else int(label >= threshold)) for item, rater, label in judgments]


def encode(labels: Iterable[int | None], scale: tuple[int, ...]) -> np.ndarray:
    """Return the positions of labels on the scale (-1 for None); raise ValueError for off-scale labels."""
    position = {grade: index for index, grade in enumerate(scale)}
    out = []
    for label in labels:
        if label is None:
            out.append(-1)
            continue
        try:
            out.append(position[label])
        except (KeyError, TypeError):
            raise ValueError(f"label {label!r} is not on the scale {scale!r}") from None
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True)
class RatingTable:
    """Items × raters matrix of scale positions (-1 = not judged), after deduplication."""

    items: tuple[Hashable, ...]
    raters: tuple[Hashable, ...]
    positions: np.ndarray
    categories: tuple[int, ...]
    duplicates_dropped: int = 0

    def counts(self) -> np.ndarray:
        """Return the items × categories matrix of how many raters chose each category."""
        q = len(self.categories)
        table = np.zeros((len(self.items), q), dtype=np.int64)
        rows, cols = np.nonzero(self.positions >= 0)
        np.add.at(table, (rows, self.positions[rows, cols]), 1)
        return table

    def column(self, rater: Hashable) -> np.ndarray:
        """Return one rater's positions over all items (-1 where they did not judge)."""
        return self.positions[:, self.raters.index(rater)]


def rating_table(judgments: Iterable[Judgment], *, categories: Sequence[int]) -> RatingTable:
    """Build the deduplicated items × raters table of a set of judgments on an ordered scale.

    >>> t = rating_table([("d1", "ann", 1), ("d1", "bob", 0), ("d2", "ann", 1)], categories=[0, 1])
    >>> t.positions.tolist()
    [[1, 0], [1, -1]]
    """
    scale = check_categories(categories)
    kept, dropped = dedupe_judgments(judgments)
    items = tuple(dict.fromkeys(item for item, _, _ in kept))
    raters = tuple(dict.fromkeys(rater for _, rater, _ in kept))
    item_index = {item: i for i, item in enumerate(items)}
    rater_index = {rater: j for j, rater in enumerate(raters)}
    positions = np.full((len(items), len(raters)), -1, dtype=np.int64)
    if kept:
        codes = encode([label for _, _, label in kept], scale)
        rows = [item_index[item] for item, _, _ in kept]
        cols = [rater_index[rater] for _, rater, _ in kept]
        positions[rows, cols] = codes
    return RatingTable(items, raters, positions, scale, dropped)


def confusion_matrix(a: Sequence[int | None], b: Sequence[int | None], *, categories: Sequence[int]) -> np.ndarray:
    """Return the q × q table of counts (rows: rater a's label, columns: rater b's) over items both judged.

    Positions where either label is None are left out, so a and b can be aligned by item
    with gaps for items only one of them judged.

    >>> confusion_matrix([0, 1, 1, None], [0, 1, 0, 1], categories=[0, 1]).tolist()
    [[1, 0], [1, 1]]
    """
    scale = check_categories(categories)
    if len(a) != len(b):
        raise ValueError(f"label sequences differ in length ({len(a)} vs {len(b)})")
    pa, pb = encode(a, scale), encode(b, scale)
    both = (pa >= 0) & (pb >= 0)
    q = len(scale)
    return np.bincount(pa[both] * q + pb[both], minlength=q * q).reshape(q, q)


def table_to_labels(table: Sequence[Sequence[int]], *, categories: Sequence[int]) -> tuple[list[int], list[int]]:
    """Expand a q × q contingency table into two aligned label lists (rows: rater a, columns: rater b).

    Handy for worked examples published as tables.

    >>> table_to_labels([[1, 2], [0, 1]], categories=[0, 1])
    ([0, 0, 0, 1], [0, 1, 1, 1])
    """
    scale = check_categories(categories)
    counts = np.asarray(table, dtype=np.int64)
    if counts.shape != (len(scale), len(scale)) or (counts < 0).any():
        raise ValueError("the table must be a non-negative q × q matrix matching the categories")
    a: list[int] = []
    b: list[int] = []
    for i, gi in enumerate(scale):
        for j, gj in enumerate(scale):
            a.extend([gi] * int(counts[i, j]))
            b.extend([gj] * int(counts[i, j]))
    return a, b


def binarize_table(table: RatingTable, *, threshold: int) -> RatingTable:
    """Return the table with grades collapsed at the relevance threshold onto BINARY_CATEGORIES.

    >>> t = rating_table([("d1", "a", 3), ("d1", "b", 1), ("d2", "a", 0)], categories=[0, 1, 2, 3])
    >>> binarize_table(t, threshold=2).positions.tolist()
    [[1, 0], [0, -1]]
    """
    relevant = np.array([int(grade >= threshold) for grade in table.categories], dtype=np.int64)
    positions = np.where(table.positions >= 0, relevant[np.maximum(table.positions, 0)], -1)
    return RatingTable(table.items, table.raters, positions, BINARY_CATEGORIES, table.duplicates_dropped)
