"""trec_eval 10.0 preference evaluation (``-R prefs`` and ``-R qrels_prefs``).

A preference file holds lines ``qid jg jsg docno rel_level``: within one judgment
sub-group (JSG) a document with a higher ``rel_level`` is preferred to one with a lower
level; the sub-groups of one judgment group (JG, e.g. one assessor) combine transitively;
different JGs may disagree. ``-R qrels_prefs`` reads an ordinary qrels file
``qid iter docno rel`` as a prefs file whose JG is the ``iter`` field and whose JSG is
always ``"0"``. ``rel_level`` 0 marks a non-relevant document, > 0 a relevant one.

The measures follow trec_eval's ``form_prefs_counts.c`` and ``m_prefs_*.c``. For a run,
each preference A > B falls in one of three areas: *retrieved* (A and B both in the run:
fulfilled iff A ranks above B), *implied* (exactly one retrieved: fulfilled iff it is A)
and *not occurring* (neither retrieved: never fulfilled). ``prefs_simp`` is fulfilled /
possible over all areas, ``_ret`` restricts to the retrieved area, ``_imp`` ignores the
not-occurring area; ``prefs_pair`` averages per document pair over the JGs that judged it;
``prefs_avgjg`` averages per JG; ``prefs_avgjg_Rnonrel`` in addition pretends each JG has
exactly as many non-relevant documents as relevant ones. The ``num_prefs_*`` counts are
summed over topics in the summary line, the ratios averaged. trec_eval's quirks are kept
(each commented where it happens) so that numbers match trec_eval to the printed decimal.

Differences from trec_eval on malformed input only: a docno repeated within one
(topic, JG, JSG) is an error here (trec_eval counts it twice or ignores it), blank lines
and lines starting with ``#`` are skipped, and a non-numeric ``rel_level`` is an error
(trec_eval's ``atof`` reads it as 0).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .evaluate import EvaluationResult, MissingTopicsWarning
from .io import MetricsInputError, Qrels, Run, _data_lines, _open_text

__all__ = [
    "PREFS_MEASURES",
    "PrefCounts",
    "Prefs",
    "evaluate_prefs",
    "pref_counts",
    "prefs_from_qrels",
    "prefs_from_records",
    "read_prefs",
    "read_qrels_prefs",
]


@dataclass
class Prefs:
    """Preference judgments per topic: ``topics[qid]`` is a list of ``(jg, jsg, docno, rel_level)``."""

    topics: dict[str, list[tuple[str, str, str, float]]]
    name: str = "prefs"

    def records(self) -> list[tuple[str, str, str, str, float]]:
        """Return ``(qid, jg, jsg, docno, rel_level)`` tuples, topics in sorted order."""
        return [(q, *rec) for q in sorted(self.topics) for rec in self.topics[q]]


def prefs_from_records(records: Iterable[Sequence], *, name: str = "prefs") -> Prefs:
    """Build ``Prefs`` from ``(qid, jg, jsg, docno, rel_level)`` tuples.

    Raises ValueError for a docno repeated within one (qid, jg, jsg) or an empty field.

    >>> p = prefs_from_records([("1", "u1", "s1", "a", 2), ("1", "u1", "s1", "b", 1)])
    >>> p.topics["1"]
    [('u1', 's1', 'a', 2.0), ('u1', 's1', 'b', 1.0)]
    """
    topics: dict[str, list] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for i, rec in enumerate(records, 1):
        if len(rec) != 5:
            raise ValueError(f"record {i}: expected (qid, jg, jsg, docno, rel_level), got {len(rec)} fields")
        qid, jg, jsg, docno, rel = (str(rec[0]), str(rec[1]), str(rec[2]), str(rec[3]), float(rec[4]))
        if not all((qid, jg, jsg, docno)) or any(any(c.isspace() for c in s) for s in (qid, jg, jsg, docno)):
            raise ValueError(f"record {i}: qid, jg, jsg and docno must be non-empty and free of whitespace")
        if math.isnan(rel):
            raise ValueError(f"record {i}: rel_level is NaN")
        key = (qid, jg, jsg, docno)
        if key in seen:
            raise ValueError(f"record {i}: docno {docno!r} repeated in topic {qid!r}, JG {jg!r}, JSG {jsg!r}")
        seen.add(key)
        topics.setdefault(qid, []).append((jg, jsg, docno, rel))
    return Prefs(topics=topics, name=name)


def prefs_from_qrels(qrels: Qrels, *, jg: str = "0") -> Prefs:
    """Read a ``Qrels`` object as trec_eval's ``-R qrels_prefs`` does (one JG, JSG ``"0"``).

    ``Qrels`` does not keep the iter column, so every judgment goes into the JG ``jg``;
    use :func:`read_qrels_prefs` on the file to keep per-iter JGs.
    """
    recs = [(q, jg, "0", d, float(g)) for q, (docs, grades) in qrels.topics.items()
            for d, g in zip(docs.tolist(), grades.tolist())]
    return prefs_from_records(recs, name=qrels.name)


def _read(path: str | os.PathLike, width: int) -> Prefs:
    text = _open_text(path)
    spath = os.fspath(path)
    topics: dict[str, list] = {}
    seen: dict[tuple[str, str, str, str], int] = {}
    kind = "prefs" if width == 5 else "qrels_prefs"
    for no, line in _data_lines(text):
        parts = line.split()
        if len(parts) != width:
            raise MetricsInputError(f"expected {width} whitespace-separated fields in a {kind} line, found {len(parts)}",
                                    path=spath, line=no)
        if width == 5:
            qid, jg, jsg, docno, rel_text = parts
        else:
            qid, jg, docno, rel_text = parts
            jsg = "0"
        try:
            rel = float(rel_text)
        except ValueError:
            raise MetricsInputError(f"rel_level {rel_text!r} is not a number", path=spath, line=no) from None
        if math.isnan(rel):
            raise MetricsInputError("rel_level is NaN", path=spath, line=no)
        key = (qid, jg, jsg, docno)
        if key in seen:
            raise MetricsInputError(f"docno {docno!r} repeated in topic {qid!r}, JG {jg!r}, JSG {jsg!r} "
                                    f"(first on line {seen[key]})", path=spath, line=no)
        seen[key] = no
        topics.setdefault(qid, []).append((jg, jsg, docno, rel))
    return Prefs(topics=topics, name=os.path.basename(spath))


def read_prefs(path: str | os.PathLike) -> Prefs:
    """Read a trec_eval prefs file ``qid jg jsg docno rel_level`` (plain or .gz).

    Raises MetricsInputError naming file and line for a wrong field count, a non-numeric
    rel_level, or a docno repeated within one (qid, jg, jsg).
    """
    return _read(path, 5)


def read_qrels_prefs(path: str | os.PathLike) -> Prefs:
    """Read a qrels file ``qid iter docno rel`` as trec_eval's ``-R qrels_prefs`` (JG = iter, JSG = "0")."""
    return _read(path, 4)


