"""Leads' decisions on a campaign of either kind, kept in Django's admin log.

Rejudge requests, blocks and unblocks, and status changes of relevance and preference
campaigns are all written the same way: a ``LogEntry`` (action CHANGE) on the campaign whose
``change_message`` is a JSON object starting with ``"kind"``. The admin then shows who did what
and when without a table of our own, and because the message starts with its kind the
database can pick one kind out with a prefix match instead of reading every entry.
"""
from __future__ import annotations

import json
from collections.abc import Iterable

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Model, Q, QuerySet

from collections_app.models import Membership


def audit(*, campaign: Model, user, kind: str, **details) -> LogEntry:
    """Write one decision on ``campaign`` (any campaign model) by ``user``: ``{"kind": kind, **details}``."""
    return LogEntry.objects.create(
        user=user, content_type=ContentType.objects.get_for_model(type(campaign)), object_id=str(campaign.pk),
        object_repr=str(campaign)[:200], action_flag=CHANGE, change_message=json.dumps({"kind": kind, **details}),
    )


def audit_entries(*, campaign: Model, kinds: Iterable[str]) -> QuerySet:
    """Return the campaign's log entries of the given kinds, newest first, users joined."""
    wanted = Q()
    for kind in kinds:
        wanted |= Q(change_message__startswith=json.dumps({"kind": kind})[:-1])
    return LogEntry.objects.filter(
        wanted, content_type=ContentType.objects.get_for_model(type(campaign)), object_id=str(campaign.pk),
    ).select_related("user").order_by("-action_time", "-pk")


def audit_messages(entries: Iterable[LogEntry], kinds: Iterable[str]) -> list[tuple[LogEntry, dict]]:
    """Return (entry, message) for each entry whose message is a JSON object of one of ``kinds``."""
    kinds = set(kinds)
    out = []
    for entry in entries:
        try:
            data = json.loads(entry.change_message)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("kind") in kinds:
            out.append((entry, data))
    return out


def audit_automatic(*, campaign: Model, kind: str, **details) -> LogEntry | None:
    """Write something the application decided on its own (e.g. a refused crowd worker) to the campaign's log.

    The admin log needs a user: the campaign's creator stands in, else a lead of its
    collection, and the message says ``"by": "system"`` so nobody reads it as their decision.
    Returns None (nothing written) when the campaign has neither.
    """
    user = getattr(campaign, "created_by", None)
    if user is None:
        lead = Membership.objects.filter(
            collection_id=campaign.collection_id,  # type: ignore[attr-defined]  # every campaign kind has one
            role=Membership.Role.LEAD).first()
        user = lead.user if lead is not None else None
    if user is None:
        return None
    return audit(campaign=campaign, user=user, kind=kind, by="system", **details)
