"""Pairwise significance between a collection's runs: seeded randomization tests, Holm-corrected."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from metrics import EvaluationResult
from metrics.significance import compare_all

MAX_RUNS = 20  # 190 pairs × 10,000 sign flips stays interactive; more runs → the top ones by the measure


@dataclass
class Cell:
    """One ordered pair of the matrix: row run minus column run."""

    run_a: str
    run_b: str
    mean_difference: float
    p_value: float
    p_holm: float
    effect_size: float | None
    significant: bool
    n_topics: int


@dataclass
class Matrix:
    measure: str
    runs: list[str]
    cells: list[Cell]
    total_runs: int
    seed: int
    n_permutations: int
    alpha: float

    def cell(self, a: str, b: str) -> Cell | None:
        for c in self.cells:
            if c.run_a == a and c.run_b == b:
                return c
        return None

    def grid(self) -> list[tuple[str, list[Cell | None]]]:
        """Return rows of the full square matrix (lower triangle mirrored: differences negated)."""
        by_pair = {(c.run_a, c.run_b): c for c in self.cells}
        out = []
        for a in self.runs:
            row: list[Cell | None] = []
            for b in self.runs:
                if (a, b) in by_pair:
                    row.append(by_pair[(a, b)])
                elif (b, a) in by_pair:
                    c = by_pair[(b, a)]
                    row.append(Cell(a, b, -c.mean_difference, c.p_value, c.p_holm,
                                    None if c.effect_size is None else -c.effect_size, c.significant, c.n_topics))
                else:
                    row.append(None)
            out.append((a, row))
        return out


def significance_matrix(results: Sequence[EvaluationResult], measure: str, *, max_runs: int = MAX_RUNS, seed: int = 0,
                        n_permutations: int = 10_000, alpha: float = 0.05) -> Matrix:
    """Test every pair of the best ``max_runs`` runs (by the measure's mean) with a paired randomization test.

    Holm's correction is over the pairs shown, so capping the runs also keeps the correction honest
    about what was tested. Effect size is Cohen's d of the paired per-topic differences.
    """
    if max_runs < 2:
        raise ValueError("max_runs must be at least 2")
    ranked = sorted(results, key=lambda r: (-float(r.aggregate.get(measure, 0.0)), r.tag))[:max_runs]
    per_topic = {r.tag: {q: float(v[measure]) for q, v in r.per_topic.items() if measure in v} for r in ranked}
    cells: list[Cell] = []
    if len(per_topic) >= 2:
        for c in compare_all(per_topic, test="randomization", seed=seed, alpha=alpha, n_permutations=n_permutations):
            d = c.result.effect_size  # infinite when every topic differs by the same amount: shown as undefined
            cells.append(Cell(c.run_a, c.run_b, c.result.mean_difference, c.p_value, c.p_holm,
                              d if d is not None and math.isfinite(d) else None, c.significant, c.result.n))
    return Matrix(measure, [r.tag for r in ranked], cells, len(results), seed, n_permutations, alpha)
