"""TREC qrels text, both ways: one strict codec for every place that reads or writes qrels text.

A line is ``qid iter docno grade``, whitespace-separated; ``iter`` is ignored (trec_eval ignores
it too) and written as ``0``. Reading follows trec_eval 10 and :func:`metrics.read_qrels`:
blank lines and lines starting with ``#`` are skipped; any other line must have exactly four
fields and an integer grade (negative grades are kept: judged but unusable), and a
(qid, docno) pair may appear once. A line that breaks a rule raises
:class:`metrics.MetricsInputError` naming the source, the line and the problem — nothing is
dropped silently. Writing sorts by qid (numerically when every qid is a whole number, so 2
comes before 10) and then docno, so the same labels always give the same bytes (and the
same checksum).

Labels are a mapping ``{(qid, docno): grade}``.
"""
from __future__ import annotations

import operator
from collections.abc import Mapping

from .io import MetricsInputError

Labels = dict[tuple[str, str], int]


def qrels_from_text(text: str, *, name: str = "qrels") -> Labels:
    """Return the labels of TREC qrels text, refusing any malformed line.

    ``name`` names the source in error messages (a file name, "qrels v3").

    >>> qrels_from_text("1 0 d1 2\\n# a comment\\n\\n1 0 d2 -1\\n")
    {('1', 'd1'): 2, ('1', 'd2'): -1}
    >>> qrels_from_text("1 0 d1\\n", name="v1")
    Traceback (most recent call last):
    ...
    metrics.io.MetricsInputError: v1:1: expected 4 whitespace-separated fields in a qrels line, found 3
    >>> qrels_from_text("1 0 d1 1\\n1 Q0 d1 2\\n", name="v1")
    Traceback (most recent call last):
    ...
    metrics.io.MetricsInputError: v1:2: duplicate docno 'd1' in topic '1' of the qrels
    """
    labels: Labels = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise MetricsInputError(f"expected 4 whitespace-separated fields in a qrels line, found {len(fields)}",
                                    path=name, line=number)
        qid, _, docno, raw = fields
        try:
            grade = int(raw)
        except ValueError:
            raise MetricsInputError(f"relevance {raw!r} is not an integer", path=name, line=number) from None
        if (qid, docno) in labels:
            raise MetricsInputError(f"duplicate docno {docno!r} in topic {qid!r} of the qrels", path=name,
                                    line=number)
        labels[(qid, docno)] = grade
    return labels


def qrels_to_text(labels: Mapping[tuple[str, str], int]) -> str:
    """Return labels as TREC qrels text, ``qid 0 docno grade`` per line, sorted by qid then docno.

    Raises ValueError for a qid or docno that is empty or holds white space (it could not be
    read back) and for a grade that is not an integer.

    >>> qrels_to_text({("10", "d2"): 1, ("2", "d9"): 0, ("2", "d10"): 2})
    '2 0 d10 2\\n2 0 d9 0\\n10 0 d2 1\\n'
    >>> labels = {("q1", "a"): 0, ("q1", "b"): 3}
    >>> qrels_from_text(qrels_to_text(labels)) == labels
    True
    """
    all_numeric = all(qid.isascii() and qid.isdigit() for qid, _ in labels)

    def order(item: tuple[tuple[str, str], int]) -> tuple[int, str, str]:
        (qid, docno), _ = item
        return (int(qid) if all_numeric else 0, qid, docno)

    lines = []
    for (qid, docno), grade in sorted(labels.items(), key=order):
        for value in (qid, docno):
            if not value or value.split() != [value]:
                raise ValueError(f"qid and docno must be non-empty and without white space, got {value!r}")
        try:
            whole = operator.index(grade)  # int or a numpy integer; never a float or a string
        except TypeError:
            whole = None
        if whole is None or isinstance(grade, bool):
            raise ValueError(f"grade of ({qid!r}, {docno!r}) must be an integer, got {grade!r}")
        lines.append(f"{qid} 0 {docno} {whole}\n")
    return "".join(lines)
