"""CSV cells that a spreadsheet opens as data, never as a formula.

Exports carry text typed by crowd workers (comments, worker ids). A spreadsheet runs a cell
that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a formula, so such
text gets a leading apostrophe (OWASP's advice for CSV injection). Numbers are left alone:
a negative grade is data, not a formula.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """Return ``value`` as it should be written to a CSV export cell.

    >>> [csv_cell(v) for v in (None, True, -1, "=HYPERLINK(1)", "fine")]
    ['', 'true', -1, "'=HYPERLINK(1)", 'fine']
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
