"""What the assessor page shows for an item: the topic and the two panels in placement order."""
from __future__ import annotations

from collections_app.query_terms import query_terms
from preferences.highlight import highlight, snippet
from preferences.models import PrefItem


def panel_docs(item: PrefItem, docnos: list[str], terms: list[str]) -> list[dict]:
    """Return rank, docno, highlighted title, snippet and full text (all escaped) for each docno."""
    docs = {d.docno: d for d in item.campaign.collection.documents.filter(docno__in=docnos)}
    rows = []
    for rank, docno in enumerate(docnos, 1):
        doc = docs.get(docno)
        title, text = (doc.title, doc.text) if doc else ("", "")
        rows.append({"rank": rank, "docno": docno, "title": highlight(title or docno, terms),
                     "snippet": highlight(snippet(text, terms), terms), "text": highlight(text, terms)})
    return rows


def item_view(item: PrefItem) -> dict:
    """Return the template context of one item: left and right panels (placement applied)."""
    terms = query_terms(item.topic.title)
    a, b = panel_docs(item, item.a_docnos, terms), panel_docs(item, item.b_docnos, terms)
    left, right = (a, b) if item.left_is_a else (b, a)
    return {"item": item, "topic": item.topic, "left": left, "right": right}
