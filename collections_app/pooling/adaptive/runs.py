"""Run-based strategies: move-to-front and multi-armed bandits over runs.

Each run is an arm; pulling an arm means judging that run's best-ranked unjudged document.
A judgment credits the run that offered the document (the one ``next`` picked); a judgment of
a document this strategy did not hand out (another assessor's, a replay) credits every run
whose unjudged head it was, so the state is the same however the work was shared out.
"""
from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from .base import TopicStrategy


class _ArmStrategy(TopicStrategy):
    def _pick(self, heads: dict[int, str]) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _choose(self, exclude: Collection[str]) -> str | None:
        heads = {}
        for arm in range(len(self.lists)):
            docno = self._head(arm, exclude)
            if docno is not None:
                heads[arm] = docno
        if not heads:
            return None
        arm = self._pick(heads)
        self._source[heads[arm]] = arm
        return heads[arm]

    def _update(self, docno: str, relevant: bool) -> None:
        arm = self._source.pop(docno, None)
        if arm is not None:
            arms = [arm]
        else:
            arms = [a for a in range(len(self.lists)) if self._head_before(a, docno)]
        for a in arms:
            self._reward(a, relevant)

    def _head_before(self, arm: int, docno: str) -> bool:
        ranked = self.lists[arm]
        i = self._ptr[arm]
        while i < len(ranked) and ranked[i] in self.observed and ranked[i] != docno:
            i += 1
        return i < len(ranked) and ranked[i] == docno

    def _reward(self, arm: int, relevant: bool) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class ByRank(_ArmStrategy):
    """Static depth-k order: every run's rank-1 document, then rank 2, ... (runs in tag order).

    Judging the first n documents of this order is depth-k pooling when n is a pool size.
    """

    name = "rank"

    def _choose(self, exclude):
        best = None
        for arm in range(len(self.lists)):
            docno = self._head(arm, exclude)
            if docno is None:
                continue
            rank = self.lists[arm].index(docno, self._ptr[arm])
            if best is None or rank < best[0]:
                best = (rank, docno)
        return None if best is None else best[1]

    def _reward(self, arm, relevant):
        pass


class MoveToFront(_ArmStrategy):
    """Move-to-front pooling (Cormack, Palmer & Clarke 1998).

    Every run starts with the same priority. Judge from the run with the highest priority
    (ties: the run that was used last, then run tag order); keep judging from it while it yields
    relevant documents; when it yields a non-relevant one its priority drops by one, so the
    next run in line takes over.
    """

    name = "mtf"

    def __init__(self, rankings, **kw):
        super().__init__(rankings, **kw)
        self.priority = [0] * len(self.lists)
        self.current: int | None = None

    def _pick(self, heads):
        best = max(self.priority[a] for a in heads)
        if self.current in heads and self.priority[self.current] == best:
            return self.current
        return min(a for a in heads if self.priority[a] == best)

    def _reward(self, arm, relevant):
        self.current = arm
        if not relevant:
            self.priority[arm] -= 1


class UCB1(_ArmStrategy):
    """UCB1 (Auer et al. 2002): pull the arm maximising mean reward + sqrt(2 ln n / n_arm);
    unpulled arms first (run tag order)."""

    name = "ucb"

    def __init__(self, rankings, *, c: float = 2.0, **kw):
        super().__init__(rankings, **kw)
        self.c = c
        self.pulls = [0] * len(self.lists)
        self.hits = [0] * len(self.lists)

    def _pick(self, heads):
        for a in heads:
            if self.pulls[a] == 0:
                return a
        n = sum(self.pulls)

        def score(a):
            return self.hits[a] / self.pulls[a] + math.sqrt(self.c * math.log(n) / self.pulls[a])

        return max(heads, key=lambda a: (score(a), -a))

    def _reward(self, arm, relevant):
        self.pulls[arm] += 1
        self.hits[arm] += relevant


class Thompson(_ArmStrategy):
    """Thompson sampling with Beta(1 + hits, 1 + misses) posteriors per run.

    The draw for ``next`` comes from a generator reseeded from (seed, judged), so asking twice
    without a new judgment gives the same answer and replays are deterministic.
    """

    name = "thompson"

    def __init__(self, rankings, **kw):
        super().__init__(rankings, **kw)
        self.alpha = np.ones(len(self.lists))
        self.beta = np.ones(len(self.lists))

    def _pick(self, heads):
        rng = np.random.default_rng([self.seed, self.judged])
        draws = rng.beta(self.alpha, self.beta)
        return max(heads, key=lambda a: (draws[a], -a))

    def _reward(self, arm, relevant):
        self.alpha[arm] += relevant
        self.beta[arm] += not relevant


class MaxMeanNonStationary(_ArmStrategy):
    """MM-NS: Losada, Parapar & Barreiro's Bayesian bandit for pooling, non-stationary variant.

    Our reading of the paper (IPM 2017, "Multi-armed bandits for adjudicating documents in
    pooling-based evaluation"): each run has a Beta(alpha, beta) posterior on the chance that its
    next document is relevant; "MM" picks the run with the largest posterior *mean*
    alpha / (alpha + beta) (no random draw), and the non-stationary update reflects that a run's
    relevance rate falls as one goes down its ranking, so older evidence is discounted:

        alpha <- 1 + gamma * (alpha - 1) + rel,   beta <- 1 + gamma * (beta - 1) + (1 - rel)

    with ``gamma`` (default 0.9; gamma = 1 is the stationary MM). Ties: run tag order.
    """

    name = "mm_ns"

    def __init__(self, rankings, *, gamma: float = 0.9, **kw):
        super().__init__(rankings, **kw)
        if not 0 < gamma <= 1:
            raise ValueError("gamma must be in (0, 1]")
        self.gamma = gamma
        self.alpha = [1.0] * len(self.lists)
        self.beta = [1.0] * len(self.lists)

    def _pick(self, heads):
        return max(heads, key=lambda a: (self.alpha[a] / (self.alpha[a] + self.beta[a]), -a))

    def _reward(self, arm, relevant):
        g = self.gamma
        self.alpha[arm] = 1 + g * (self.alpha[arm] - 1) + relevant
        self.beta[arm] = 1 + g * (self.beta[arm] - 1) + (not relevant)
