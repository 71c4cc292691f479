"""Put pooled pairs in the order assessors will judge them."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

ORDERS = ("fused", "random")


def qid_key(qid: str) -> tuple:
    """Return a sort key that puts topic "2" before "10" (digits compared as numbers).

    >>> sorted(["10", "2", "a1"], key=qid_key)
    ['2', '10', 'a1']
    """
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", qid))


def judging_order(
    pairs: Mapping[str, Sequence[str]],
    *,
    order: str = "fused",
    fused: Mapping[str, Mapping[str, float]] | None = None,
    seed: int = 0,
) -> list[tuple[str, str]]:
    """Return ``[(qid, docno), ...]`` in judging order: topic by topic, best candidates first.

    Topics come in ``qid_key`` order. ``fused`` order: fused score descending, ties by docno
    descending (trec_eval's tie rule). ``random``: a permutation of each topic's documents
    (taken in docno order first, so input order never matters) drawn from one
    ``numpy.random.default_rng(seed)`` shared by the topics in that order.

    >>> judging_order({"1": ["a", "b"]}, fused={"1": {"a": 0.1, "b": 0.5}})
    [('1', 'b'), ('1', 'a')]
    """
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; expected one of {', '.join(ORDERS)}")
    rng = np.random.default_rng(seed)
    result: list[tuple[str, str]] = []
    for qid in sorted(pairs, key=qid_key):
        docnos = sorted(pairs[qid], key=lambda d: d.encode("utf-8"))
        if order == "random":
            docnos = [docnos[i] for i in rng.permutation(len(docnos))]
        else:
            scores = (fused or {}).get(qid, {})
            docnos.sort(key=lambda d: (scores.get(d, 0.0), d.encode("utf-8")), reverse=True)
        result.extend((qid, docno) for docno in docnos)
    return result
