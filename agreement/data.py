"""Turn raw judgments into the tables agreement statistics need: dedupe, binary collapse, rating tables.

Agreement is computed from plain data — ``(item_id, rater_id, label)`` triples or two
aligned label sequences — so this module never touches the database. Labels live on an
ordered scale (the collection's grades, lowest first); every table keeps the *whole* scale,
so an unused grade still sits between its neighbours when distances matter.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import overload

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


@overload
def binarize_labels(labels: Sequence[int], *, threshold: int) -> list[int]: ...
@overload
def binarize_labels(labels: Sequence[int | None], *, threshold: int) -> list[int | None]: ...
def binarize_labels(labels: Sequence[int | None], *, threshold: int) -> list[int | None] | list[int]:
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


class RatingTable:
    """Items × raters table of scale positions after deduplication, stored sparse.

    Only the labels that exist are kept, as three aligned arrays sorted by item then rater:
    ``label_item`` (row), ``label_rater`` (column) and ``label_position`` (scale position). A
    crowd campaign of 20,000 items and 770 workers holds 98,000 labels, not a 15-million-cell
    matrix that is almost all "not judged". ``positions`` gives the dense matrix (−1 = not
    judged) for small tables, worked examples and tests; nothing on the dashboard's path uses it.

    Build one from a dense matrix ``RatingTable(items, raters, positions, categories)`` or from
    the labels with :meth:`from_labels`.
    """

    __slots__ = ("items", "raters", "categories", "duplicates_dropped", "label_item", "label_rater",
                 "label_position", "_dense")

    def __init__(self, items, raters, positions, categories, duplicates_dropped: int = 0):
        dense = np.asarray(positions, dtype=np.int64).reshape(len(items), len(raters))
        rows, cols = np.nonzero(dense >= 0)
        self._set(tuple(items), tuple(raters), tuple(categories), duplicates_dropped, rows, cols, dense[rows, cols])

    def _set(self, items, raters, categories, duplicates_dropped, rows, cols, codes) -> None:
        self.items, self.raters, self.categories = items, raters, categories
        self.duplicates_dropped = duplicates_dropped
        order = np.lexsort((cols, rows))
        self.label_item = np.asarray(rows, dtype=np.int64)[order]
        self.label_rater = np.asarray(cols, dtype=np.int64)[order]
        self.label_position = np.asarray(codes, dtype=np.int64)[order]
        self._dense: np.ndarray | None = None

    @classmethod
    def from_labels(cls, items, raters, rows, cols, codes, categories, duplicates_dropped: int = 0) -> RatingTable:
        """Return the table holding label ``codes[k]`` (a scale position) of item ``rows[k]`` by rater ``cols[k]``.

        Each (row, col) must occur at most once (deduplicate first).
        """
        table = cls.__new__(cls)
        table._set(tuple(items), tuple(raters), tuple(categories), duplicates_dropped, rows, cols, codes)
        return table

    def __eq__(self, other) -> bool:
        if not isinstance(other, RatingTable):
            return NotImplemented
        return (self.items, self.raters, self.categories) == (other.items, other.raters, other.categories) and all(
            np.array_equal(x, y) for x, y in ((self.label_item, other.label_item),
                                              (self.label_rater, other.label_rater),
                                              (self.label_position, other.label_position)))

    __hash__ = None  # type: ignore[assignment]  # equal tables compare by content, so they are unhashable

    def __repr__(self) -> str:
        return (f"RatingTable({len(self.items)} items, {len(self.raters)} raters, {self.label_item.size} labels, "
                f"categories={self.categories!r})")

    @property
    def positions(self) -> np.ndarray:
        """Return the dense items × raters matrix of positions (−1 = not judged); for small tables."""
        if self._dense is None:
            dense = np.full((len(self.items), len(self.raters)), -1, dtype=np.int64)
            dense[self.label_item, self.label_rater] = self.label_position
            self._dense = dense
        return self._dense

    def labels_per_item(self) -> np.ndarray:
        """Return how many raters labelled each item."""
        return np.bincount(self.label_item, minlength=len(self.items))

    def counts(self) -> np.ndarray:
        """Return the items × categories matrix of how many raters chose each category."""
        q = len(self.categories)
        flat = np.bincount(self.label_item * q + self.label_position, minlength=len(self.items) * q)
        return flat.reshape(len(self.items), q).astype(np.int64)

    def column(self, rater: Hashable) -> np.ndarray:
        """Return one rater's positions over all items (-1 where they did not judge)."""
        out = np.full(len(self.items), -1, dtype=np.int64)
        mine = self.label_rater == self.raters.index(rater)
        out[self.label_item[mine]] = self.label_position[mine]
        return out

    def take_items(self, rows: np.ndarray) -> RatingTable:
        """Return the table of the given rows (in that order; each row at most once), with every rater kept."""
        rows = np.asarray(rows, dtype=np.int64)
        new_row = np.full(len(self.items), -1, dtype=np.int64)
        new_row[rows] = np.arange(rows.size)
        keep = new_row[self.label_item] >= 0
        items = np.asarray(self.items, dtype=object)[rows].tolist() if rows.size else []
        return RatingTable.from_labels(items, self.raters, new_row[self.label_item[keep]], self.label_rater[keep],
                                       self.label_position[keep], self.categories, self.duplicates_dropped)

    def take_raters(self, cols: np.ndarray) -> RatingTable:
        """Return the table of the given raters (in that order; each at most once), with every item kept."""
        cols = np.asarray(cols, dtype=np.int64)
        new_col = np.full(len(self.raters), -1, dtype=np.int64)
        new_col[cols] = np.arange(cols.size)
        keep = new_col[self.label_rater] >= 0
        return RatingTable.from_labels(self.items, tuple(self.raters[k] for k in cols.tolist()),
                                       self.label_item[keep], new_col[self.label_rater[keep]],
                                       self.label_position[keep], self.categories, self.duplicates_dropped)

    def with_positions(self, codes: np.ndarray, categories: Sequence[int]) -> RatingTable:
        """Return the same labels recoded (``codes`` aligned with ``label_position``) on another scale."""
        return RatingTable.from_labels(self.items, self.raters, self.label_item, self.label_rater, codes,
                                       categories, self.duplicates_dropped)


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
    codes = encode([label for _, _, label in kept], scale)
    rows = np.array([item_index[item] for item, _, _ in kept], dtype=np.int64)
    cols = np.array([rater_index[rater] for _, rater, _ in kept], dtype=np.int64)
    return RatingTable.from_labels(items, raters, rows, cols, codes, scale, dropped)


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
    return table.with_positions(relevant[table.label_position], BINARY_CATEGORIES)
