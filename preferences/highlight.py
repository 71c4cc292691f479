"""Snippets with query terms highlighted, built safely (the terms are ``collections_app.query_terms``).

The text is escaped first and only then are matches wrapped in <mark>; the terms are matched
against the escaped text with the escaped form of each term, so no input (document text,
title or query) can introduce markup. The result is marked safe only after that.
"""
from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def snippet(text: str, terms: list[str], *, width: int = 240) -> str:
    """Return about ``width`` characters of plain text around the first query term (or the start)."""
    text = " ".join((text or "").split())
    lower = text.lower()
    hits = [lower.find(t) for t in terms if lower.find(t) >= 0]
    start = max(0, min(hits) - width // 3) if hits else 0
    piece = text[start:start + width]
    return ("… " if start else "") + piece + (" …" if start + width < len(text) else "")


def highlight(text: str, terms: list[str]) -> SafeString:
    """Escape ``text`` and wrap whole-word occurrences of ``terms`` in <mark>."""
    escaped = escape(text or "")
    if not terms:
        return mark_safe(escaped)  # noqa: S308 (escaped above)
    pattern = re.compile(r"\b(" + "|".join(re.escape(escape(t)) for t in terms) + r")\b", re.IGNORECASE)
    return mark_safe(pattern.sub(r"<mark>\1</mark>", escaped))  # noqa: S308 (escaped, then only <mark> added)