# ---------------------------------------------------------------------------------------
# Counting (form_prefs_counts.c)


@dataclass
class JGCounts:
    """Counts of one judgment group for one run, as form_prefs_counts.c fills its JG struct."""

    ful_ret: int = 0
    poss_ret: int = 0  # includes ful_ret
    ful_imp: int = 0
    poss_imp: int = 0  # includes ful_imp
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[np.ndarray] | None = None  # EC form: docid ranks per level, highest level first
    pa: np.ndarray | None = None  # preference-array form (several JSGs), transitively closed
    rel_array: np.ndarray | None = None  # PA form: level per docid (-1 if not in this JG)


@dataclass
class PrefCounts:
    """Everything the prefs measures read for one topic and run.

    Documents get *docid ranks*: judged retrieved documents 0..njr-1 in run order, then the
    judged unretrieved documents njr..nj-1 in docno order. ``counts[i, j]`` is the number of
    JGs preferring docid i to docid j.
    """

    num_judged: int
    num_judged_ret: int
    jgs: list[JGCounts] = field(default_factory=list)
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))


def _ranked_docnos(docnos: Sequence[str], scores: Sequence[float], max_docs: int | None) -> list[str]:
    # form_prefs_counts.c sorts by score descending, ties by docno *ascending* (comp_sim_docno
    # there compares p1 to p2), unlike the main trec_eval ranking (docno descending).
    order = sorted(range(len(docnos)), key=lambda i: (-float(scores[i]), docnos[i].encode()))
    if max_docs is not None:
        order = order[:max_docs]
    return [docnos[i] for i in order]


