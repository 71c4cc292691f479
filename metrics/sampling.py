"""Estimate AP and nDCG from a sampled pool: infAP, xinfAP and infNDCG.

When only a random sample of the pool is judged, treating the unsampled documents as
non-relevant biases every measure downwards. The estimators here weight each judged document
by its inclusion probability instead (Horvitz-Thompson), so their expectation over samples is
(almost exactly -- they are ratios of unbiased sums) the value complete judgments would give.

Sampled qrels ("prels") hold every *pooled* document of a topic, sampled or not::

    qid docno grade stratum prob

``grade`` is the judged grade, or ``-1`` for a pooled document that was not sampled (so not
judged); ``stratum`` names the rank band the document was drawn from; ``prob`` is its
inclusion probability (1 for a fully judged stratum). A document absent from the prels was
not in the pool and counts as non-relevant. This is TREC's ``sample_eval`` input in one file.

- ``infap``: Yilmaz & Aslam (CIKM 2006), exactly trec_eval's ``infAP`` (uniform sample of the
  pool, strata and probabilities ignored).
- ``xinfap``: Yilmaz, Kanoulas & Aslam (SIGIR 2008): infAP within each stratum, every relevant
  document weighted by 1/prob, R estimated the same way. With one stratum it equals ``infap``.
- ``infndcg``: the same paper's estimated nDCG: DCG as a Horvitz-Thompson sum, the ideal DCG
  from the estimated number of documents of each grade.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

#: trec_eval's smoothing constant in infAP (m_infAP.c), kept for exact agreement.
EPSILON = 0.00001
UNSAMPLED = -1


@dataclass(frozen=True)
class Prel:
    """One pooled document of a topic: its grade (``UNSAMPLED`` if not judged), stratum and prob."""

    grade: int
    stratum: str
    prob: float

    @property
    def judged(self) -> bool:
        return self.grade != UNSAMPLED


Prels = dict[str, dict[str, Prel]]


def parse_prels(text: str, *, path: str = "<prels>") -> Prels:
    """Parse ``qid docno grade stratum prob`` lines (blank lines and ``#`` comments skipped).

    >>> p = parse_prels("1 d1 2 top 1\\n1 d2 -1 s2 0.25\\n")
    >>> p["1"]["d2"]
    Prel(grade=-1, stratum='s2', prob=0.25)
    """
    out: Prels = {}
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 5:
            raise ValueError(f"{path}:{n}: expected 'qid docno grade stratum prob', got {len(parts)} fields")
        qid, docno, grade_s, stratum, prob_s = parts
        try:
            grade, prob = int(grade_s), float(prob_s)
        except ValueError:
            raise ValueError(f"{path}:{n}: grade must be an integer and prob a number") from None
        if grade < UNSAMPLED:
            raise ValueError(f"{path}:{n}: grade must be -1 (unsampled) or at least 0")
        if not 0.0 < prob <= 1.0:
            raise ValueError(f"{path}:{n}: prob must be in (0, 1]")
        topic = out.setdefault(qid, {})
        if docno in topic:
            raise ValueError(f"{path}:{n}: duplicate document {docno} for topic {qid}")
        topic[docno] = Prel(grade, stratum, prob)
    return out


def read_prels(path: str | os.PathLike) -> Prels:
    """Read a prels file (see the module docstring for the format)."""
    with open(path, encoding="utf-8") as fh:
        return parse_prels(fh.read(), path=str(path))


def format_prels(prels: Mapping[str, Mapping[str, Prel]]) -> str:
    """Return prels as text, topics and docnos in sorted order (``parse_prels`` reads it back)."""
    lines = [f"{q} {d} {p.grade} {p.stratum} {p.prob:.10g}"
             for q in sorted(prels) for d, p in sorted(prels[q].items())]
    return "\n".join(lines) + ("\n" if lines else "")


def _check_level(level: int) -> None:
    if level < 1:
        raise ValueError("relevance level must be at least 1")


def infap(ranking: Sequence[str], prels: Mapping[str, Prel], *, level: int = 1) -> float:
    """Return infAP as trec_eval computes it: a uniform sample of the pool assumed.

    For the relevant document at rank k: E[prec@k] = 1/k + (k-1)/k * (|pool above|/(k-1)) *
    (rel + eps)/(rel + nonrel + 2 eps), rel/nonrel counted among the judged documents above k;
    infAP = sum over relevant retrieved / number of judged relevant documents.

    >>> p = {"a": Prel(1, "s", 0.5), "b": Prel(-1, "s", 0.5), "c": Prel(0, "s", 0.5), "d": Prel(1, "s", 0.5)}
    >>> infap(["a", "b", "c", "d"], p)  # (1 + (1/4 + 3/4 * 3/3 * 1/2)) / 2, up to eps
    0.8125
    """
    _check_level(level)
    rel = nonrel = unjudged = 0
    total = 0.0
    for i, docno in enumerate(ranking):
        p = prels.get(docno)
        if p is None:
            continue
        if not p.judged:
            unjudged += 1
        elif p.grade < level:
            nonrel += 1
        else:
            if i == 0:
                total += 1.0
            else:
                total += 1.0 / (i + 1) + (i / (i + 1)) * ((rel + nonrel + unjudged) / i) * (
                    (rel + EPSILON) / (rel + nonrel + 2 * EPSILON))
            rel += 1
    n_rel = sum(1 for p in prels.values() if p.judged and p.grade >= level)
    return total / n_rel if n_rel else 0.0


def estimated_relevant(prels: Mapping[str, Prel], *, level: int = 1) -> float:
    """Return the Horvitz-Thompson estimate of R: the sum of 1/prob over judged relevant documents."""
    _check_level(level)
    return sum(1.0 / p.prob for p in prels.values() if p.judged and p.grade >= level)


def xinfap(ranking: Sequence[str], prels: Mapping[str, Prel], *, level: int = 1) -> float:
    """Return xinfAP: infAP within strata, relevant documents weighted by 1/prob.

    E[prec@k] = 1/k + (1/k) * sum over strata s of |pool_s above k| * (rel_s + eps)/(judged_s + 2 eps);
    xinfAP = sum over judged relevant retrieved of E[prec@k]/prob, divided by R estimated as
    ``estimated_relevant``. One stratum with one probability gives ``infap`` exactly.

    >>> p = {"a": Prel(1, "top", 1.0), "b": Prel(-1, "low", 0.5), "c": Prel(0, "low", 0.5), "d": Prel(1, "low", 0.5)}
    >>> round(xinfap(["a", "b", "c", "d"], p), 4)  # (1/1 + (1 + 1 + 0)/4 / 0.5) / (1 + 2)
    0.6667
    """
    r_hat = estimated_relevant(prels, level=level)
    if r_hat == 0.0:
        return 0.0
    pooled: dict[str, int] = {}
    rel: dict[str, int] = {}
    judged: dict[str, int] = {}
    total = 0.0
    for i, docno in enumerate(ranking):
        p = prels.get(docno)
        if p is None:
            continue
        if p.judged and p.grade >= level:
            above = sum(n * (rel.get(s, 0) + EPSILON) / (judged.get(s, 0) + 2 * EPSILON)
                        for s, n in pooled.items())
            total += (1.0 + above) / (i + 1) / p.prob
        pooled[p.stratum] = pooled.get(p.stratum, 0) + 1
        if p.judged:
            judged[p.stratum] = judged.get(p.stratum, 0) + 1
            if p.grade >= level:
                rel[p.stratum] = rel.get(p.stratum, 0) + 1
    return total / r_hat


def _gain(grade: int, gains: Mapping[int, float] | None) -> float:
    if gains is not None and grade in gains:
        return float(gains[grade])
    return float(grade)


def infndcg(ranking: Sequence[str], prels: Mapping[str, Prel], *, k: int | None = None,
            gains: Mapping[int, float] | None = None) -> float:
    """Return estimated nDCG (at ``k``, or the whole ranking): HT-estimated DCG over estimated ideal DCG.

    DCG^ = sum over judged retrieved d within k of gain(d) / prob(d) / log2(rank + 1); the ideal
    ranking holds round(N^_g) documents of grade g, N^_g = sum of 1/prob over judged documents
    of grade g, best grades first (gain = grade unless remapped, as trec_eval's ndcg).

    >>> p = {"a": Prel(2, "top", 1.0), "b": Prel(-1, "low", 0.5), "c": Prel(1, "low", 0.5)}
    >>> round(infndcg(["b", "c", "a"], p), 4)  # ideal: a, then two grade-1 documents
    0.7224
    """
    if k is not None and k < 1:
        raise ValueError("k must be at least 1")
    cut = ranking if k is None else ranking[:k]
    dcg = 0.0
    for i, docno in enumerate(cut):
        p = prels.get(docno)
        if p is not None and p.judged and p.grade > 0:
            dcg += _gain(p.grade, gains) / p.prob / math.log2(i + 2)
    counts: dict[int, float] = {}
    for p in prels.values():
        if p.judged and p.grade > 0:
            counts[p.grade] = counts.get(p.grade, 0.0) + 1.0 / p.prob
    ideal_gains: list[float] = []
    for grade in sorted(counts, key=lambda g: -_gain(g, gains)):
        g = _gain(grade, gains)
        if g > 0:
            ideal_gains.extend([g] * int(round(counts[grade])))
    if k is not None:
        ideal_gains = ideal_gains[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    return dcg / idcg if idcg > 0 else 0.0


ESTIMATORS: dict[str, Callable[..., float]] = {
    "infAP": infap,
    "xinfAP": xinfap,
    "infNDCG": infndcg,
}


def evaluate_sampled(rankings: Mapping[str, Sequence[str]], prels: Mapping[str, Mapping[str, Prel]], *,
                     measure: str = "xinfAP", **options) -> dict[str, float]:
    """Return ``{qid: estimate}`` for one run's rankings (``{qid: [docno, ...]}``) over the prels' topics.

    A prels topic the run did not retrieve for scores 0 (as trec_eval -c would).
    """
    try:
        fn = ESTIMATORS[measure]
    except KeyError:
        raise ValueError(f"unknown estimator {measure!r}; known: {', '.join(ESTIMATORS)}") from None
    return {q: fn(rankings.get(q, ()), prels[q], **options) for q in prels}
