"""ir_measures names (``nDCG@10``, ``P@5``, ``AP``, ``RBP(p=0.8)``) for our trec_eval measures.

Every name maps to exactly one of our implementations, and only where the values are the
same (tests/metrics/test_aliases.py checks each against its trec_eval measure, and against
the ir_measures package when it is installed). A measure object from ir_measures works
too: its ``str()`` is its name. Parameters we cannot honour exactly (``rel=2``, ``judged_only``,
``gains``) are refused rather than ignored.
"""

from __future__ import annotations

import re

# ir_measures name -> (trec_eval family, whether the name takes "@k")
NAMES: dict[str, tuple[str, bool]] = {
    "AP": ("map", False),
    "AP@": ("map_cut", True),
    "P@": ("P", True),
    "R@": ("recall", True),
    "RR": ("recip_rank", False),
    "RR@": ("recip_rank_cut", True),
    "nDCG": ("ndcg", False),
    "nDCG@": ("ndcg_cut", True),
    "Rprec": ("Rprec", False),
    "Bpref": ("bpref", False),
    "Judged@": ("judged_ret", True),  # over min(k, retrieved); our judged_k divides by k
    "infAP": ("infAP", False),
    "NumQ": ("num_q", False),
    "NumRet": ("num_ret", False),
    "NumRel": ("num_rel", False),
    "NumRelRet": ("num_rel_ret", False),
    "SetP": ("set_P", False),
    "SetR": ("set_recall", False),
    "SetF": ("set_F", False),
    "SetAP": ("set_map", False),
    "Success@": ("success", True),
    "RBP": ("rbp", False),
}
_ALIAS = re.compile(r"(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cut>[0-9]+))?")


def is_alias(spec: str) -> bool:
    """Return whether ``spec`` is an ir_measures name we know (not a trec_eval name)."""
    m = _ALIAS.fullmatch(spec)
    if not m:
        return False
    key = m["name"] + ("@" if m["cut"] is not None else "")
    return key in NAMES


def trec_spec(spec: str) -> str:
    """Return the trec_eval spec for an ir_measures name, or ``spec`` unchanged when it is not one.

    >>> [trec_spec(s) for s in ("nDCG@10", "P@5", "AP", "RBP(p=0.5)", "map", "P.5")]
    ['ndcg_cut.10', 'P.5', 'map', 'rbp.p=0.5', 'map', 'P.5']
    """
    m = _ALIAS.fullmatch(spec)
    if not m:
        return spec
    key = m["name"] + ("@" if m["cut"] is not None else "")
    if key not in NAMES:
        return spec
    family, cut = NAMES[key]
    params = _params(m["params"], spec)
    if family == "rbp":
        p = params.pop("p", None)
        if params:
            raise ValueError(f"measure {spec!r}: only RBP's p parameter is supported")
        return family if p is None else f"rbp.p={p}"
    if params:
        raise ValueError(f"measure {spec!r}: parameters {', '.join(params)} are not supported "
                         "(use trec_eval's -l for the relevance level)")
    return f"{family}.{m['cut']}" if cut else family


def _params(text: str | None, spec: str) -> dict[str, str]:
    if not text:
        return {}
    out = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"measure {spec!r}: parameters are name=value")
        out[key.strip()] = value.strip()
    return out


def output_name(spec: str) -> str | None:
    """Return the trec_eval output name an ir_measures name's values are printed under, else None.

    >>> output_name("nDCG@10"), output_name("AP"), output_name("RBP(p=0.5)"), output_name("map")
    ('ndcg_cut_10', 'map', 'rbp_p=0.5', None)
    """
    if not is_alias(spec):
        return None
    trec = trec_spec(spec)
    fam, _, params = trec.partition(".")
    if not params:
        return fam
    return f"{fam}_{params}"
