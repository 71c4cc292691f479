"""Background jobs: uploads and pool builds started from the web or API run outside the request.

A request calls ``job_start``: it saves the uploaded files to default storage (so a worker on
another host can read them when MEDIA_ROOT is shared), records a ``Job`` row and enqueues
``job_run`` through Django's tasks API (django-tasks). The task calls the same services the
management commands call, storing progress, then the result or the readable problems.

Jobs survive their workers: while a job runs, a thread writes ``Job.heartbeat_at`` every
JOB_HEARTBEAT_SECONDS. ``jobs_reap`` (run by ``manage.py reap`` beside the workers) finds running
jobs whose heartbeat stopped: an import (all-or-nothing, so its transaction died with the worker)
is queued once more, which either imports the file or is refused as already imported, and
anything else, or a second loss, ends failed with the reason on the job page.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, close_old_connections, connection, connections
from django.utils import timezone
from django.utils.text import get_valid_filename
from django_tasks import task

from collections_app.models import Collection, Job
from collections_app.services import imports
from collections_app.services.pools import pool_build, pool_deepen

logger = logging.getLogger(__name__)
audit = logging.getLogger("qrelsmith.audit")

# Progress is written at most this often: a row update per parsed line would dominate the import.
PROGRESS_INTERVAL_SECONDS = 0.5
MAX_ERRORS_SHOWN = 50


def job_start(
    *,
    collection: Collection,
    kind: str,
    uploads: Iterable[Any] = (),
    parameters: dict | None = None,
    user=None,
) -> Job:
    """Save the uploads, record a job and enqueue its task; return the job (maybe already finished).

    With the immediate backend (tests) the task runs inside this call; with the database
    backend a ``db_worker`` process picks it up, so the request returns at once.
    """
    if kind not in Job.Kind.values:
        raise ValidationError(f"Unknown job kind {kind!r}.", code="invalid_kind")
    token = uuid.uuid4().hex
    files = []
    for upload in uploads:
        original = getattr(upload, "name", None) or "upload"
        base = get_valid_filename(original.rsplit("/", 1)[-1]) or "upload"
        path = default_storage.save(f"uploads/{collection.slug}/{token}/{base}", upload)
        files.append({"name": original, "path": path})
    job = Job.objects.create(
        collection=collection, kind=kind, files=files, parameters=parameters or {}, created_by=user
    )
    result = job_run.enqueue(job.pk)
    Job.objects.filter(pk=job.pk, task_id="").update(task_id=str(result.id))
    job.refresh_from_db()
    return job


@task()
def job_run(job_id: int) -> str:
    """Run one job to completion, recording its outcome on the row instead of raising.

    Import and pool problems are the user's to fix, so they end as a failed job with the
    problems listed; the uploaded files are removed either way.
    """
    job = Job.objects.select_related("collection", "created_by").get(pk=job_id)
    now = timezone.now()
    claimed = Job.objects.filter(pk=job.pk, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=now, heartbeat_at=now, worker=worker_name(), attempts=job.attempts + 1,
    )
    if not claimed:  # a duplicate delivery, or the reaper already ended the job: nothing to do
        logger.warning("Job %s is %s, not queued; skipped", job.pk, job.status)
        return job.status
    heartbeat = _Heartbeat(job.pk)
    heartbeat.start()
    try:
        result = _perform(job)
    except Exception as exc:  # noqa: BLE001 - every failure must end up on the job row
        errors, code = _describe_failure(exc)
        if code == "internal_error":
            logger.exception("Job %s failed", job.pk)
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.FAILED, errors=errors, error_code=code, finished_at=timezone.now()
        )
    else:
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.SUCCEEDED, result=result, finished_at=timezone.now()
        )
    finally:
        heartbeat.stop()
        _remove_files(job)
    job.refresh_from_db()
    return job.status


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


class _Heartbeat:
    """Write the job's heartbeat from a thread (its own database connection) until stopped."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"job-{job_id}-heartbeat", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)  # a beat blocked on a lock must not hold up the job's end

    def _beat(self) -> None:
        interval = settings.JOB_HEARTBEAT_SECONDS
        try:
            while not self.stopped.wait(interval):
                try:
                    Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(heartbeat_at=timezone.now())
                except Exception:  # noqa: BLE001 - a missed beat is retried; the job itself goes on
                    logger.warning("Job %s: heartbeat not written", self.job_id, exc_info=True)
                    close_old_connections()
        finally:
            connection.close()


