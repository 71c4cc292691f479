"""Guidelines in Markdown, rendered to HTML that is safe to put on an assessor's page.

Leads write guidelines per campaign and per topic. Markdown gives them lists, emphasis,
headings, tables and links; raw HTML is never passed through: markdown-it renders with
``html`` off (so ``<script>`` stays text), and nh3 (the Rust ``ammonia`` sanitiser) then
keeps only a short list of tags and attributes and safe link schemes, so even a parser
bug cannot let markup or ``javascript:`` links reach the page.
"""
from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = frozenset({
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a", "kbd", "del", "s",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
})
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})

_parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)


def render_markdown(text: str) -> SafeString:
    """Return sanitised HTML for Markdown ``text`` (empty for blank text).

    >>> str(render_markdown("**Relevant** if <script>x</script> [ok](javascript:alert(1))"))
    '<p><strong>Relevant</strong> if &lt;script&gt;x&lt;/script&gt; [ok](javascript:alert(1))</p>\\n'
    """
    if not text or not text.strip():
        return mark_safe("")
    html = _parser.render(text)
    clean = nh3.clean(
        html, tags=set(ALLOWED_TAGS), attributes={tag: set(attrs) for tag, attrs in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES), link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above
