"""Send disagreed pairs to one more assessor: raise their required judgments by one, audited, idempotent.

The dashboard's "send these pairs to one more assessor" posts a topic or an assessor pair.
The disagreed items it selects (``judging.selectors.disputed_items``) each need one more
judgment than they required; allocation then serves them again to someone who has not
judged them. An item is left alone when one more judgment could never arrive — more
required than the campaign has active (unblocked) assessors.

Audit: every request is written to Django's admin log (``LogEntry``, action CHANGE on the
campaign) with the lead, the filter, the token and the items raised, since the judging
models keep no history of ``required_judgments``. Idempotency: the form carries a random
token; a replayed token (double click, resubmitted form) finds its log entry and changes
nothing. The campaign row is locked so two submits with one token cannot both pass the check.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from campaign_core.services.audit import audit, audit_entries, audit_messages
from judging.models import Assessor, Campaign, Item
from judging.selectors import disputed_items

AUDIT_KIND = "rejudge"


@dataclass(frozen=True)
class RejudgeResult:
    """What a request did: items raised, items left alone (no assessor left), and whether it was a replay."""

    raised: tuple[int, ...]
    skipped: tuple[int, ...]
    replay: bool = False


def rejudge_history(*, campaign: Campaign) -> list[dict]:
    """Return the campaign's rejudge requests, newest first: {"at", "user", "topic", "assessors", "raised", "skipped"}."""
    rows = []
    for entry, data in audit_messages(audit_entries(campaign=campaign, kinds=[AUDIT_KIND]), [AUDIT_KIND]):
        rows.append({"at": entry.action_time, "user": entry.user.get_username(), "topic": data.get("topic"),  # type: ignore[attr-defined]  # LogEntry.user is the User model
                     "assessors": data.get("assessors", []), "raised": data.get("raised", []),
                     "skipped": data.get("skipped", [])})
    return rows


@transaction.atomic
def rejudge_request(*, campaign: Campaign, user, token: str, topic: str | None = None,
                    assessors: tuple[int, ...] = ()) -> RejudgeResult:
    """Raise ``required_judgments`` by one on the disagreed items of a topic and/or assessor pair.

    Raises ValidationError(code="no_filter") without a topic or assessors (a lead never
    re-sends a whole campaign by accident), code="bad_token" without a token, and
    code="bad_assessor" for an assessor id outside the campaign.
    """
    if not token or len(token) > 64:
        raise ValidationError("A request token is required.", code="bad_token")
    if not topic and not assessors:
        raise ValidationError("Choose a topic or a pair of assessors.", code="no_filter")
    assessors = tuple(sorted({int(a) for a in assessors}))
    if assessors and Assessor.objects.filter(campaign=campaign, pk__in=assessors).count() != len(assessors):
        raise ValidationError("Unknown assessor for this campaign.", code="bad_assessor")
    Campaign.objects.select_for_update().get(pk=campaign.pk)
    replays = audit_entries(campaign=campaign, kinds=[AUDIT_KIND]).filter(change_message__contains=json.dumps(token))
    for _, data in audit_messages(replays, [AUDIT_KIND]):
        if data.get("token") == token:
            return RejudgeResult(tuple(data["raised"]), tuple(data["skipped"]), replay=True)
    active = Assessor.objects.filter(campaign=campaign, blocked=False).count()
    chosen = list(
        disputed_items(campaign=campaign, topic=topic, assessors=assessors)
        .order_by("position").values_list("pk", "required_judgments")
    )
    raised = tuple(pk for pk, required in chosen if required + 1 <= active)
    skipped = tuple(pk for pk, required in chosen if required + 1 > active)
    Item.objects.filter(pk__in=raised).update(required_judgments=F("required_judgments") + 1)
    audit(campaign=campaign, user=user, kind=AUDIT_KIND, token=token, topic=topic or None,
          assessors=list(assessors), raised=list(raised), skipped=list(skipped))
    return RejudgeResult(raised, skipped)
