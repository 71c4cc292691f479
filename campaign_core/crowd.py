"""Crowd workers of any campaign kind: who may join, resuming, consent, completion codes, the lead's export.

Relevance (``judging``) and preference (``preferences``) campaigns both call this module; each
kind describes itself once with a ``CrowdKind`` (its assessor model, how it audits, how it
counts gold answers), so every rule below is written once for both.

The rules, and why:

* **A platform id is not proof of identity.** Anyone can type someone else's ``PROLIFIC_PID``
  into the link. The first browser that arrives with an id creates the worker and is bound
  to it (``campaign_core.crowd_binding``); another browser with the same id is refused
  (``bound_elsewhere``) and the refusal is audited. The worker's own way back from another
  browser is their secret resume link (``crowd_resume``), shown on the consent page.
* **Expected platform ids.** When the lead sets the campaign's ``crowd_study_id`` (Prolific
  ``STUDY_ID``) or ``crowd_hit_id`` (MTurk ``hitId``), links without that value are refused.
* **Limits.** At most ``crowd_max_workers`` workers per campaign (checked under the campaign's
  row lock, so two joins cannot both take the last place), and at most
  ``crowd_max_new_per_ip_hour`` new workers per IP address and clock hour, counted in Django's
  cache (shared between processes when the cache is Redis). Anonymous entry (no platform id)
  only when ``crowd_anonymous_allowed``.
* **Completion codes are per worker**: 80 random bits, stored on the worker, shown once
  (``crowd_code_reveal``), and valid only for that worker (``crowd_code_check``). The lead's
  export lists (platform id, code, judged, gold accuracy, status) for approving submissions.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import io
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, Model
from django.utils import timezone

from campaign_core.services.audit import audit_entries, audit_messages
from qrelsmith.csv_cells import csv_cell

PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_ID = 200
PROLIFIC_KEYS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
MTURK_KEYS = ("workerId", "assignmentId", "hitId", "turkSubmitTo")
PLATFORM_KEYS = ("PROLIFIC_PID", "workerId", "assignmentId")
PROLIFIC, MTURK, LINK, PREVIEW = "prolific", "mturk", "link", "preview"
CROWD = "crowd"
IP_WINDOW_SECONDS = 3600
AUDIT_KIND = "crowd_refused"
CODE_BYTES = 10  # 80 bits: guessing one worker's code is hopeless, and the code is still short to paste


@dataclass(frozen=True)
class CrowdKind:
    """What the crowd rules need to know about one campaign kind."""

    name: str  # "judging" or "preferences": cache keys, cookie names
    assessor_model: type[Model]
    audit: Callable[..., object]  # audit(campaign=, kind=, **details): an automatic entry in the campaign's log
    audit_lead: Callable[..., object]  # audit(campaign=, user=, kind=, **details): a lead's decision
    gold_by_assessor: Callable[[Any], dict[int, tuple[int, int]]]  # campaign -> {assessor id: (correct, answered)}


@dataclass(frozen=True)
class Identity:
    """Who a link says the visitor is: the mode (prolific, mturk, link, preview), the worker id, platform data."""

    mode: str
    worker_id: str
    data: dict


class CrowdRefused(ValidationError):
    """A join or resume the rules refuse; ``code`` says which rule (the page explains it to the visitor)."""


def _param(params, key: str) -> str:
    value = params.get(key, "") or ""
    return str(value).strip()[:MAX_ID]


def identify(params) -> Identity:
    """Return who the link's query parameters say the visitor is.

    >>> identify({"PROLIFIC_PID": "p1", "STUDY_ID": "s"})
    Identity(mode='prolific', worker_id='p1', data={'PROLIFIC_PID': 'p1', 'STUDY_ID': 's'})
    >>> identify({"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"}).mode
    'preview'
    >>> identify({}).mode
    'link'
    """
    if _param(params, "PROLIFIC_PID"):
        data = {k: _param(params, k) for k in PROLIFIC_KEYS if _param(params, k)}
        return Identity(PROLIFIC, _param(params, "PROLIFIC_PID"), data)
    if _param(params, "assignmentId") == PREVIEW_ASSIGNMENT:
        return Identity(PREVIEW, "", {})
    if _param(params, "workerId"):
        data = {k: _param(params, k) for k in MTURK_KEYS if _param(params, k)}
        return Identity(MTURK, _param(params, "workerId"), data)
    return Identity(LINK, "", {})


def has_platform_ids(params) -> bool:
    """Return True if the link names a worker or an assignment (then it wins over the browser's binding)."""
    return any(_param(params, key) for key in PLATFORM_KEYS)


def is_open(campaign) -> bool:
    """Return True if the campaign takes crowd work now (crowd mode on and the campaign active)."""
    return bool(campaign.crowd_enabled) and campaign.status == "active"


def ip_fingerprint(ip: str) -> str:
    """Return a keyed hash of an IP address: refusals from one address can be told apart without storing it."""
    return hmac.new(settings.SECRET_KEY.encode(), (ip or "").encode(), hashlib.sha256).hexdigest()[:16]


def _refuse(kind: CrowdKind, campaign, code: str, message: str, *, ip: str, **details) -> CrowdRefused:
    """Audit a refusal (once per campaign, rule and address per hour, so a flood cannot flood the log) and return it."""
    fingerprint = ip_fingerprint(ip)
    hour = int(timezone.now().timestamp()) // IP_WINDOW_SECONDS
    if cache.add(f"crowd-refusal:{kind.name}:{campaign.pk}:{code}:{fingerprint}:{hour}", 1, IP_WINDOW_SECONDS):
        kind.audit(campaign=campaign, kind=AUDIT_KIND, code=code, ip=fingerprint, **details)
    return CrowdRefused(message, code=code)


def _ip_key(kind: CrowdKind, campaign, ip: str) -> str:
    hour = int(timezone.now().timestamp()) // IP_WINDOW_SECONDS
    return f"crowd-new:{kind.name}:{campaign.pk}:{ip_fingerprint(ip)}:{hour}"


def _check_expected_ids(kind: CrowdKind, campaign, who: Identity, ip: str) -> None:
    """Refuse a Prolific link for another study, or an MTurk link for another HIT, when the lead set the expected one."""
    if who.mode == PROLIFIC and campaign.crowd_study_id and who.data.get("STUDY_ID") != campaign.crowd_study_id:
        raise _refuse(kind, campaign, "wrong_study", "This link is not for this study.", ip=ip,
                      worker_id=who.worker_id, study_id=who.data.get("STUDY_ID", ""))
    if who.mode == MTURK and campaign.crowd_hit_id and who.data.get("hitId") != campaign.crowd_hit_id:
        raise _refuse(kind, campaign, "wrong_hit", "This link is not for this task.", ip=ip,
                      worker_id=who.worker_id, hit_id=who.data.get("hitId", ""))


def _workers(kind: CrowdKind, campaign):
    return kind.assessor_model._default_manager.filter(campaign=campaign, kind=CROWD)


def _count_new_worker(kind: CrowdKind, campaign, ip: str) -> None:
    key = _ip_key(kind, campaign, ip)
    cache.add(key, 0, IP_WINDOW_SECONDS)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr: this worker opens a new window
        cache.set(key, 1, IP_WINDOW_SECONDS)


def _create(kind: CrowdKind, campaign, who: Identity, ip: str):
    """Create a new worker within the campaign's caps; return the existing one if the same id won a race."""
    model = kind.assessor_model
    refusal = None
    with transaction.atomic():
        # The campaign's row lock makes "count, then create" one step: two joins cannot both take the last
        # place, and the caps are read as the lead last saved them.
        locked = type(campaign).objects.select_for_update().get(pk=campaign.pk)
        if who.worker_id:
            existing = _workers(kind, campaign).filter(platform=who.mode, worker_id=who.worker_id).first()
            if existing is not None:
                return existing, False
        ip_cap = locked.crowd_max_new_per_ip_hour if ip else 0
        if locked.crowd_max_workers and _workers(kind, campaign).count() >= locked.crowd_max_workers:
            refusal = ("campaign_full", "This study has all the workers it needs.")
        elif ip_cap and (cache.get(_ip_key(kind, campaign, ip)) or 0) >= ip_cap:
            refusal = ("too_many_from_address",
                       "Too many new workers started from your network in the last hour. Try again later.")
        else:
            worker_id = who.worker_id or "anon-" + secrets.token_hex(8)
            try:
                with transaction.atomic():
                    worker = model._default_manager.create(campaign=campaign, kind=CROWD, platform=who.mode,
                                                  worker_id=worker_id, platform_data=who.data)
            except IntegrityError:  # the same id joining twice at once on a backend without row locks
                return _workers(kind, campaign).get(platform=who.mode, worker_id=worker_id), False
            if ip_cap:
                _count_new_worker(kind, campaign, ip)  # still under the lock: the next join sees this one
    if refusal is not None:  # audited outside the transaction above, which an exception inside would roll back
        raise _refuse(kind, campaign, *refusal, ip=ip, worker_id=who.worker_id)
    return worker, True


def crowd_join(*, kind: CrowdKind, campaign, params, bound=None, ip: str = ""):
    """Return the crowd worker a platform link may act as, creating a new one within the limits; None for a preview.

    ``bound`` is the worker this browser is bound to (``crowd_binding.bound_worker``), ``ip``
    the visitor's address. Raises ``CrowdRefused`` with code ``crowd_closed``, ``wrong_study``,
    ``wrong_hit``, ``anonymous_off``, ``bound_elsewhere`` (the id belongs to a worker bound to
    another browser), ``campaign_full`` or ``too_many_from_address``; every refusal but
    ``crowd_closed`` is audited.
    """
    if not is_open(campaign):
        raise CrowdRefused("This study is not open.", code="crowd_closed")
    who = identify(params)
    if who.mode == PREVIEW:
        return None
    if not who.worker_id:
        if bound is not None:
            return bound
        if not campaign.crowd_anonymous_allowed:
            raise _refuse(kind, campaign, "anonymous_off",
                          "Open this study from your platform (Prolific or Mechanical Turk): the link lacks your id.", ip=ip)
        return _create(kind, campaign, who, ip)[0]
    _check_expected_ids(kind, campaign, who, ip)
    existing = _workers(kind, campaign).filter(platform=who.mode, worker_id=who.worker_id).first()
    if existing is None:
        worker, created = _create(kind, campaign, who, ip)
        if created or (bound is not None and bound.pk == worker.pk):
            return worker
        existing = worker  # another browser created this id a moment ago
    if bound is None or bound.pk != existing.pk:
        raise _refuse(kind, campaign, "bound_elsewhere",
                      "This id already started in another browser. Use the resume link you were given there.",
                      ip=ip, worker_id=who.worker_id)
    if who.data and who.data != existing.platform_data:
        # A new MTurk assignment or Prolific session of the same worker: the completion form posts the latest ids.
        existing.platform_data = {**existing.platform_data, **who.data}
        existing.save(update_fields=["platform_data"])
    return existing


def crowd_resume(*, kind: CrowdKind, campaign, secret: str, ip: str = ""):
    """Return the worker whose secret resume link this is (the caller then binds the browser to them).

    Raises ``CrowdRefused`` with code ``crowd_closed`` or ``bad_resume`` (audited).
    """
    if not is_open(campaign):
        raise CrowdRefused("This study is not open.", code="crowd_closed")
    worker = _workers(kind, campaign).filter(session_key=secret).first() if secret else None
    if worker is None:
        raise _refuse(kind, campaign, "bad_resume", "This resume link is not valid.", ip=ip)
    return worker


def crowd_consent(*, assessor) -> None:
    """Record that the worker agreed to the instructions (the first agreement's time is kept)."""
    if assessor.consented_at is None:
        now = timezone.now()
        type(assessor).objects.filter(pk=assessor.pk, consented_at__isnull=True).update(consented_at=now)
        assessor.refresh_from_db(fields=["consented_at"])


def new_completion_code() -> str:
    """Return a fresh completion code: 80 random bits as 16 base-32 letters and digits (no padding)."""
    return base64.b32encode(secrets.token_bytes(CODE_BYTES)).decode()


def crowd_complete(*, assessor, batch_done: bool) -> str:
    """Mark the worker's batch complete and return their own completion code (the same one on every call).

    Raises ValidationError with code "blocked" for a stopped worker and "batch_incomplete"
    before the batch is done.
    """
    if assessor.blocked:
        raise ValidationError("You have been stopped from judging in this campaign.", code="blocked")
    if assessor.completed_at is not None and assessor.completion_code:
        return assessor.completion_code
    if not batch_done:
        raise ValidationError("Your batch is not finished yet.", code="batch_incomplete")
    with transaction.atomic():
        locked = type(assessor).objects.select_for_update().get(pk=assessor.pk)
        if not locked.completion_code:
            locked.completion_code = new_completion_code()
        if locked.completed_at is None:
            locked.completed_at = timezone.now()
        locked.save(update_fields=["completed_at", "completion_code"])
    assessor.completed_at, assessor.completion_code = locked.completed_at, locked.completion_code
    return locked.completion_code


def crowd_code_reveal(*, assessor) -> str | None:
    """Return the worker's completion code if it was never shown before, and note that it now is; else None.

    One conditional UPDATE decides, so two tabs opened at once show it once between them.
    """
    if not assessor.completion_code:
        return None
    now = timezone.now()
    shown = type(assessor).objects.filter(pk=assessor.pk, completion_code_shown_at__isnull=True).update(
        completion_code_shown_at=now)
    if not shown:
        return None
    assessor.completion_code_shown_at = now
    return assessor.completion_code


def crowd_code_check(*, kind: CrowdKind, campaign, worker_id: str, code: str) -> bool:
    """Return True if ``code`` is the completion code this worker (by platform id) earned in the campaign."""
    stored = (_workers(kind, campaign).filter(worker_id=worker_id, completed_at__isnull=False)
              .values_list("completion_code", flat=True).first())
    return bool(stored) and hmac.compare_digest(stored.encode(), (code or "").strip().upper().encode())


# --- finishing on the crowd platform ---------------------------------------------------------


def completion_url(campaign, code: str) -> str:
    """Return the campaign's completion URL: ``{code}`` becomes the worker's code; else Prolific's ``?cc=``.

    ``cc`` carries the lead's platform code when set (Prolific recognises only its study's
    code), the worker's own code otherwise; a ``cc`` already in the URL is kept.

    >>> from types import SimpleNamespace as C
    >>> completion_url(C(crowd_completion_url="https://app.prolific.com/submissions/complete", crowd_completion_code=""), "AB12")
    'https://app.prolific.com/submissions/complete?cc=AB12'
    >>> completion_url(C(crowd_completion_url="https://app.prolific.com/submissions/complete", crowd_completion_code="C1"), "AB12")
    'https://app.prolific.com/submissions/complete?cc=C1'
    >>> completion_url(C(crowd_completion_url="https://example.org/done/{code}", crowd_completion_code=""), "AB12")
    'https://example.org/done/AB12'
    """
    url = campaign.crowd_completion_url
    if not url:
        return ""
    if "{code}" in url:
        return url.replace("{code}", code)
    parts = urlparse(url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("cc", campaign.crowd_completion_code or code)
    return urlunparse(parts._replace(query=urlencode(query)))


def mturk_submit(worker) -> dict | None:
    """Return where and what to POST to finish an MTurk assignment (externalSubmit), if the worker came from MTurk.

    Only an https ``turkSubmitTo`` is used (the sandbox and the live site both are), so a
    crafted link cannot make the page post a worker's assignment elsewhere in clear text.
    """
    if worker.platform != MTURK:
        return None
    data = worker.platform_data or {}
    base = str(data.get("turkSubmitTo", "")).rstrip("/")
    assignment = str(data.get("assignmentId", ""))
    if not base.startswith("https://") or not assignment:
        return None
    return {"action": base + "/mturk/externalSubmit", "assignment_id": assignment}


# --- the lead's export -----------------------------------------------------------------------

EXPORT_COLUMNS = ("platform", "platform_id", "completion_code", "judged", "gold_correct", "gold_answered",
                  "gold_accuracy", "status", "joined_at", "completed_at", "blocked_reason")


def worker_status(worker) -> str:
    """Return one word for where a worker stands: blocked, completed, judging or joined (not yet consented)."""
    if worker.blocked:
        return "blocked"
    if worker.completed_at is not None:
        return "completed"
    if worker.consented_at is not None:
        return "judging"
    return "joined"


def crowd_workers_rows(*, kind: CrowdKind, campaign) -> list[dict]:
    """Return one row per crowd worker of the campaign, in joining order, for approving submissions."""
    gold = kind.gold_by_assessor(campaign)
    workers = _workers(kind, campaign).annotate(judged=Count("judgments")).order_by("joined_at", "pk")
    rows = []
    for worker in workers:
        correct, answered = gold.get(worker.pk, (0, 0))
        rows.append({
            "platform": worker.platform, "platform_id": worker.worker_id,
            "completion_code": worker.completion_code if worker.completed_at else "",
            "judged": worker.judged, "gold_correct": correct, "gold_answered": answered,
            "gold_accuracy": round(correct / answered, 4) if answered else None,
            "status": worker_status(worker), "joined_at": worker.joined_at.isoformat(),
            "completed_at": worker.completed_at.isoformat() if worker.completed_at else None,
            "blocked_reason": worker.blocked_reason,
        })
    return rows


def crowd_workers_csv(*, kind: CrowdKind, campaign) -> str:
    """Return the lead's CSV of crowd workers: platform id, code, judged, gold accuracy, status."""
    return rows_to_csv(crowd_workers_rows(kind=kind, campaign=campaign))


def crowd_refusals(*, campaign, limit: int = 20) -> list[dict]:
    """Return the campaign's latest refused crowd entries, newest first: when, which rule, which id, which address."""
    entries = audit_entries(campaign=campaign, kinds=[AUDIT_KIND])[:limit]
    return [{"at": entry.action_time, **data} for entry, data in audit_messages(entries, [AUDIT_KIND])]


def rows_to_csv(rows: Iterable[dict], columns: Iterable[str] = EXPORT_COLUMNS) -> str:
    """Return the rows as CSV text, every cell guarded against spreadsheet formulas (ids are typed by workers)."""
    columns = list(columns)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row[c]) for c in columns])
    return out.getvalue()


