"""The shared shape of an adaptive judging strategy for one topic.

A strategy sees each run's ranked list for one topic and the judgments made so far, and names
the next document to judge. The pool it draws from is the union of the runs' top ``depth``
documents, so exhausting any strategy judges exactly that pool, each document once.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


class TopicStrategy:
    """Base class: keeps the runs, the pool and what has been observed.

    Subclasses implement ``_choose(exclude)`` (return a docno not observed and not excluded, or
    None) and may extend ``observe``. ``next`` never returns an observed or excluded document.
    """

    name = "base"

    def __init__(self, rankings: Mapping[str, Sequence[str]], *, seed: int = 0, depth: int | None = None):
        if depth is not None and depth < 1:
            raise ValueError("depth must be at least 1 (or None for the whole ranking)")
        # Runs in tag order so the caller's dict order never changes the answers.
        self.runs: list[str] = sorted(rankings)
        self.lists: list[list[str]] = []
        for tag in self.runs:
            seen: set[str] = set()
            ranked = []
            for docno in rankings[tag]:
                if docno not in seen:  # a run listing a document twice counts it once
                    seen.add(docno)
                    ranked.append(docno)
            self.lists.append(ranked[:depth] if depth is not None else ranked)
        self.pool: list[str] = []
        in_pool: set[str] = set()
        for ranked in self.lists:
            for docno in ranked:
                if docno not in in_pool:
                    in_pool.add(docno)
                    self.pool.append(docno)
        self.pool_set = in_pool
        self.seed = seed
        self.observed: dict[str, bool] = {}
        # Which run offered each handed-out document (for crediting the right arm).
        self._source: dict[str, int] = {}
        self._ptr = [0] * len(self.lists)

    @property
    def judged(self) -> int:
        """Number of pool documents observed so far."""
        return len(self.observed)

    @property
    def relevant_found(self) -> int:
        return sum(self.observed.values())

    def next(self, exclude: Collection[str] = ()) -> str | None:
        """The docno to judge next (never observed, never in ``exclude``); None when none is left."""
        return self._choose(exclude)

    def observe(self, docno: str, relevant: bool) -> None:
        """Record a judgment; documents outside the pool and repeats are ignored."""
        if docno not in self.pool_set or docno in self.observed:
            return
        self.observed[docno] = bool(relevant)
        self._update(docno, bool(relevant))

    def upcoming(self, k: int, exclude: Collection[str] = ()) -> list[str]:
        """The next ``k`` documents this strategy would hand out if no new judgment arrived
        (used to write priorities for a whole queue in one go)."""
        taken = set(exclude)
        out: list[str] = []
        while len(out) < k:
            docno = self._choose(taken)
            if docno is None:
                break
            out.append(docno)
            taken.add(docno)
        return out

    # -- helpers for run-based strategies ---------------------------------------------------
    def _head(self, arm: int, exclude: Collection[str]) -> str | None:
        """The first document of run ``arm`` neither observed nor excluded."""
        ranked = self.lists[arm]
        i = self._ptr[arm]
        while i < len(ranked) and ranked[i] in self.observed:
            i += 1
        self._ptr[arm] = i  # observed documents never come back, so skipping them is permanent
        while i < len(ranked):
            docno = ranked[i]
            if docno not in self.observed and docno not in exclude:
                return docno
            i += 1
        return None

    def _choose(self, exclude: Collection[str]) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _update(self, docno: str, relevant: bool) -> None:
        """Hook for subclasses; called once per newly observed pool document."""
