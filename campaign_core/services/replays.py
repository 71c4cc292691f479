"""Idempotent submits for both campaign kinds: find what a client token already recorded.

Every submit carries a token the browser (or API client) generates once per answer, so a
retried or doubled request finds the judgment its token recorded — as a first answer or as a
revision — instead of recording a second one. A token used by another assessor is refused.
"""
from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError


def judgment_replayed(*, token: str, assessor: Any, revision_model: Any) -> Any:
    """Return the judgment ``token`` already recorded (first answer or revision), or None.

    ``assessor`` is either kind's assessor (its ``judgments`` relation names the judgment
    model); ``revision_model`` is the kind's revision model (with ``judgment`` and
    ``client_token``). Raises ValidationError(code="token_reused") for another assessor's token.
    """
    judgment = assessor.judgments.model.objects.filter(client_token=token).first()
    if judgment is None:
        revision = revision_model.objects.filter(client_token=token).select_related("judgment").first()
        judgment = revision.judgment if revision else None
    if judgment is not None and judgment.assessor_id != assessor.pk:
        raise ValidationError("This client token was used by someone else.", code="token_reused")
    return judgment
