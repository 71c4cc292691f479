"""Background jobs: uploads and pool builds started from the web or API run outside the request.

A request calls ``job_start``: it saves the uploaded files to default storage (so a worker on
another host can read them when MEDIA_ROOT is shared), records a ``Job`` row and enqueues
``job_run`` through Django's tasks API (django-tasks). The task calls the same services the
management commands call, storing progress, then the result or the readable problems.
"""
from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.utils import timezone
from django.utils.text import get_valid_filename
from django_tasks import task

from collections_app.models import Collection, Job
from collections_app.services import imports
from collections_app.services.pools import pool_build, pool_deepen

logger = logging.getLogger(__name__)

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
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now())
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
        _remove_files(job)
    job.refresh_from_db()
    return job.status


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
