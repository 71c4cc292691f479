"""The HTTP status of each code a judging service refuses with, for the API and the judging page alike.

A refusal that is about the state of things (the campaign is closed, the batch is full, the
assessor is blocked) is not a malformed request: it gets its own status, the same on both
entry points; every other refusal is a 400.
"""
from __future__ import annotations

from http import HTTPStatus

REFUSAL_STATUS = {
    "campaign_closed": HTTPStatus.CONFLICT,
    "batch_complete": HTTPStatus.CONFLICT,
    "blocked": HTTPStatus.FORBIDDEN,
    "not_found": HTTPStatus.NOT_FOUND,
}


def refusal_status(code: str | None) -> int:
    """Return the HTTP status for a service's ValidationError code (400 unless listed above)."""
    return int(REFUSAL_STATUS.get(code or "", HTTPStatus.BAD_REQUEST))
