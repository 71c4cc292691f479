"""One error shape for the whole API: {"detail": ..., "code": ...}.

Field validation errors keep DRF's per-field messages under "errors" so that
clients can show them next to the inputs.
"""
from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from qrelsmith.errors import ProblemsError

logger = logging.getLogger("django.request")


def _view_name(context: dict[str, Any]) -> str:
    view = context.get("view")
    return type(view).__name__ if view is not None else "an API view"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Translate exceptions into the API's single error shape."""
    if isinstance(exc, ProblemsError):
        return Response(
            {
                "detail": str(exc).splitlines()[0],
                "code": exc.code,
                "problems": [str(problem) for problem in exc.problems],
                "total": exc.total,
            },
            status=status.HTTP_400_BAD_REQUEST,
        )
    # Django's own 404/403 would otherwise lose their code on the way through DRF.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    if isinstance(exc, DjangoValidationError):
        code = getattr(exc, "code", None) or "invalid"
        return Response({"detail": " ".join(exc.messages), "code": code}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is None:
        # Anything else is a server error: still the API's shape (clients retry 5xx with the same
        # client token), with the details in the log rather than in the response.
        logger.error("API error in %s", _view_name(context), exc_info=(type(exc), exc, exc.__traceback__))
        return Response(
            {"detail": "Internal server error; the administrators can find details in the logs. "
                       "Retry with the same client token.", "code": "server_error"},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    if isinstance(exc, exceptions.ValidationError):
        codes = exc.get_codes()
        first_code = _first_code(codes) or "invalid"
        response.data = {"detail": _first_message(response.data), "code": first_code, "errors": response.data}
    elif isinstance(exc, exceptions.APIException):
        response.data = {"detail": str(exc.detail), "code": exc.get_codes() if isinstance(exc.get_codes(), str) else "error"}
    return response


def _first_code(codes: Any) -> str | None:
    if isinstance(codes, str):
        return codes
    if isinstance(codes, dict):
        for value in codes.values():
            found = _first_code(value)
            if found:
                return found
    if isinstance(codes, list):
        for value in codes:
            found = _first_code(value)
            if found:
                return found
    return None


def _first_message(data: Any) -> str:
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        for key, value in data.items():
            message = _first_message(value)
            if message:
                return message if key in ("non_field_errors", "detail") else f"{key}: {message}"
    if isinstance(data, list):
        for value in data:
            message = _first_message(value)
            if message:
                return message
    return ""
