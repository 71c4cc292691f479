"""Task tests against real worker processes (PostgreSQL): the database backend and RQ on Redis.

The suite's other task tests run inline (django-tasks' immediate backend). Here the test
enqueues through the configured backend and a separate ``db_worker`` or ``rqworker`` process
runs the job against the same test database, as in production. The last test SIGKILLs a
worker in the middle of an import: the reaper then retries it, and the job ends done or
failed, never "running", with the whole import in the database or none of it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone

from collections_app import tasks
from collections_app.models import Document, Job, Topic
from qrelsmith.env import tasks_config
from tests.conftest import make_collection

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/8")

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("worker processes need a database other processes can open (PostgreSQL)")


def database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def worker_env(settings, backend: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    env.update(DJANGO_SETTINGS_MODULE="qrelsmith.settings", QRELSMITH_DEV="1", DATABASE_URL=database_url(),
               MEDIA_ROOT=str(settings.MEDIA_ROOT), TASKS_BACKEND=backend, REDIS_URL=REDIS_URL,
               JOB_HEARTBEAT_SECONDS="1")
    return env


def start_worker(settings, backend: str, *, batch: bool) -> subprocess.Popen:
    if backend == "rq":
        command = ["rqworker", "default", "--job-class", "django_tasks_rq.Job"] + (["--burst"] if batch else [])
    else:
        command = ["db_worker", "--interval", "0.2"] + (["--batch"] if batch else [])
    return subprocess.Popen([sys.executable, "manage.py", *command], cwd=ROOT, env=worker_env(settings, backend),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def use_backend(settings, backend: str) -> None:
    settings.TASKS = {"default": tasks_config(backend)}
    settings.RQ_QUEUES = {"default": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 600}}
    if backend == "rq":
        import django_rq

        try:
            django_rq.get_connection("default").ping()
        except Exception as exc:  # noqa: BLE001
            pytest.skip(f"Redis is not reachable at {REDIS_URL} ({type(exc).__name__})")
        django_rq.get_queue("default").empty()


def wait_for(predicate, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


@pytest.mark.parametrize("backend", ["database", "rq"])
def test_a_real_worker_runs_an_upload_job(settings, tmp_path, lead, backend):
    settings.MEDIA_ROOT = tmp_path / "media"
    use_backend(settings, backend)
    collection = make_collection("demo", lead=lead)
    job = tasks.job_start(collection=collection, kind=Job.Kind.TOPICS, user=lead,
                          uploads=[SimpleUploadedFile("t.tsv", b"101\tfirst\n102\tsecond\n")])
    assert job.status == Job.Status.QUEUED  # nothing ran inline
    worker = start_worker(settings, backend, batch=True)
    try:
        assert worker.wait(timeout=180) == 0, worker.stderr.read().decode()[-2000:]
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.errors
    assert job.worker and job.attempts == 1
    assert sorted(Topic.objects.values_list("qid", flat=True)) == ["101", "102"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["database", "rq"])
def test_a_worker_killed_mid_import_leaves_all_or_nothing(settings, tmp_path, lead, backend):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.JOB_STALE_SECONDS = 5
    use_backend(settings, backend)
    collection = make_collection("demo", lead=lead)
    count = 60_000
    body = "".join(f"doc-{i}\tdocument number {i} about wind turbines and noise\n" for i in range(count)).encode()
    job = tasks.job_start(collection=collection, kind=Job.Kind.DOCUMENTS, user=lead,
                          uploads=[SimpleUploadedFile("docs.tsv", body)])
    worker = start_worker(settings, backend, batch=False)
    try:
        # Kill it once the import is under way: progress is written from inside its transaction.
        wait_for(lambda: Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, progress_done__gt=0).exists())
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING  # the worker died mid-import and could not say so
    assert Document.objects.filter(collection=collection).count() == 0  # its transaction died with it
    if backend == "rq":  # RQ marks the job of a dead work-horse itself; clear its registry like a restart would
        import django_rq

        django_rq.get_queue("default").empty()

    # The reaper, beside a fresh worker: the stale job is retried (or failed) and ends.
    assert tasks.jobs_reap(now=timezone.now() + timedelta(seconds=10)) == {"retried": 1, "failed": 0}
    second = start_worker(settings, backend, batch=True)
    try:
        assert second.wait(timeout=300) == 0, second.stderr.read().decode()[-2000:]
    finally:
        if second.poll() is None:
            os.killpg(second.pid, signal.SIGKILL)
    job.refresh_from_db()
    assert job.status in (Job.Status.SUCCEEDED, Job.Status.FAILED)
    assert Document.objects.filter(collection=collection).count() in (0, count)
    if job.status == Job.Status.SUCCEEDED:
        assert Document.objects.filter(collection=collection).count() == count
    assert job.attempts == 2 and "stopped; last heartbeat" in job.history[0]
