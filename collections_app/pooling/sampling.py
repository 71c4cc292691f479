"""Sample one topic's pool, stratified by rank, recording every document's inclusion probability.

TREC's statAP/infAP pools judge the top ranks fully and ever thinner random samples deeper
down. A document belongs to the stratum of its best (smallest) rank over the runs; within a
stratum of N documents, round(rate * N) are drawn without replacement (at least one when the
rate is positive), so each has inclusion probability n/N exactly -- the number the estimators
in ``metrics.sampling`` divide by. Seeded: the same rankings, strata and seed give the same sample.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .strategies import Ranks, run_ranks

#: (last rank of the band, sampling rate): ranks 1-10 judged fully, then thinner bands.
DEFAULT_STRATA: tuple[tuple[int, float], ...] = ((10, 1.0), (30, 0.5), (100, 0.2))


@dataclass(frozen=True)
class SampledDoc:
    """A pooled document: its stratum name, inclusion probability, and whether it was drawn."""

    stratum: str
    prob: float
    sampled: bool


def parse_strata(text: str) -> tuple[tuple[int, float], ...]:
    """Parse ``"10:1,30:0.5,100:0.2"`` (last rank of each band : rate) into strata.

    >>> parse_strata("10:1, 50:0.25")
    ((10, 1.0), (50, 0.25))
    """
    strata = []
    for part in text.split(","):
        try:
            last, rate = part.strip().split(":")
            strata.append((int(last), float(rate)))
        except ValueError:
            raise ValueError(f"bad stratum {part.strip()!r}; expected LASTRANK:RATE") from None
    check_strata(strata)
    return tuple(strata)


def check_strata(strata: Sequence[tuple[int, float]]) -> None:
    """Raise ValueError unless the bands' last ranks increase from at least 1 and rates are in (0, 1]."""
    if not strata:
        raise ValueError("at least one stratum is needed")
    previous = 0
    for last, rate in strata:
        if last <= previous:
            raise ValueError("strata must end at increasing ranks, the first at rank 1 or more")
        if not 0.0 < rate <= 1.0:
            raise ValueError("sampling rates must be in (0, 1]")
        previous = last


def stratum_name(index: int, strata: Sequence[tuple[int, float]]) -> str:
    """Return the band's name, e.g. ``"1-10"`` or ``"11-30"``."""
    first = strata[index - 1][0] + 1 if index else 1
    return f"{first}-{strata[index][0]}"


def stratified_sample(
    rankings: Mapping[str, Sequence[str]],
    *,
    strata: Sequence[tuple[int, float]] = DEFAULT_STRATA,
    seed: int = 0,
    topic: str = "",
) -> dict[str, SampledDoc]:
    """Return ``{docno: SampledDoc}`` for every document ranked within the deepest band by some run.

    ``topic`` is mixed into the seed so topics of one pool get independent samples.

    >>> s = stratified_sample({"a": ["d1", "d2", "d3"]}, strata=((1, 1.0), (3, 0.5)), seed=1)
    >>> s["d1"], sum(d.sampled for d in s.values()), s["d2"].prob
    (SampledDoc(stratum='1-1', prob=1.0, sampled=True), 2, 0.5)
    """
    check_strata(strata)
    ranks: Ranks = run_ranks(rankings, depth=strata[-1][0])
    bands: list[list[str]] = [[] for _ in strata]
    for docno, by_tag in ranks.items():
        best = min(by_tag.values())
        index = next(i for i, (last, _rate) in enumerate(strata) if best <= last)
        bands[index].append(docno)
    rng = random.Random(f"{seed}:{topic}")
    out: dict[str, SampledDoc] = {}
    for index, docnos in enumerate(bands):
        if not docnos:
            continue
        docnos.sort()
        rate = strata[index][1]
        n = min(len(docnos), max(1, round(rate * len(docnos))))
        drawn = set(rng.sample(docnos, n))
        prob = n / len(docnos)
        name = stratum_name(index, strata)
        for docno in docnos:
            out[docno] = SampledDoc(name, prob, docno in drawn)
    return out
