"""The measure registry shared by the CLI and the web app: names, parameters, aggregation.

A *family* (``P``, ``ndcg_cut``, ``ndcg`` …) is one registry entry; a request such as
``P.5,10`` or ``P_10`` selects a family with parameters, and the family produces one
output per parameter (``P_5``, ``P_10``) in trec_eval's names and print order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .cparse import c_atof, c_atol
from .measures import gain, trec, variants

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Measure:
    """Describe one measure family.

    ``param_kind`` is one of ``none``, ``ints`` (rank cutoffs), ``floats`` (real cutoffs or
    coefficients), ``gains`` (``level=gain`` pairs) or ``cut_beta`` (rank cutoffs, each
    optionally with an F-measure beta: ``10,20=0.5`` means (10, 1.0) and (20, 0.5)). ``aggregate`` is ``mean``, ``sum``,
    ``gmean`` (trec_eval's geometric mean with floor 1e-5) or ``none`` (per-topic only).
    """

    name: str
    description: str
    func: Callable
    param_kind: str = "none"
    defaults: tuple = ()
    aggregate: str = "mean"
    higher_is_better: bool = True
    trec: bool = True
    output_kind: str = "float"  # float | int | str
    single: bool = False  # one output whose name gets "_<params>" appended when params are given
    summary_only: bool = False  # trec_eval prints no per-topic line for it (num_q, gm_map, gm_bpref)

    @property
    def sorted_cutoffs(self) -> bool:
        return self.name in ("iprec_at_recall", "Rprec_mult")

    def parse_params(self, text: str | None) -> tuple:
        """Parse trec_eval's parameter text (``5,10`` or ``1=0.5,2=2``) or return the defaults.

        As trec_eval's meas_init.c: rank cutoffs are read with C's atol (``23.4`` is 23) and
        real cutoffs with atof, both sorted, and a duplicate or non-positive rank cutoff is an
        error; a measure without parameters ignores any it is given (``map.5`` is ``map``).
        """
        if text is None or text == "":
            return self.defaults
        if self.param_kind == "none":
            return self.defaults
        parts = text.split(",")
        try:
            if self.param_kind == "ints":
                vals = tuple(sorted(c_atol(p) for p in parts))
                if vals[0] <= 0:
                    raise ValueError("cutoffs must be positive")
                if len(set(vals)) != len(vals):
                    raise ValueError("duplicate cutoffs")
                return vals
            if self.param_kind == "floats":
                vals = tuple(c_atof(p) for p in parts)
                if not self.sorted_cutoffs:
                    return vals
                if len(set(vals)) != len(vals):
                    raise ValueError("duplicate cutoffs")
                return tuple(sorted(vals))
            if self.param_kind == "pairs":
                pairs: list[tuple[str, float]] = []
                for p in parts:
                    key, eq, val = p.partition("=")
                    if not eq or not key:
                        raise ValueError("parameters are name=value pairs")
                    pairs.append((key, c_atof(val)))
                return tuple(pairs)
            if self.param_kind == "cut_beta":
                cut_betas: set[tuple[int, float]] = set()  # a repeated pair counts once
                for p in parts:
                    k, eq, beta = p.partition("=")
                    cut_beta = (int(k), float(beta) if eq else 1.0)
                    if cut_beta[0] <= 0 or not cut_beta[1] >= 0:
                        raise ValueError("cutoffs must be positive and beta non-negative")
                    cut_betas.add(cut_beta)
                return tuple(sorted(cut_betas))
            if self.param_kind == "gains":
                gains: list[tuple[int, float]] = []
                for p in parts:
                    lvl, _, g = p.partition("=")
                    gains.append((int(lvl), float(g)))
                return tuple(gains)
        except ValueError as exc:
            raise ValueError(f"bad parameters {text!r} for measure {self.name}: {exc}") from None
        raise ValueError(f"measure {self.name} takes no parameters")


_REG: dict[str, Measure] = {}


def register(measure: Measure) -> Measure:
    """Add a measure family to the registry (later registrations of the same name replace it)."""
    _REG[measure.name] = measure
    return measure


SINGLE = {"relstring", "utility", "11pt_avg", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "set_F", "E_set",
          "rbp", "rbp_resid"}
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}


def _m(name, desc, func, kind="none", defaults=(), agg="mean", hib=True, trec_=True, out="float"):
    register(Measure(name, desc, func, kind, tuple(defaults), agg, hib, trec_, out, name in SINGLE,
                     name in SUMMARY_ONLY))


# trec_eval 10.0 print order (measures.c), then the extras.
_m("num_q", "Number of topics evaluated", trec.num_q, agg="sum", out="int")
_m("num_ret", "Number of documents retrieved", trec.num_ret, agg="sum", out="int")
_m("num_rel", "Number of relevant documents in the qrels", trec.num_rel, agg="sum", out="int")
_m("num_rel_ret", "Number of relevant documents retrieved", trec.num_rel_ret, agg="sum", out="int")
_m("map", "Mean average precision (AP over all relevant documents)", trec.map_)
_m("gm_map", "Geometric mean of AP (floor 1e-5)", trec.gm_map, agg="gmean")
_m("Rprec", "Precision after R documents, R = number relevant", trec.rprec)
_m("bpref", "Binary preference (Buckley & Voorhees 2004), unjudged documents skipped", trec.bpref)
_m("recip_rank", "Reciprocal rank of the first relevant document", trec.recip_rank)
_m("iprec_at_recall", "Interpolated precision at recall levels (10.0 rounding: lround(pct*R))",
   trec.iprec_at_recall, "floats", RECALL_POINTS)
_m("P", "Precision at rank cutoffs (divides by k)", trec.p_at, "ints", CUTS)
_m("relstring", "Relevance values of the top N documents as a string (per topic only)", trec.relstring,
   "floats", (10,), agg="none", out="str")
_m("recall", "Recall at rank cutoffs (divides by number relevant)", trec.recall_at, "ints", CUTS)
_m("infAP", "Inferred AP (Yilmaz & Aslam); negative grades = pooled but unjudged", trec.infap)
_m("gm_bpref", "Geometric mean of bpref", trec.gm_bpref, agg="gmean")
_m("Rprec_mult", "Precision at multiples of R (cutoff (long)(m*R+0.9))", trec.rprec_mult, "floats",
   (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0))
_m("utility", "Linear utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret", trec.utility, "floats",
   (1.0, -1.0, 0.0, 0.0))
_m("11pt_avg", "Mean interpolated precision over the 11 recall points", trec.eleven_pt_avg, "floats",
   RECALL_POINTS)
_m("binG", "Binary G (trec_eval experimental): mean over relevant docs of 1/log2(2 + non-relevant retrieved before)",
   gain.bin_g)
_m("G", "Normalised gain G (trec_eval experimental): gain / log2(2 + ideal cost - gain so far); gains remappable",
   gain.g_measure, "gains")
_m("dcg", "Discounted cumulative gain (linear gain, log2(rank+1))", gain.dcg, "gains")
_m("ideal_dcg", "DCG of the ideal ranking of all judged documents", gain.ideal_dcg, "gains")
_m("ndcg", "Normalised DCG over the whole ranking (Järvelin & Kekäläinen); gains remappable", gain.ndcg, "gains")
_m("ndcg_rel", "nDCG averaged over relevant documents (trec_eval experimental)", gain.ndcg_rel, "gains")
_m("Rndcg", "nDCG averaged at R-level changes (trec_eval experimental)", gain.rndcg, "gains")
_m("ndcg_cut", "nDCG at rank cutoffs (raw grade as gain)", gain.ndcg_cut, "ints", CUTS)
_m("map_cut", "AP truncated at rank cutoffs", trec.map_cut, "ints", CUTS)
_m("relative_P", "Precision at k divided by min(k, R)", trec.relative_p, "ints", CUTS)
_m("success", "1 if a relevant document is in the top k", trec.success, "ints", (1, 5, 10))
_m("set_P", "Precision of the whole retrieved set", trec.set_p)
_m("set_relative_P", "Relevant retrieved / min(retrieved, R)", trec.set_relative_p)
_m("set_recall", "Recall of the whole retrieved set", trec.set_recall)
_m("set_map", "set_P * set_recall", trec.set_map)
_m("set_F", "F-measure of the retrieved set, (x+1)PR/(xP+R) with x the parameter as given (default 1)", trec.set_f,
   "floats", (1.0,))
_m("num_nonrel_judged_ret", "Number of judged non-relevant documents retrieved", trec.num_nonrel_judged_ret,
   agg="sum", hib=False, out="int")
_m("rbp", "Rank-biased precision (Moffat & Zobel 2008), persistence rbp.p=0.9, grades scaled to [0, 1] (level=gain "
   "pairs remap them)", gain.rbp, "pairs", ())
_m("rbp_resid", "RBP residual: p^num_ret + (1-p) * sum of p^(i-1) over unjudged ranks i (0 without unjudged documents)",
   gain.rbp_resid, "pairs", ())
_m("unj", "Fraction of the top k not judged (absent from the qrels or negative grade); divides by k", gain.unj_at,
   "ints", (5, 10, 20))
_m("judged", "Fraction of the top k present in the qrels (judged@k)", gain.judged_at, "ints", (10,), trec_=False)
_m("judged_ret", "Fraction of the top k present in the qrels over min(k, retrieved) (ir_measures' Judged@k)",
   gain.judged_ret_at, "ints", (10,), trec_=False)

# Textbook variants (lecture notes), under explicit names; never part of all_trec.
_m("recall_capped", "Recall@k over min(#relevant, k) (trec_eval's recall_k divides by #relevant)",
   variants.recall_capped, "ints", CUTS, trec_=False)
_m("ndcg_exp_cut", "nDCG@k with exponential gain 2^rel-1, discount log2(i+1) (ndcg_cut uses linear gain)",
   variants.ndcg_exp_cut, "ints", CUTS, trec_=False)
_m("cg_cut", "Cumulated gain@k: sum of the grades in the top k", variants.cg_cut, "ints", CUTS, trec_=False)
_m("ncg_cut", "Normalised cumulated gain@k: CG@k / ideal CG@k", variants.ncg_cut, "ints", CUTS, trec_=False)
_m("dcg_log2i_cut", "DCG@k as rel_1 + sum_{i>=2} rel_i/log2 i (trec_eval discounts by log2(i+1))",
   variants.dcg_log2i_cut, "ints", CUTS, trec_=False)
_m("idcg_log2i_cut", "Ideal DCG@k in the rel_1 + sum rel_i/log2 i form", variants.idcg_log2i_cut, "ints", CUTS,
   trec_=False)
_m("ndcg_log2i_cut", "nDCG@k in the rel_1 + sum rel_i/log2 i form", variants.ndcg_log2i_cut, "ints", CUTS,
   trec_=False)
_m("recip_rank_cut", "Reciprocal rank, 0 when the first relevant document is below rank k (MRR@k)",
   variants.recip_rank_cut, "ints", (10,), trec_=False)
_m("F_cut", "F_beta@k of P@k and recall@k (params k or k=beta; default beta 1)", variants.f_cut, "cut_beta",
   ((10, 1.0),), trec_=False)
_m("E_cut", "van Rijsbergen's E@k = 1 - F_beta@k (lower is better)", variants.e_cut, "cut_beta", ((10, 1.0),),
   hib=False, trec_=False)
_m("E_set", "E on the retrieved set = 1 - set_F (beta parameter, default 1; lower is better)", variants.e_set,
   "floats", (1.0,), hib=False, trec_=False)

OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P")
# trec_eval's all_trec (runid is printed by the CLI); its print order is the registry order, and it
# leaves out dcg and ideal_dcg although they are trec_eval measures.
ALL_TREC = tuple(n for n in _REG if _REG[n].trec and n not in ("dcg", "ideal_dcg"))
SET = ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map",
       "set_F")
NICKNAMES = {"official": OFFICIAL, "all_trec": ALL_TREC, "set": SET}


def registry() -> dict[str, Measure]:
    """Return the registered families in print order."""
    return dict(_REG)


@dataclass(frozen=True)
class Request:
    """One requested measure family with resolved parameters."""

    measure: Measure
    params: tuple = field(default=())
    printable: str | None = None  # parameter text as given, for trec_eval's "<name>_<params>" names

    @property
    def name(self) -> str:
        return self.measure.name


def _order(name: str) -> int:
    return list(_REG).index(name)


def resolve(specs: Iterable[str]) -> list[Request]:
    """Resolve trec_eval measure specs into requests, one per family, in trec_eval's print order.

    As trec_eval 10.0: a family named several times takes the parameters of the first spec
    that gives any (``-m P.5 -m P.10`` prints P_5 only; ``-m all_trec -m P.1,2`` prints P_1
    and P_2). ir_measures names (``nDCG@10``, ``P@5``, ``AP``) are accepted too; see ``aliases``.

    >>> [(r.name, r.params) for r in resolve(["P.10,5", "map", "P_20"])]
    [('map', ()), ('P', (5, 10))]
    """
    from .aliases import is_alias, trec_spec

    marked: set[str] = set()
    given: dict[str, str] = {}
    alias_cuts: dict[str, set[int]] = {}  # nDCG@5 and nDCG@10 both print, as ir_measures users expect
    for spec in specs:
        spec = str(spec).strip()
        alias = is_alias(spec)
        spec = trec_spec(spec)
        if spec in NICKNAMES:
            marked.update(NICKNAMES[spec])
            continue
        fam, params = _split_spec(spec)
        marked.add(fam)
        if params is None:
            continue
        if params == "":
            raise ValueError(f"measure {spec!r}: empty parameter list")
        if alias and _REG[fam].param_kind == "ints":
            alias_cuts.setdefault(fam, set()).update(_REG[fam].parse_params(params))
        else:
            given.setdefault(fam, params)
    out = []
    for fam in sorted(marked, key=_order):
        m = _REG[fam]
        text = given.get(fam)
        values = m.parse_params(text)
        if fam in alias_cuts:
            values = tuple(sorted(alias_cuts[fam].union(values if text is not None else ())))
        printable = text if text is not None and m.param_kind != "none" else None
        out.append(Request(m, values, printable))
    return out


def _split_spec(spec: str) -> tuple[str, str | None]:
    if spec in _REG:
        return spec, None
    if "." in spec:
        fam, _, params = spec.partition(".")
        if fam in _REG:
            return fam, params
    # underscore form: P_10, ndcg_cut_10, iprec_at_recall_0.50, Rprec_mult_0.20
    for fam in sorted(_REG, key=len, reverse=True):
        if spec.startswith(fam + "_") and _REG[fam].param_kind in ("ints", "floats", "cut_beta"):
            return fam, spec[len(fam) + 1:]
    raise ValueError(f"unknown measure {spec!r}")
