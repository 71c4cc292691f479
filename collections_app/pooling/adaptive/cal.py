"""Continuous active learning (Cormack & Grossman's CAL, with HiCAL-style growing batches).

Features: TF-IDF over the topic's pool documents plus the topic text, fitted once when the
strategy is built. The first batch is the documents most similar to the topic text. After
each batch the classifier (scikit-learn logistic regression) is retrained on every judgment so
far, with the topic text as an extra positive and, as in BMI/HiCAL, a few documents drawn at
random from the unjudged pool as presumed negatives (most unjudged documents are not relevant);
the next batch is the top-scored unjudged documents. Batch size starts at 1 and grows by
ceil(size / 10) after each retraining, so a topic of n judgments costs O(log n) trainings.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from .base import TopicStrategy


class ContinuousActiveLearning(TopicStrategy):
    name = "cal"

    def __init__(
        self,
        rankings: Mapping[str, Sequence[str]],
        *,
        query: str = "",
        texts: Mapping[str, str] | None = None,
        presumed_negatives: int = 100,
        C: float = 1.0,
        **kw,
    ):
        super().__init__(rankings, **kw)
        from sklearn.feature_extraction.text import TfidfVectorizer

        texts = texts or {}
        corpus = [texts.get(d, "") or "" for d in self.pool] + [query or ""]
        self.index = {d: i for i, d in enumerate(self.pool)}
        self.presumed_negatives = presumed_negatives
        self.C = C
        try:
            vec = TfidfVectorizer(sublinear_tf=True, min_df=1)
            self.X = vec.fit_transform(corpus)
        except ValueError:  # empty vocabulary: no text at all
            self.X = None
        # Fallback prior: best rank in any run (so no text means depth-k order).
        best: dict[str, int] = {}
        for ranked in self.lists:
            for r, d in enumerate(ranked):
                best[d] = min(best.get(d, r), r)
        self.prior = np.array([-best[d] for d in self.pool], dtype=float)
        self.batch = 1
        self.since_training = 0
        self.trainings = 0
        self.scores = self._initial_scores()

    def _initial_scores(self) -> np.ndarray:
        if self.X is None:
            return self.prior.copy()
        sim = (self.X[:-1] @ self.X[-1].T).toarray().ravel()
        # Similarity first; the rank prior (scaled below any similarity gap) breaks ties.
        return sim + 1e-6 * self.prior / (1 + abs(self.prior).max(initial=0))

    def retrain(self) -> None:
        """Refit the classifier on all judgments so far and rescore the pool."""
        self.trainings += 1
        self.since_training = 0
        self.batch += math.ceil(self.batch / 10)
        labels = self.observed
        if self.X is None or not labels:
            return
        from sklearn.linear_model import LogisticRegression

        rows = [self.index[d] for d in labels]
        y = [int(v) for v in labels.values()]
        rows.append(self.X.shape[0] - 1)  # the topic text as a positive
        y.append(1)
        unjudged = [i for i, d in enumerate(self.pool) if d not in labels]
        if unjudged and self.presumed_negatives:
            rng = np.random.default_rng([self.seed, self.judged])
            k = min(self.presumed_negatives, len(unjudged))
            picks = rng.choice(len(unjudged), size=k, replace=False)
            rows.extend(unjudged[i] for i in sorted(picks))
            y.extend([0] * k)
        if len(set(y)) < 2:
            return
        model = LogisticRegression(C=self.C, max_iter=200)
        model.fit(self.X[rows], y)
        self.scores = model.decision_function(self.X[:-1]) + 1e-6 * self.prior / (
            1 + abs(self.prior).max(initial=0)
        )

    def _choose(self, exclude: Collection[str]) -> str | None:
        best_i, best_s = None, -math.inf
        for i, d in enumerate(self.pool):
            if d in self.observed or d in exclude:
                continue
            s = self.scores[i]
            if s > best_s:  # strict: earlier pool position wins ties
                best_i, best_s = i, s
        return None if best_i is None else self.pool[best_i]

    def _update(self, docno: str, relevant: bool) -> None:
        self.since_training += 1
        if self.since_training >= self.batch:
            self.retrain()
