"""Pool one topic: depth-k, round-robin budget, and budget by fused score.

A topic's input is ``rankings: {tag: [docno, ...]}`` with rank 1 first (the trec_eval order:
score descending, ties by docno descending -- what ``runstore`` stores). Each strategy returns
``{docno: {tag: rank}}``: the pooled documents and, for each, the ranks at which the
contributing runs retrieved it (within ``depth`` for depth pools, anywhere for budget pools).

Tie rules, everywhere: runs are visited in tag order (byte-wise ascending); documents with
equal fused scores are ordered by docno descending, like trec_eval orders equal scores.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

FUSIONS = ("rrf", "combsum", "borda")
RRF_K = 60

Ranks = dict[str, dict[str, int]]


def _docno_key(docno: str) -> bytes:
    # trec_eval compares docnos with strcmp: byte-wise on the UTF-8 encoding.
    return docno.encode("utf-8")


def run_ranks(rankings: Mapping[str, Sequence[str]], *, depth: int | None = None) -> Ranks:
    """Return ``{docno: {tag: rank}}`` for every document in the runs' top ``depth`` (all if None)."""
    found: Ranks = {}
    for tag in sorted(rankings):
        docnos = rankings[tag] if depth is None else rankings[tag][:depth]
        for rank, docno in enumerate(docnos, start=1):
            found.setdefault(docno, {})[tag] = rank
    return found


def depth_pool(rankings: Mapping[str, Sequence[str]], *, depth: int) -> Ranks:
    """Return the union of every run's top ``depth`` documents (TREC depth-k pooling).

    >>> sorted(depth_pool({"a": ["d1", "d2", "d3"], "b": ["d4", "d1"]}, depth=2))
    ['d1', 'd2', 'd4']
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    return run_ranks(rankings, depth=depth)


def round_robin_pool(
    rankings: Mapping[str, Sequence[str]], *, budget: int, skip: frozenset[str] | set[str] = frozenset()
) -> Ranks:
    """Return ``budget`` documents taken round-robin by rank: rank 1 of every run, then rank 2, ...

    Within a rank, runs are visited in tag order; a document already taken (or in ``skip``,
    e.g. already judged) is passed over without using the budget.

    >>> sorted(round_robin_pool({"a": ["d1", "d2"], "b": ["d1", "d3"]}, budget=2))
    ['d1', 'd2']
    """
    if budget < 1:
        raise ValueError("budget must be at least 1")
    tags = sorted(rankings)
    taken: list[str] = []
    seen: set[str] = set(skip)
    longest = max((len(rankings[tag]) for tag in tags), default=0)
    for index in range(longest):
        for tag in tags:
            ranking = rankings[tag]
            if index < len(ranking) and ranking[index] not in seen:
                seen.add(ranking[index])
                taken.append(ranking[index])
                if len(taken) == budget:
                    return _with_ranks(rankings, taken)
    return _with_ranks(rankings, taken)


def _with_ranks(rankings: Mapping[str, Sequence[str]], docnos: Sequence[str]) -> Ranks:
    ranks = run_ranks(rankings)
    return {docno: ranks[docno] for docno in docnos}


def fused_scores(
    rankings: Mapping[str, Sequence[str]],
    *,
    method: str = "rrf",
    scores: Mapping[str, np.ndarray] | None = None,
    depth: int | None = None,
    rrf_k: int = RRF_K,
) -> dict[str, float]:
    """Return a fused score per document (higher = more likely relevant).

    - ``rrf``: sum over runs of ``1 / (rrf_k + rank)`` (Cormack et al. 2009, k=60 by default).
    - ``combsum``: sum over runs of the run's score min-max normalised per run and topic to
      [0, 1] (a run whose scores are all equal gives 1.0 to each of its documents). Needs ``scores``.
    - ``borda``: a run gives ``L - rank + 1`` points, L the longest ranking of the topic
      (considered up to ``depth``), so every run awards the same points at the same rank.

    Only ranks ``<= depth`` count when ``depth`` is given; unretrieved documents get nothing.

    >>> fused_scores({"a": ["x", "y"], "b": ["y"]}, method="borda")
    {'x': 2.0, 'y': 3.0}
    """
    if method not in FUSIONS:
        raise ValueError(f"unknown fusion {method!r}; expected one of {', '.join(FUSIONS)}")
    if method == "combsum" and scores is None:
        raise ValueError("combsum needs the runs' scores")
    tags = sorted(rankings)
    cut = {tag: (rankings[tag] if depth is None else rankings[tag][:depth]) for tag in tags}
    longest = max((len(docnos) for docnos in cut.values()), default=0)
    fused: dict[str, float] = {}
    for tag in tags:
        docnos = cut[tag]
        if not len(docnos):
            continue
        if method == "rrf":
            points = 1.0 / (rrf_k + np.arange(1, len(docnos) + 1, dtype=float))
        elif method == "borda":
            points = (longest - np.arange(len(docnos))).astype(float)
        else:
            raw = np.asarray(scores[tag][: len(docnos)], dtype=float)  # type: ignore[index]  # scores is given when a fusion needs it
            low, high = raw.min(), raw.max()
            points = np.ones_like(raw) if high == low else (raw - low) / (high - low)
        for docno, value in zip(docnos, points.tolist()):
            fused[docno] = fused.get(docno, 0.0) + value
    return fused


def fused_pool(
    rankings: Mapping[str, Sequence[str]],
    *,
    budget: int,
    method: str = "rrf",
    scores: Mapping[str, np.ndarray] | None = None,
    skip: frozenset[str] | set[str] = frozenset(),
    rrf_k: int = RRF_K,
) -> Ranks:
    """Return the ``budget`` documents with the highest fused score (ties: docno descending).

    >>> sorted(fused_pool({"a": ["x", "y"], "b": ["y", "z"]}, budget=1))
    ['y']
    """
    if budget < 1:
        raise ValueError("budget must be at least 1")
    fused = fused_scores(rankings, method=method, scores=scores, rrf_k=rrf_k)
    candidates = [docno for docno in fused if docno not in skip]
    best = sorted(candidates, key=lambda d: (fused[d], _docno_key(d)), reverse=True)[:budget]
    return _with_ranks(rankings, best)
