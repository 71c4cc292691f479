"""The leaderboard's per-topic scores as a CSV download: one row per (run, topic), one column per measure.

Open to every member of the collection, like the leaderboard itself. Written by the shared
export writer (campaign_core.exports: formula guard, stable header, streamed). Columns:
``run, qid`` then the leaderboard's measures by their trec_eval output names (``map``,
``ndcg_cut_10``, ``P_10``, ``Rprec``, ``bpref``, ``judged_10``); rows by run tag, then qid as
the metrics library yields them (trec_eval order).
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET

from campaign_core.exports import export_download
from collections_app.access import collection_for_user
from evaluation.leaderboard import MEASURE_NAMES
from evaluation.selectors import board

PER_TOPIC_FIELDS = ("run", "qid", *MEASURE_NAMES)


def per_topic_rows(results):
    """Yield {run, qid, measure: value} for every run's every scored topic, runs by tag."""
    for result in sorted(results, key=lambda r: r.tag):
        for qid, values in result.per_topic.items():
            yield {"run": result.tag, "qid": qid, **{n: float(values[n]) for n in MEASURE_NAMES if n in values}}


@login_required
@require_GET
def per_topic_download(request: HttpRequest, slug: str, fmt: str) -> HttpResponseBase:
    """Download every run's per-topic scores against ?source= (the default source when empty)."""
    collection = collection_for_user(request.user, slug)
    try:
        scored = board(collection, source=request.GET.get("source") or None, estimates=False)
    except ValidationError as exc:
        raise Http404(exc.messages[0]) from None
    if fmt not in ("csv", "jsonl"):
        raise Http404("Unknown export format.")
    return export_download(per_topic_rows(scored.results), fields=PER_TOPIC_FIELDS, fmt=fmt,
                           stem=f"{collection.slug}-per-topic")
