"""Label sets shared by the agreement tests: aligned pairs as triples, generated noisy raters, a published example."""
from __future__ import annotations

import numpy as np

GRADES = [0, 1, 2, 3]


def triples_from_pair(a, b):
    return [(i, "a", x) for i, x in enumerate(a)] + [(i, "b", y) for i, y in enumerate(b)]


def wikipedia_krippendorff_example():
    # Krippendorff's published example (Wikipedia "Krippendorff's alpha"): 3 coders, 15 units, gaps.
    nan = np.nan
    return np.array([
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ])


def matrix_to_triples(data):
    return [(u, c, int(data[c, u])) for c in range(data.shape[0]) for u in range(data.shape[1])
            if not np.isnan(data[c, u])]


def noisy_pair(rng, n, q, flip):
    truth = rng.integers(0, q, size=n)
    a = np.where(rng.random(n) < flip, rng.integers(0, q, size=n), truth)
    b = np.where(rng.random(n) < flip, rng.integers(0, q, size=n), truth)
    return a, b
