"""``GET /healthz`` for load balancers: 200 when every dependency answers, 503 otherwise."""
from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops.health import health


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    ok, checks = health()
    return JsonResponse({"status": "ok" if ok else "unavailable", "checks": checks}, status=200 if ok else 503)
