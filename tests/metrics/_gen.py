"""Seeded generators of qrels and runs shared by the metrics tests and the benchmark."""

from __future__ import annotations

import random


def make_case(seed: int, *, n_topics: int = 6, n_docs: int = 40, max_grade: int = 3, ties: bool = False,
              negative: bool = False, missing_topics: bool = True) -> tuple[dict, dict]:
    """Return (qrels, run) dicts; scores are distinct multiples of 1/8 or exact ties."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(n_topics):
        q = f"q{t}"
        docs = [f"d{rng.randrange(10_000)}" for _ in range(n_docs)]
        docs = list(dict.fromkeys(docs))
        judged = rng.sample(docs, k=rng.randint(0, len(docs)))
        grades = {}
        for d in judged:
            g = rng.randint(0, max_grade)
            if negative and rng.random() < 0.1:
                g = -1
            grades[d] = g
        for i in range(rng.randint(0, 5)):  # relevant but never retrieved
            grades[f"u{t}_{i}"] = rng.randint(1, max_grade)
        if grades:
            qrels[q] = grades
        if missing_topics and rng.random() < 0.15:
            continue
        retrieved = rng.sample(docs, k=rng.randint(1, len(docs)))
        if ties:
            run[q] = {d: float(rng.randint(0, 4)) for d in retrieved}
        else:
            scores = rng.sample(range(1, 10 * len(retrieved) + 1), k=len(retrieved))
            run[q] = {d: s / 8.0 for d, s in zip(retrieved, scores)}
    run["extra_topic"] = {"d1": 1.0}
    return qrels, run
