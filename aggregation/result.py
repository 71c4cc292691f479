"""What every crowd aggregator shares: the votes it works on, how ties break, the result it returns.

Repeated judgments by one worker on one item keep the last. Excluded workers (blocked, or
failed gold) are dropped before anything else, so they never vote, never shape a weight and
never enter EM. Every result says whether its label distribution *collapsed* — one label on
nearly every item although the raw labels are mixed — which one-coin/binary EM variants are
known to do on real crowd data (REFERENCE.md, crowd judging).
"""
from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from agreement.data import Judgment, check_categories, dedupe_judgments, encode

TieRule = Literal["lowest", "highest", "none", "random"]
_TIE_EPS = 1e-9


@dataclass(frozen=True)
class ItemLabel:
    """The aggregate label of one item (None when a tie is left unresolved), with its support."""

    label: int | None
    confidence: float
    n_votes: int
    tied: bool = False
    distribution: Mapping[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Aggregate:
    """Final labels of every item that kept at least one vote, and how they were reached."""

    method: str
    categories: tuple[int, ...]
    labels: Mapping[Hashable, ItemLabel]
    tie_rule: str
    ties: int
    excluded_workers: frozenset
    excluded_judgments: int
    duplicates_dropped: int
    items_without_votes: int
    collapsed: bool
    collapse_reason: str | None
    worker_weights: Mapping[Hashable, float] = field(default_factory=dict)
    worker_accuracy: Mapping[Hashable, float | None] = field(default_factory=dict)
    iterations: int | None = None
    converged: bool | None = None
    log_likelihood: float | None = None
    tolerance: float | None = None
    smoothing: float | None = None

    def label_distribution(self) -> dict[int, int]:
        """Return how many items received each label (unresolved ties left out).

        >>> from aggregation import majority_vote
        >>> votes = [("d1", "w1", 1), ("d1", "w2", 1), ("d2", "w1", 0), ("d3", "w1", 0), ("d3", "w2", 1)]
        >>> majority_vote(votes, categories=[0, 1, 2], tie_rule="none").label_distribution()
        {0: 1, 1: 1, 2: 0}
        """
        out = dict.fromkeys(self.categories, 0)
        for item in self.labels.values():
            if item.label is not None:
                out[item.label] += 1
        return out


@dataclass(frozen=True)
class Votes:
    items: tuple[Hashable, ...]
    workers: tuple[Hashable, ...]
    item_idx: np.ndarray
    worker_idx: np.ndarray
    label_idx: np.ndarray
    scale: tuple[int, ...]
    excluded_judgments: int
    duplicates_dropped: int
    items_without_votes: int
    excluded: frozenset


def prepare_votes(judgments: Iterable[Judgment], categories: Sequence[int], exclude: Collection[Hashable]) -> Votes:
    scale = check_categories(categories)
    excluded = frozenset(exclude)
    kept, dropped = dedupe_judgments(judgments)
    all_items = {item for item, _, _ in kept}
    voting = [(i, w, lab) for i, w, lab in kept if w not in excluded]
    items = tuple(dict.fromkeys(i for i, _, _ in voting))
    workers = tuple(dict.fromkeys(w for _, w, _ in voting))
    item_pos = {item: n for n, item in enumerate(items)}
    worker_pos = {worker: n for n, worker in enumerate(workers)}
    return Votes(
        items=items,
        workers=workers,
        item_idx=np.array([item_pos[i] for i, _, _ in voting], dtype=np.int64),
        worker_idx=np.array([worker_pos[w] for _, w, _ in voting], dtype=np.int64),
        label_idx=encode([lab for _, _, lab in voting], scale),
        scale=scale,
        excluded_judgments=len(kept) - len(voting),
        duplicates_dropped=dropped,
        items_without_votes=len(all_items) - len(items),
        excluded=excluded,
    )


def vote_table(votes: Votes, weights: np.ndarray | None = None) -> np.ndarray:
    table = np.zeros((len(votes.items), len(votes.scale)))
    w = np.ones(len(votes.label_idx)) if weights is None else weights[votes.worker_idx]
    np.add.at(table, (votes.item_idx, votes.label_idx), w)
    return table


def choose_labels(scores: np.ndarray, tie_rule: TieRule, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Return (chosen position or -1, tied flag) per row of a scores matrix."""
    if tie_rule not in ("lowest", "highest", "none", "random"):
        raise ValueError(f"tie_rule must be lowest, highest, none or random, got {tie_rule!r}")
    best = scores.max(axis=1, keepdims=True)
    top = scores >= best - _TIE_EPS * np.maximum(np.abs(best), 1)
    tied = top.sum(axis=1) > 1
    q = scores.shape[1]
    chosen = np.argmax(top, axis=1)  # lowest among the tied
    if tie_rule == "highest":
        chosen = q - 1 - np.argmax(top[:, ::-1], axis=1)
    elif tie_rule == "none":
        chosen = np.where(tied, -1, chosen)
    elif tie_rule == "random":
        for row in np.flatnonzero(tied):
            chosen[row] = rng.choice(np.flatnonzero(top[row]))
    return chosen, tied


def collapse_check(chosen: np.ndarray, votes: Votes, share: float) -> tuple[bool, str | None]:
    """Flag an aggregate where one label covers more than ``share`` of items although the raw labels do not."""
    resolved = chosen[chosen >= 0]
    if resolved.size == 0 or votes.label_idx.size == 0:
        return False, None
    q = len(votes.scale)
    agg = np.bincount(resolved, minlength=q) / resolved.size
    raw = np.bincount(votes.label_idx, minlength=q) / votes.label_idx.size
    top = int(np.argmax(agg))
    if agg[top] > share and raw.max() <= share:
        grade = votes.scale[top]
        return True, (f"{agg[top]:.0%} of items aggregate to label {grade} while only {raw[top]:.0%} "
                      f"of the raw labels are {grade}")
    return False, None


def aggregate_result(method: str, votes: Votes, scores: np.ndarray, *, tie_rule: TieRule, seed: int, collapse_share: float,
            n_votes: np.ndarray, **extra) -> Aggregate:
    rng = np.random.default_rng(seed)
    chosen, tied = choose_labels(scores, tie_rule, rng)
    totals = scores.sum(axis=1)
    shares = scores / np.where(totals > 0, totals, 1)[:, None]
    labels = {}
    for row, item in enumerate(votes.items):
        pos = int(chosen[row])
        labels[item] = ItemLabel(
            label=None if pos < 0 else votes.scale[pos],
            confidence=float(shares[row].max() if pos < 0 else shares[row, pos]),
            n_votes=int(n_votes[row]),
            tied=bool(tied[row]),
            distribution={g: float(s) for g, s in zip(votes.scale, shares[row]) if s > 0},
        )
    collapsed, reason = collapse_check(chosen, votes, collapse_share)
    return Aggregate(method=method, categories=votes.scale, labels=labels, tie_rule=tie_rule, ties=int(tied.sum()),
                     excluded_workers=votes.excluded, excluded_judgments=votes.excluded_judgments,
                     duplicates_dropped=votes.duplicates_dropped, items_without_votes=votes.items_without_votes,
                     collapsed=collapsed, collapse_reason=reason, **extra)