# Imports are all-or-nothing: a worker that died mid-import left nothing behind, so one retry is safe.
RETRYABLE_KINDS = frozenset({Job.Kind.TOPICS, Job.Kind.DOCUMENTS, Job.Kind.RUNS, Job.Kind.QRELS})
MAX_ATTEMPTS = 2


def jobs_reap(*, now=None) -> dict[str, int]:
    """Fail or retry running jobs whose worker died (heartbeat older than JOB_STALE_SECONDS).

    Returns {"retried": n, "failed": n}. Each decision is a conditional update on the stale
    row, so two reapers (or a worker that was only slow and beats again) cannot both act on it.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    counts = {"retried": 0, "failed": 0}
    stale = Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=cutoff)
    for job in stale:
        seen = timezone.localtime(job.heartbeat_at).strftime("%Y-%m-%d %H:%M:%S %Z")
        lost = f"The worker running this job ({job.worker or 'unknown'}) stopped; last heartbeat {seen}."
        mine = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, heartbeat_at=job.heartbeat_at)
        can_retry = job.kind in RETRYABLE_KINDS and job.attempts < MAX_ATTEMPTS and _files_exist(job)
        if can_retry:
            history = [*job.history, f"{lost} Nothing was imported (imports are all-or-nothing); queued again."]
            if mine.update(status=Job.Status.QUEUED, history=history, progress_done=0, heartbeat_at=None):
                result = job_run.enqueue(job.pk)
                Job.objects.filter(pk=job.pk).update(task_id=str(result.id))
                audit.warning("job %s (%s) lost its worker %s; retried", job.pk, job.kind, job.worker)
                counts["retried"] += 1
            continue
        if job.kind in RETRYABLE_KINDS:
            reason = f"{lost} Nothing was imported (imports are all-or-nothing); upload the file again."
        else:
            reason = f"{lost} Start it again."
        if mine.update(status=Job.Status.FAILED, error_code="worker_lost", errors=[reason],
                       history=[*job.history, reason], finished_at=now):
            _remove_files(job)
            audit.warning("job %s (%s) lost its worker %s; failed", job.pk, job.kind, job.worker)
            counts["failed"] += 1
    return counts


def uploads_orphaned_remove(*, older_than: timedelta = timedelta(hours=24)) -> int:
    """Delete uploads that no unfinished job refers to (left by a job whose files were never cleaned).

    Walks ``uploads/`` through the storage API, so it works on local folders and object stores
    alike; returns how many files were removed.
    """
    wanted = {entry["path"] for files in Job.objects.exclude(status__in=[Job.Status.SUCCEEDED, Job.Status.FAILED])
              .values_list("files", flat=True) for entry in files}
    limit = time.time() - older_than.total_seconds()
    removed = 0
    for folder, names in _folders_deepest_first("uploads"):
        for name in names:
            path = f"{folder}/{name}"
            if path not in wanted and default_storage.get_modified_time(path).timestamp() < limit:
                default_storage.delete(path)
                removed += 1
        if folder != "uploads":
            _remove_empty_directory(folder)  # local storage only; object stores have no folders
    return removed


def _folders_deepest_first(folder: str) -> Iterator[tuple[str, list[str]]]:
    """Yield (folder, its file names) for ``folder`` and every folder below it, children before parents."""
    try:
        subfolders, names = default_storage.listdir(folder)
    except FileNotFoundError:  # local storage before the first upload
        return
    for sub in subfolders:
        yield from _folders_deepest_first(f"{folder}/{sub}")
    yield folder, names


def _files_exist(job: Job) -> bool:
    return bool(job.files) and all(default_storage.exists(entry["path"]) for entry in job.files)


def _perform(job: Job) -> dict:
    progress = _ProgressRecorder(job.pk)
    try:
        return _dispatch(job, progress)
    finally:
        progress.close()


def _dispatch(job: Job, progress: _ProgressRecorder) -> dict:
    params = job.parameters
    collection = job.collection
    user = job.created_by
    if job.kind == Job.Kind.POOL:
        return _build_pool(job, progress)
    sources = [_open(entry) for entry in job.files]
    try:
        if not sources:
            raise ValidationError("No file was uploaded.", code="empty_upload")
        if job.kind == Job.Kind.RUNS:
            summary = imports.runs_import(
                collection=collection, sources=sources, replace=bool(params.get("replace")),
                group=params.get("group", ""), description=params.get("description", ""),
                user=user, progress=progress,
            )
        elif job.kind == Job.Kind.TOPICS:
            summary = imports.topics_import(
                collection=collection, source=sources[0], format=params.get("format") or None, progress=progress
            )
        elif job.kind == Job.Kind.DOCUMENTS:
            summary = imports.documents_import(
                collection=collection, source=sources[0], format=params.get("format") or None, progress=progress
            )
        else:
            summary = imports.qrels_import(
                collection=collection, source=sources[0], name=params.get("name") or None,
                user=user, progress=progress, allow_off_scale=bool(params.get("allow_off_scale")),
            )
    finally:
        for source in sources:
            source.close()
    return {
        "summary": summary.line(),
        "kind": summary.kind,
        "created": summary.created,
        "replaced": summary.replaced,
        "lines": summary.lines,
        "warnings": list(summary.warnings),
    }


def _build_pool(job: Job, progress: _ProgressRecorder) -> dict:
    if job.parameters.get("deepen"):
        pool = job.collection.pools.filter(name=job.parameters["deepen"]).first()
        if pool is None:
            raise ValidationError("The pool no longer exists.", code="not_found")
        pool = pool_deepen(pool=pool, depth=job.parameters["depth"], progress=progress)
        return {
            "summary": f"pool {pool.name}: deepened to depth {job.parameters['depth']}, {pool.pairs.count()} pairs",
            "pool_id": pool.pk, "pool_name": pool.name, "pairs": pool.pairs.count(),
        }
    allowed = {
        "name", "strategy", "depth", "budget", "fusion", "order", "seed", "run_tags",
        "max_runs_per_group", "exclude_judged", "strata",
    }
    kwargs = {key: value for key, value in job.parameters.items() if key in allowed}
    pool = pool_build(collection=job.collection, user=job.created_by, progress=progress, **kwargs)
    return {
        "summary": f"pool {pool.name}: {pool.pairs.count()} pairs",
        "pool_id": pool.pk,
        "pool_name": pool.name,
        "pairs": pool.pairs.count(),
    }


def _open(entry: dict):
    handle = default_storage.open(entry["path"], "rb")
    # Problems must name the file as the user called it, not its storage path.
    handle.name = entry["name"]
    return handle


def _remove_files(job: Job) -> None:
    for entry in job.files:
        try:
            default_storage.delete(entry["path"])
        except OSError:  # a missing file is fine; the job is over either way
            logger.warning("Could not remove %s", entry["path"])
    if job.files:
        _remove_empty_directory(os.path.dirname(job.files[0]["path"]))


def _remove_empty_directory(name: str) -> None:
    """Remove the job's upload directory on local storage; object stores have no directories."""
    try:
        os.rmdir(default_storage.path(name))
    except (NotImplementedError, OSError):
        pass