# --- the lead's settings ---------------------------------------------------------------------

ENTRY_SETTINGS = ("crowd_study_id", "crowd_hit_id", "crowd_max_workers", "crowd_max_new_per_ip_hour",
                  "crowd_anonymous_allowed")


@transaction.atomic
def crowd_settings_update(*, kind: CrowdKind, campaign, user, **values) -> list[str]:
    """Change who may enter the campaign's crowd link (``ENTRY_SETTINGS``); audited; return the changed names.

    Raises ValidationError(code="bad_setting") for an unknown name or a negative cap.
    """
    unknown = set(values) - set(ENTRY_SETTINGS)
    if unknown:
        raise ValidationError(f"Unknown crowd settings: {', '.join(sorted(unknown))}.", code="bad_setting")
    for name in ("crowd_max_workers", "crowd_max_new_per_ip_hour"):
        if name in values and (values[name] is None or int(values[name]) < 0):
            raise ValidationError("Caps are whole numbers of at least 0.", code="bad_setting")
    changed = {name: value for name, value in values.items() if getattr(campaign, name) != value}
    if not changed:
        return []
    for name, value in changed.items():
        setattr(campaign, name, value)
    campaign.save(update_fields=list(changed))
    kind.audit_lead(campaign=campaign, user=user, kind="crowd_settings", **changed)
    return sorted(changed)