def pref_counts(lines: Sequence[tuple[str, str, str, float]], ranked: Sequence[str]) -> PrefCounts:
    """Count fulfilled and possible preferences of one topic for a ranked list of docnos.

    ``lines`` are the topic's ``(jg, jsg, docno, rel_level)`` judgments; ``ranked`` is the
    run's ranking (best first, already cut at -M). Raises ValueError for an inconsistent JG.
    """
    judged = sorted({ln[2] for ln in lines}, key=str.encode)
    jset = set(judged)
    ret = [d for d in ranked if d in jset]
    njr = len(ret)
    rank = {d: i for i, d in enumerate(ret)}
    nxt = njr
    for d in judged:  # unretrieved judged docs, in docno order
        if d not in rank:
            rank[d] = nxt
            nxt += 1
    nj = nxt
    counts = np.zeros((nj, nj), dtype=np.int64)
    # sort by jg, jsg, rel_level desc, docid rank (comp_prefs_and_ranks_jg_rel_level)
    rows = sorted(((jg.encode(), jsg.encode(), -rel, rank[d], d, rel) for jg, jsg, d, rel in lines))
    groups: dict[bytes, list] = {}
    for r in rows:
        groups.setdefault(r[0], []).append(r)
    out = PrefCounts(num_judged=nj, num_judged_ret=njr, counts=counts)
    for jg in sorted(groups):
        grp = groups[jg]
        if len({r[1] for r in grp}) > 1:
            out.jgs.append(_jg_pa(grp, nj, njr, counts))
        else:
            out.jgs.append(_jg_ec(grp, njr, counts))
    return out