def _describe_failure(exc: Exception) -> tuple[list[str], str]:
    problems = getattr(exc, "problems", None)
    if problems is not None:  # ImportFailed (collections_app.importers.errors)
        problems = [str(problem) for problem in problems]
        total = max(getattr(exc, "total", None) or 0, len(problems))
        if not problems:
            problems = [str(exc)]
        problems = problems[:MAX_ERRORS_SHOWN]
        if total > len(problems):
            problems.append(f"... and {total - len(problems)} more")
        return problems, getattr(exc, "code", "") or "invalid_file"
    if isinstance(exc, ValidationError):
        return list(exc.messages), getattr(exc, "code", None) or "invalid"
    return [f"Internal error ({type(exc).__name__}); the administrators can find details in the logs."], "internal_error"


class _ProgressRecorder:
    """Callable passed to services as ``progress(done, total)``; throttles the row updates.

    Services run each import in one transaction, so a progress write on the worker's own
    connection would stay invisible to the polling page until the import commits (and would
    hold the job row's lock). Inside such a transaction on PostgreSQL the write goes through a
    second connection that commits at once. SQLite allows one writer only, so there progress
    shows when the transaction ends.
    """

    def __init__(self, job_id: int, *, clock=time.monotonic) -> None:
        self.job_id = job_id
        self.clock = clock
        self.last = float("-inf")
        self.depth = len(connection.atomic_blocks)
        self.side: Any = None  # a second connection, opened on first use (PostgreSQL only)

    def __call__(self, done: int, total: int | None = None) -> None:
        now = self.clock()
        if now - self.last < PROGRESS_INTERVAL_SECONDS:
            return
        self.last = now
        inside_service_transaction = len(connection.atomic_blocks) > self.depth
        if not inside_service_transaction:
            Job.objects.filter(pk=self.job_id).update(progress_done=done, progress_total=total)
        elif connection.vendor == "postgresql":
            if self.side is None:
                self.side = connections.create_connection(DEFAULT_DB_ALIAS)
            with self.side.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {Job._meta.db_table} SET progress_done = %s, progress_total = %s WHERE id = %s",
                    [done, total, self.job_id],
                )

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
            self.side = None
