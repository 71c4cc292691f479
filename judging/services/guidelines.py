"""A lead's settings of how a campaign is judged: its label keys and its guidelines, and topics' guidelines."""
from __future__ import annotations

from django.db import transaction

from campaign_core.keys import validate_keys
from collections_app.models import Topic
from judging.models import Campaign


@transaction.atomic
def campaign_set_keys_and_guidelines(
    *, campaign: Campaign, keys: dict[str, str], guidelines: str, topic_guidelines: dict[str, str] | None = None
) -> Campaign:
    """Save the campaign's keys (only those that differ from the scale's) and Markdown guidelines.

    ``topic_guidelines`` maps qids of the campaign's collection to their new Markdown guidelines;
    topics not named keep theirs. Raises ValidationError(code="key_clash") and changes nothing
    when two grades share a key or a key is one the judging page already uses.
    """
    scale = campaign.collection.scale
    validate_keys(scale, keys)
    defaults = {str(g["grade"]): g.get("key") for g in scale}
    campaign.keys = {grade: key for grade, key in keys.items() if key != defaults.get(grade)}
    campaign.guidelines = guidelines
    campaign.save(update_fields=["keys", "guidelines"])
    for qid, text in (topic_guidelines or {}).items():
        Topic.objects.filter(collection_id=campaign.collection_id, qid=qid).update(guidelines=text)
    return campaign