def _jg_ec(grp: list, njr: int, counts: np.ndarray) -> JGCounts:
    """One JSG: equivalence classes by level; every doc of a higher class is preferred."""
    ecs: list[list[int]] = []
    levels: list[float] = []
    for r in grp:
        if not levels or levels[-1] != r[5]:
            levels.append(r[5])
            ecs.append([])
        ecs[-1].append(r[3])
    arrs = [np.array(e, dtype=np.int64) for e in ecs]
    jg = JGCounts(ecs=arrs)
    for lvl, e in zip(levels, arrs):
        nret = int((e < njr).sum())
        if lvl > 0.0:
            jg.num_rel += len(e)
            jg.num_rel_ret += nret
        else:  # EC form counts every level <= 0 as non-relevant (PA form only level 0)
            jg.num_nonrel += len(e)
            jg.num_nonrel_ret += nret
    for a in range(len(arrs)):
        for b in range(a + 1, len(arrs)):
            p1 = arrs[a][:, None]
            p2 = arrs[b][None, :]
            if np.isin(arrs[a], arrs[b]).any():
                raise ValueError("a document occurs with different rel_levels in the same JSG")
            counts[np.ix_(arrs[a], arrs[b])] += 1  # docids are unique within and across classes
            fulfilled = p1 < p2
            jg.ful_ret += int((fulfilled & (p2 < njr)).sum())
            jg.ful_imp += int((fulfilled & (p2 >= njr) & (p1 < njr)).sum())
            jg.notoccur += int((fulfilled & (p1 >= njr)).sum())
            jg.poss_ret += int((~fulfilled & (p1 < njr)).sum())
            jg.poss_imp += int((~fulfilled & (p1 >= njr) & (p2 < njr)).sum())
            jg.notoccur += int((~fulfilled & (p2 >= njr)).sum())
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _jg_pa(grp: list, nj: int, njr: int, counts: np.ndarray) -> JGCounts:
    """Several JSGs: a preference array, closed transitively, counted by area."""
    pa = np.zeros((nj, nj), dtype=bool)
    rel_array = np.full(nj, -1.0)
    for i, r in enumerate(grp):
        d, lvl = r[3], r[5]
        if (rel_array[d] > 0.0 and lvl == 0.0) or (rel_array[d] == 0.0 and lvl > 0.0):
            raise ValueError(f"doc {r[4]!r} has both 0 and non-0 rel_level in one JG")
        rel_array[d] = lvl
        j = i + 1
        while j < len(grp) and grp[j][1] == r[1] and grp[j][5] == lvl:
            j += 1
        while j < len(grp) and grp[j][1] == r[1]:
            pa[d, grp[j][3]] = True
            j += 1
    reach = pa | np.eye(nj, dtype=bool)
    while True:
        nxt = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (nxt == reach).all():
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    if (reach & reach.T).any():
        raise ValueError("inconsistent preferences within one JG (a cycle through its JSGs)")
    jg = JGCounts(pa=reach, rel_array=rel_array)
    ret = np.arange(nj) < njr
    jg.num_rel_ret = int((rel_array[:njr] > 0).sum())
    jg.num_nonrel_ret = int((rel_array[:njr] == 0).sum())
    jg.num_rel = int((rel_array > 0).sum())
    jg.num_nonrel = int((rel_array == 0).sum())
    counts += reach
    _area_counts(jg, reach, ret, njr)
    return jg


def _area_counts(jg: JGCounts, a: np.ndarray, ret: np.ndarray, njr: int) -> None:
    upper = np.triu(np.ones(a.shape, dtype=bool), 1)
    both = ret[:, None] & ret[None, :]
    jg.ful_ret = int((a & both & upper).sum())
    jg.poss_ret = int((a & both & ~upper).sum()) + jg.ful_ret
    jg.ful_imp = int((a & ret[:, None] & ~ret[None, :]).sum())
    jg.poss_imp = int((a & ~ret[:, None] & ret[None, :]).sum()) + jg.ful_imp
    jg.notoccur = int((a & ~ret[:, None] & ~ret[None, :]).sum())


# ---------------------------------------------------------------------------------------
# Measures (m_prefs_*.c)


def _cdiv(num: float, den: float) -> float:
    """C double division: 0/0 is NaN and x/0 is inf (trec_eval relies on NaN failing ``> 0``)."""
    if den == 0:
        return math.nan if num == 0 else math.inf
    return num / den


def _num_prefs_poss(pc: PrefCounts) -> float:
    return float(sum(j.poss_ret + j.poss_imp + j.notoccur for j in pc.jgs))


def _num_prefs_ful(pc: PrefCounts) -> float:
    return float(sum(j.ful_ret + j.ful_imp for j in pc.jgs))


def _num_prefs_ful_ret(pc: PrefCounts) -> float:
    return float(sum(j.ful_ret for j in pc.jgs))


def _ratio(ful: int, poss: int) -> float:
    return ful / poss if poss else 0.0


def _simp(pc: PrefCounts) -> float:
    return _ratio(sum(j.ful_ret + j.ful_imp for j in pc.jgs), sum(j.poss_ret + j.poss_imp + j.notoccur for j in pc.jgs))


def _simp_ret(pc: PrefCounts) -> float:
    return _ratio(sum(j.ful_ret for j in pc.jgs), sum(j.poss_ret for j in pc.jgs))


def _simp_imp(pc: PrefCounts) -> float:
    return _ratio(sum(j.ful_ret + j.ful_imp for j in pc.jgs), sum(j.poss_ret + j.poss_imp for j in pc.jgs))


