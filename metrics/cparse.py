"""What C's atol and atof make of a prefix of text, for trec_eval's measure parameters (``ndcg_cut.23.4``)."""

from __future__ import annotations

import re


def c_atol(text: str) -> int:
    """Return what C's atol makes of ``text``: the leading integer, 0 if there is none.

    >>> c_atol("23.4"), c_atol(" 7x"), c_atol("x")
    (23, 7, 0)
    """
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
    return int(m.group(1)) if m else 0


def c_atof(text: str) -> float:
    """Return what C's atof makes of ``text``: the longest leading decimal number, 0.0 if there is none.

    >>> c_atof("0.5"), c_atof("2e1x"), c_atof("x")
    (0.5, 20.0, 0.0)
    """
    m = re.match(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)", text)
    return float(m.group(1)) if m else 0.0
