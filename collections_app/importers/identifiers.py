"""The one character rule for identifiers that come from files: qids, docnos and run tags.

Identifiers end up in URLs, in PostgreSQL text columns and in TREC files that other tools
read back, so every importer checks them against the same rule instead of finding out later
(a NUL byte that PostgreSQL refuses at pool time, a ``/`` in a run tag that no URL can route):

- not empty, and no longer than the column that stores it;
- no whitespace (TREC formats split on it) and no control characters (NUL included);
- run tags also without ``/``, ``\\``, ``?``, ``#`` and ``%``, which URL routing and
  quoting would change.

``identifier_problem`` returns the reason an identifier breaks the rule, or ``None``; the
importers turn that reason into their usual ``file:line: problem`` error.
"""
from __future__ import annotations

import unicodedata

MAX_LENGTH = {"qid": 100, "docno": 255, "run tag": 200}
_TAG_FORBIDDEN = frozenset("/\\?#%")


def identifier_problem(value: str, kind: str) -> str | None:
    """Say why ``value`` cannot be a ``kind`` ("qid", "docno" or "run tag"), or return None.

    >>> identifier_problem("FBIS3-10082", "docno") is None
    True
    >>> identifier_problem("team/run1", "run tag")
    "run tag 'team/run1' contains '/', which URLs cannot carry"
    >>> identifier_problem("a\\x00b", "docno")
    "docno 'a\\\\x00b' contains a control character (U+0000)"
    """
    if not value:
        return f"empty {kind}"
    limit = MAX_LENGTH.get(kind)
    if limit is not None and len(value) > limit:
        return f"{kind} {value[:40]!r}… is {len(value)} characters long (at most {limit})"
    for ch in value:
        if ch.isspace():
            return f"{kind} {value!r} contains whitespace"
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d":
            return f"{kind} {value!r} contains a control character (U+{ord(ch):04X})"
        if kind == "run tag" and ch in _TAG_FORBIDDEN:
            return f"{kind} {value!r} contains {ch!r}, which URLs cannot carry"
    return None