def _pair(pc: PrefCounts, areas: str) -> float:
    """Mean over judged document pairs of the fraction of JGs whose preference the run fulfils.

    ``areas``: "all" (pairs with neither doc retrieved count as 0), "imp" (those pairs
    ignored), "ret" (only pairs of two retrieved docs).
    """
    c = pc.counts
    nj, njr = pc.num_judged, pc.num_judged_ret
    upper = np.triu(np.ones((nj, nj), dtype=bool), 1)
    tot = c + c.T
    ret = np.arange(nj) < njr
    judged_pair = upper & (tot > 0)
    frac = np.divide(c, tot, out=np.zeros((nj, nj)), where=tot > 0)
    rr = judged_pair & ret[:, None] & ret[None, :]
    ru = judged_pair & ret[:, None] & ~ret[None, :]
    uu = judged_pair & ~ret[:, None] & ~ret[None, :]
    total = frac[rr].sum()
    n = int(rr.sum())
    if areas in ("all", "imp"):
        total += frac[ru].sum()
        n += int(ru.sum())
    if areas == "all":
        n += int(uu.sum())
    return float(total / n) if n else 0.0


def _avgjg(pc: PrefCounts, ful_of, poss_of) -> float:
    s = 0.0
    for j in pc.jgs:
        poss = poss_of(j)
        if poss:
            s += ful_of(j) / poss
    return s / len(pc.jgs) if s > 0.0 else 0.0


def _avgjg_rnonrel(pc: PrefCounts, *, ret_only: bool) -> float:
    s = 0.0
    njr = pc.num_judged_ret
    for j in pc.jgs:
        R, N = (j.num_rel_ret, j.num_nonrel_ret) if ret_only else (j.num_rel, j.num_nonrel)
        if R >= N:
            if ret_only:
                ful = j.ful_ret + j.num_rel_ret * (R - N)
                # trec_eval adds num_rel (not num_rel_ret) * (R - N) to the possible count here
                poss = j.poss_ret + j.num_rel * (R - N)
            else:
                ful = j.ful_ret + j.ful_imp + j.num_rel_ret * (R - N)
                poss = j.poss_ret + j.poss_imp + j.notoccur + j.num_rel * (R - N)
        else:
            ful, poss = _recalculate(j, njr, pc.num_judged, ret_only=ret_only)
        s += _cdiv(ful, poss)  # a JG with nothing possible gives NaN and zeroes the topic (as in C)
    return s / len(pc.jgs) if s > 0.0 else 0.0


def _recalculate(j: JGCounts, njr: int, nj: int, *, ret_only: bool) -> tuple[int, int]:
    """Recount a JG keeping only its first R non-relevant documents (m_prefs_avgjg_Rnonrel*.c)."""
    ful = poss = 0
    if j.ecs is not None:
        ecs = [e[e < njr] if ret_only else e for e in j.ecs]
        keep = j.num_rel_ret if ret_only else j.num_rel
        # trec_eval takes the first `keep` docid ranks of the last (lowest) class; it reads past
        # the class when it is shorter (undefined behaviour in C) - clipped here.
        new_nonrel = j.ecs[-1][:keep]
        if ret_only:
            new_nonrel = new_nonrel[new_nonrel < njr]

        def tally(p1: np.ndarray, p2: np.ndarray) -> tuple[int, int]:
            a, b = p1[:, None], p2[None, :]
            f = (a < b) & (a < njr)
            return int(f.sum()), int(f.size - f.sum())

        n = len(ecs)
        for e1 in range(n):
            for e2 in range(e1 + 1, n - 1):  # classes above the last one
                f, p = tally(ecs[e1], ecs[e2])
                ful += f
                poss += p
        for e1 in range(n):  # every class - the last one included, as in trec_eval - vs the kept non-relevant
            f, p = tally(ecs[e1], new_nonrel)
            ful += f
            poss += p
        return ful, poss + ful
    rel = j.rel_array
    if rel is None:  # judgments come as equivalence classes (handled above) or as a PA array
        raise ValueError("preference judgments hold neither equivalence classes nor a PA array")
    a = j.pa
    limit = njr if ret_only else nj
    seen = 0
    first_discarded = limit
    for i in range(limit):
        if rel[i] == 0.0:
            seen += 1
            if seen == j.num_rel + 1:  # num_rel even in the _ret variant (as trec_eval)
                first_discarded = i
                break
    idx = np.arange(nj)
    alive = ~((idx >= first_discarded) & (rel == 0.0))
    sub = a & alive[:, None] & alive[None, :]
    ret = idx < njr
    upper = np.triu(np.ones((nj, nj), dtype=bool), 1)
    both = ret[:, None] & ret[None, :]
    ful = int((sub & both & upper).sum())
    poss = int((sub & both & ~upper).sum())
    if not ret_only:
        ful += int((sub & ret[:, None] & ~ret[None, :]).sum())
        poss += int((sub & ~ret[:, None]).sum())
    return ful, poss + ful


