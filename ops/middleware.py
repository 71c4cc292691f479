"""Middleware for the API's error shape on every failure, and for the request size limit.

DRF's exception handler shapes errors raised inside API views. Failures outside them (an
unknown /api/ URL, a CSRF refusal, a database error in the session middleware, a 500 page
Django renders itself) would reach API clients as HTML; ``ApiErrorsMiddleware`` sits outermost
and turns any non-JSON error response under /api/ into ``{"detail": ..., "code": ...}``.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.template.response import SimpleTemplateResponse

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"
CODES = {
    400: "bad_request", 401: "not_authenticated", 403: "permission_denied", 404: "not_found",
    405: "method_not_allowed", 413: "too_large", 429: "throttled", 500: "server_error",
    502: "bad_gateway", 503: "unavailable",
}
MESSAGES = {
    404: "Not found.",
    500: "Internal server error; the administrators can find details in the logs. Retry with the same client token.",
}


class ApiErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        return api_error(response.status_code, _detail(response), headers=response)


def api_error(status: int, detail: str, *, headers=None) -> JsonResponse:
    """Return the API's error shape with the status's code word, keeping Allow/Retry-After headers."""
    response = JsonResponse({"detail": detail, "code": CODES.get(status, "error")}, status=status)
    if headers is not None:
        for name in ("Allow", "Retry-After", "WWW-Authenticate"):
            if headers.has_header(name):
                response[name] = headers[name]
    return response


def _detail(response: HttpResponse) -> str:
    if response.status_code in MESSAGES:
        return MESSAGES[response.status_code]
    if response.status_code == 403 and getattr(response, "reason_phrase", "") == "Forbidden":
        content = _text(response)
        if "CSRF" in content:
            return "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header, or use a token."
    return getattr(response, "reason_phrase", "") or "Error."


def _text(response: HttpResponse) -> str:
    if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
        return ""
    try:
        return response.content.decode("utf-8", "replace")[:2000]
    except Exception:  # noqa: BLE001 - streaming responses have no .content
        return ""


class RequestSizeLimitMiddleware:
    """Refuse a request body above UPLOAD_MAX_BYTES before anything reads it (413, clear message).

    Applies to every upload form and endpoint at once. Web pages get a short text page naming
    the limit; the API gets its JSON error shape.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = getattr(settings, "UPLOAD_MAX_BYTES", None)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit and length > limit:
            message = (f"The upload is {length / 2**20:,.1f} MB; the limit is {limit / 2**20:,.0f} MB per request. "
                       "Split the files over several uploads, or ask the administrators to raise UPLOAD_MAX_MB.")
            logger.warning("Refused a %s-byte request to %s (limit %s)", length, request.path, limit)
            if request.path.startswith(API_PREFIX):
                return api_error(413, message)
            body = f"<!doctype html><title>Upload too large</title><h1>Upload too large</h1><p>{message}</p>"
            return HttpResponse(body, status=413)
        return self.get_response(request)
