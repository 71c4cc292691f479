"""The words of a topic worth highlighting in a document: one rule for every judging page.

Pure text, no database: the relevance judging page sends these terms to the browser, the
preference panels mark them in escaped text (``preferences.highlight``).
"""
from __future__ import annotations

import re

WORD = re.compile(r"\w+")
STOPWORDS = frozenset(
    "a an and are as at be by for from has have how in is it its of on or that the this to was what"
    " when where which who why will with does do did can about into than then there their".split()
)


def query_terms(text: str) -> list[str]:
    """Return the distinct lower-case content words of ``text`` in the order they first appear.

    One-letter words and common English function words are left out.

    >>> query_terms("What is the noise of a Wind turbine, wind farm?")
    ['noise', 'wind', 'turbine', 'farm']
    >>> query_terms("")
    []
    """
    seen: dict[str, None] = {}
    for word in WORD.findall((text or "").lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word)
    return list(seen)