@dataclass(frozen=True)
class PrefMeasure:
    """One trec_eval preference measure: per-topic function and summary rule (``mean``/``sum``)."""

    name: str
    description: str
    func: Callable[[Any], float]
    aggregate: str = "mean"
    output_kind: str = "float"


def _pm(name, desc, func, agg="mean", kind="float"):
    return PrefMeasure(name, desc, func, agg, kind)


# trec_eval 10.0 print order.
PREFS_MEASURES: dict[str, PrefMeasure] = {m.name: m for m in (
    _pm("num_q", "Number of topics evaluated", lambda pc: 1.0, "sum", "int"),
    _pm("prefs_num_prefs_poss", "Number of preferences possible (whether or not A and B are retrieved)",
        _num_prefs_poss, "sum", "int"),
    _pm("prefs_num_prefs_ful", "Number of preferences fulfilled, implied ones included", _num_prefs_ful, "sum", "int"),
    _pm("prefs_num_prefs_ful_ret", "Number of preferences fulfilled among retrieved documents",
        _num_prefs_ful_ret, "sum", "int"),
    _pm("prefs_simp", "Preferences fulfilled / possible; neither retrieved counts as failure", _simp),
    _pm("prefs_pair", "Mean over document pairs of the fraction of JGs whose preference is fulfilled",
        lambda pc: _pair(pc, "all")),
    _pm("prefs_avgjg", "prefs_simp within each judgment group, averaged over JGs",
        lambda pc: _avgjg(pc, lambda j: j.ful_ret + j.ful_imp, lambda j: j.poss_ret + j.poss_imp + j.notoccur)),
    _pm("prefs_avgjg_Rnonrel", "prefs_avgjg with each JG's non-relevant documents set to R (akin to bpref)",
        lambda pc: _avgjg_rnonrel(pc, ret_only=False)),
    _pm("prefs_simp_ret", "prefs_simp among retrieved documents only", _simp_ret),
    _pm("prefs_pair_ret", "prefs_pair among retrieved documents only", lambda pc: _pair(pc, "ret")),
    _pm("prefs_avgjg_ret", "prefs_avgjg among retrieved documents only",
        lambda pc: _avgjg(pc, lambda j: j.ful_ret, lambda j: j.poss_ret)),
    _pm("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel among retrieved documents only",
        lambda pc: _avgjg_rnonrel(pc, ret_only=True)),
    _pm("prefs_simp_imp", "prefs_simp ignoring pairs with neither document retrieved", _simp_imp),
    _pm("prefs_pair_imp", "prefs_pair ignoring pairs with neither document retrieved", lambda pc: _pair(pc, "imp")),
    _pm("prefs_avgjg_imp", "prefs_avgjg ignoring pairs with neither document retrieved",
        lambda pc: _avgjg(pc, lambda j: j.ful_ret + j.ful_imp, lambda j: j.poss_ret + j.poss_imp)),
)}
# trec_eval's nicknames (measures.c): "prefs" is the official subset, "all_prefs" everything.
PREFS_NICKNAMES = {"prefs": tuple(PREFS_MEASURES)[:7], "all_prefs": tuple(PREFS_MEASURES)}


