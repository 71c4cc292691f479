"""The judging workspace shared by experts and crowd workers: state as JSON, submit, back.

Both the expert page (``/judge/<id>/``) and the crowd page (``/crowd/<token>/``) resolve an
``Assessor`` first (each its own way) and then call these functions, so the judging rules
live in one place. Gold flags and other assessors' labels are never sent to the browser
(blind judging; a worker must not be able to spot honeypots).
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpRequest, JsonResponse
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from campaign_core.guidelines import render_markdown
from campaign_core.keys import labels_with_keys
from collections_app.models import Topic
from collections_app.query_terms import query_terms
from judging.models import Assessor, Campaign, Item, Judgment
from judging.refusals import refusal_status
from judging.selectors import progress_for_assessor
from judging.serializers import SubmitSerializer
from judging.services.allocation import item_next, item_peek_next
from judging.services.judgments import judgment_previous, judgment_submit


def _items(queryset):
    return queryset.select_related("pair__topic", "pair__document")


def item_payload(item: Item, *, judgment: Judgment | None = None) -> dict:
    """Serialize one pair for the browser: topic, document and (when revisiting) my earlier label.

    Text goes out as JSON strings; the page inserts it with textContent only.
    """
    pair = item.pair
    topic = pair.topic
    document = pair.document
    return {
        "item": item.pk,
        "qid": topic.qid,
        "topic": {"title": topic.title, "description": topic.description, "narrative": topic.narrative},
        "terms": query_terms(topic.title),
        "docno": pair.docno,
        "doc": {
            "title": document.title if document else "",
            "text": document.text if document else "(document text unavailable)",
            "url": document.url if document else "",
        },
        "judgment": None if judgment is None else {
            "id": judgment.pk,
            "grade": judgment.grade,
            "skipped": judgment.skipped,
            "comment": judgment.comment,
        },
    }


def _reload(item: Item | None) -> Item | None:
    """Fetch the item with its topic and document in one query (services may return bare rows)."""
    if item is None:
        return None
    return _items(Item.objects).get(pk=item.pk)


def workspace_state(*, assessor: Assessor) -> dict:
    """Return what the page shows next: the leased current pair, the preloaded one, my progress."""
    if assessor.blocked:
        return {"current": None, "next": None, "progress": progress_for_assessor(assessor=assessor), "blocked": True}
    if assessor.campaign.status != Campaign.Status.ACTIVE:
        return {"current": None, "next": None, "progress": progress_for_assessor(assessor=assessor), "closed": True}
    current = _reload(item_next(assessor=assessor))
    following = _reload(item_peek_next(assessor=assessor, after_item=current)) if current else None
    return {
        "current": item_payload(current) if current else None,
        "next": item_payload(following) if following else None,
        "progress": progress_for_assessor(assessor=assessor),
        "blocked": False,
    }


def _error(detail: str, code: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"detail": detail, "code": code}, status=status)


def handle_state(request: HttpRequest, assessor: Assessor) -> JsonResponse:
    """Answer GET state.json."""
    return JsonResponse(workspace_state(assessor=assessor))


def handle_submit(request: HttpRequest, assessor: Assessor) -> JsonResponse:
    """Answer POST submit.json: record (or revise) one judgment, then return the new state.

    The body is the API's submit body (``serializers.SubmitSerializer``: item, grade, skipped,
    skip_reason, comment, active_seconds, client_token), parsed and validated by the same
    parser and serializer, and recorded by the same service, so the page and the API share
    every rule; refusals get the API's statuses (``judging.refusals``). A repeated
    client_token is answered like the first (the service is idempotent on it).
    """
    if request.method != "POST":
        return _error("POST required.", "method", 405)
    try:
        body = JSONParser().parse(request)  # type: ignore[arg-type]  # an HttpRequest is a readable stream
    except ParseError:
        return _error("Malformed judgment.", "malformed")
    data = SubmitSerializer(data=body if isinstance(body, dict) else {})
    if not data.is_valid():
        return _error(f"Malformed judgment: {_first_error(data.errors)}", "malformed")
    values = dict(data.validated_data)
    item = Item.objects.filter(pk=values.pop("item"), campaign_id=assessor.campaign_id).first()
    if item is None:
        return _error("No such pair in this campaign.", "not_found", 404)
    try:
        judgment = judgment_submit(assessor=assessor, item=item, **values)
    except ValidationError as error:
        return _error("; ".join(error.messages), error.code or "invalid", refusal_status(error.code))
    assessor.refresh_from_db(fields=["blocked"])
    state = workspace_state(assessor=assessor)
    state["saved"] = {"item": item.pk, "judgment": judgment.pk, "client_token": values["client_token"]}
    return JsonResponse(state)


def _first_error(errors) -> str:
    """Return the first message of a serializer's errors, prefixed with its field."""
    for field, messages in errors.items():
        message = messages[0] if isinstance(messages, list) else messages
        return str(message) if field == "non_field_errors" else f"{field}: {message}"
    return ""


def handle_back(request: HttpRequest, assessor: Assessor) -> JsonResponse:
    """Answer GET back.json?before=<judgment id>: my judgment before that one, to look at or revise."""
    before = None
    raw = request.GET.get("before")
    if raw:
        before = Judgment.objects.filter(pk=raw if raw.isdigit() else 0, assessor=assessor).first()
    previous = judgment_previous(assessor=assessor, before=before)
    if previous is None:
        return JsonResponse({"previous": None})
    item = _items(Item.objects).get(pk=previous.item_id)
    return JsonResponse({"previous": item_payload(item, judgment=previous)})


def page_context(*, assessor: Assessor, urls: dict[str, str]) -> dict:
    """Return the template context of the judging page: the initial state is rendered inline.

    The labels carry the campaign's keys (``campaign_core.keys``); guidelines are Markdown
    rendered to sanitised HTML here, once per page, and placed by the template (each topic's
    in a hidden block that the script shows beside its topic), so the script never parses HTML.
    """
    campaign = assessor.campaign
    collection = campaign.collection
    labels = labels_with_keys(collection.scale, campaign.keys)
    topic_guidelines = {
        qid: render_markdown(text)
        for qid, text in Topic.objects.filter(collection=collection, pool_pairs__pool_id=campaign.pool_id)
        .exclude(guidelines="").order_by().values_list("qid", "guidelines").distinct()
    }
    return {
        "assessor": assessor,
        "campaign": campaign,
        "collection": collection,
        "scale": labels,
        "campaign_guidelines": render_markdown(campaign.guidelines),
        "topic_guidelines": topic_guidelines,
        "initial": {"state": workspace_state(assessor=assessor), "scale": labels, "urls": urls},
    }