def resolve_prefs(measures: Sequence[str] | str) -> list[str]:
    """Return the requested preference measure names in trec_eval's print order.

    >>> resolve_prefs(["prefs_pair", "prefs_simp"])
    ['prefs_simp', 'prefs_pair']
    """
    if isinstance(measures, str):
        measures = [measures]
    wanted: set[str] = set()
    for m in measures:
        m = m.strip()
        if m in PREFS_NICKNAMES:
            wanted.update(PREFS_NICKNAMES[m])
        elif m in PREFS_MEASURES:
            wanted.add(m)
        else:
            raise ValueError(f"unknown preference measure {m!r} (known: {', '.join(PREFS_MEASURES)}, prefs, all_prefs)")
    return [n for n in PREFS_MEASURES if n in wanted]


def evaluate_prefs(prefs: Prefs, run: Run, measures: Sequence[str] | str = ("prefs",), *, complete: bool = False,
                   max_docs: int | None = None, warn: bool = True) -> EvaluationResult:
    """Score one run against preference judgments as trec_eval 10.0 ``-R prefs`` does.

    Topics of the run absent from ``prefs`` are ignored; prefs topics absent from the run
    are skipped with a ``MissingTopicsWarning``, or with ``complete=True`` (``-c``) scored
    as an empty ranking. ``max_docs`` is trec_eval's ``-M``.

    >>> p = prefs_from_records([("1", "u", "s", "a", 2), ("1", "u", "s", "b", 1), ("1", "u", "s", "c", 0)])
    >>> from metrics.io import run_from_dict
    >>> res = evaluate_prefs(p, run_from_dict({"1": {"b": 3.0, "a": 2.0, "c": 1.0}}), ["prefs_simp"])
    >>> round(res.aggregate["prefs_simp"], 4)   # a>b failed, a>c and b>c fulfilled
    0.6667
    """
    names = resolve_prefs(measures)
    if max_docs is not None and max_docs < 0:
        raise ValueError("max_docs must be >= 0")
    run_topics = run.topics
    qids = sorted(prefs.topics)
    missing = [q for q in qids if q not in run_topics]
    if missing and not complete and warn:
        warnings.warn(f"run {run.tag}: {len(missing)} prefs topic(s) not in the run were skipped "
                      f"(use -c / complete=True to score them as empty rankings): {', '.join(missing[:10])}"
                      + (" …" if len(missing) > 10 else ""), MissingTopicsWarning, stacklevel=2)
    if not complete:
        qids = [q for q in qids if q in run_topics]
    per_topic: dict[str, dict] = {}
    for q in qids:
        if q in run_topics:
            docs, scores = run_topics[q]
            ranked = _ranked_docnos(docs.tolist(), scores.tolist(), max_docs)
        else:
            ranked = []
        try:
            pc = pref_counts(prefs.topics[q], ranked)
        except ValueError as exc:
            raise ValueError(f"topic {q}: {exc}") from None
        vals = {}
        for n in names:
            m = PREFS_MEASURES[n]
            v = float(m.func(pc))
            vals[n] = int(v) if m.output_kind == "int" else v
        per_topic[q] = vals
    aggregate: dict[str, float] = {}
    for n in names:
        m = PREFS_MEASURES[n]
        col = [per_topic[q][n] for q in qids]
        if m.aggregate == "sum":
            aggregate[n] = int(sum(col)) if m.output_kind == "int" else float(sum(col))
        else:
            aggregate[n] = float(sum(col) / len(qids)) if qids else 0.0
    kinds = {n: PREFS_MEASURES[n].output_kind for n in names}
    return EvaluationResult(tag=run.tag, names=list(names), kinds=kinds, per_topic=per_topic, aggregate=aggregate,
                            missing_topics=[] if complete else missing)
