"""The reaper: jobs whose worker died end failed or are retried once; expired leases and orphaned uploads go."""
from __future__ import annotations

import io
import os
import time
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from collections_app import tasks
from collections_app.models import Job, Topic
from ops import reaper


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def stranded(collection, *, kind=Job.Kind.TOPICS, attempts=1, files=True, age=600) -> Job:
    """A job left 'running' by a worker that died ``age`` seconds after its last heartbeat."""
    entries = []
    if files:
        path = default_storage.save(f"uploads/{collection.slug}/abc/t.tsv", io.BytesIO(b"101\tfirst\n102\tsecond\n"))
        entries = [{"name": "t.tsv", "path": path}]
    beat = timezone.now() - timedelta(seconds=age)
    return Job.objects.create(collection=collection, kind=kind, status=Job.Status.RUNNING, files=entries,
                              started_at=beat, heartbeat_at=beat, worker="host-1:4242", attempts=attempts)


def test_a_stranded_import_is_retried_once_and_then_completes(collection, media):
    job = stranded(collection)
    assert tasks.jobs_reap() == {"retried": 1, "failed": 0}
    job.refresh_from_db()  # the immediate backend ran the retry inside jobs_reap
    assert job.status == Job.Status.SUCCEEDED and job.attempts == 2
    assert "host-1:4242" in job.history[0] and "queued again" in job.history[0]
    assert sorted(Topic.objects.values_list("qid", flat=True)) == ["101", "102"]


def test_a_second_loss_fails_the_job_with_the_reason(collection, media):
    job = stranded(collection, attempts=2)
    assert tasks.jobs_reap() == {"retried": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.error_code == "worker_lost"
    assert "stopped; last heartbeat" in job.errors[0] and "upload the file again" in job.errors[0]
    assert not default_storage.exists(job.files[0]["path"])
    assert not Topic.objects.exists()


def test_a_stranded_pool_build_fails_rather_than_retrying(collection, media):
    job = stranded(collection, kind=Job.Kind.POOL, files=False)
    assert tasks.jobs_reap() == {"retried": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.errors[0].endswith("Start it again.")


def test_a_job_with_a_fresh_heartbeat_is_left_alone(collection, media, settings):
    settings.JOB_STALE_SECONDS = 120
    job = stranded(collection, age=30)
    assert tasks.jobs_reap() == {"retried": 0, "failed": 0}
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING


def test_a_finished_job_delivered_again_is_not_run_twice(collection, lead, media):
    upload = SimpleUploadedFile("t.tsv", b"101\tfirst\n")
    job = tasks.job_start(collection=collection, kind=Job.Kind.TOPICS, uploads=[upload], user=lead)
    assert job.status == Job.Status.SUCCEEDED
    assert tasks.job_run.call(job.pk) == Job.Status.SUCCEEDED  # a duplicate delivery: skipped
    job.refresh_from_db()
    assert job.attempts == 1 and Topic.objects.count() == 1


def test_the_job_page_says_what_happened(client, lead, collection, media):
    job = stranded(collection, attempts=2)
    tasks.jobs_reap()
    client.force_login(lead)
    body = client.get(f"/c/demo/jobs/{job.pk}/").content.decode()
    assert "The worker stopped" in body and "host-1:4242" in body


def test_orphaned_uploads_are_removed_but_live_ones_kept(collection, media):
    live = stranded(collection, age=10)
    orphan = default_storage.save("uploads/demo/dead/old.run", io.BytesIO(b"x"))
    old = time.time() - 3 * 24 * 3600
    for path in (orphan, live.files[0]["path"]):
        os.utime(default_storage.path(path), (old, old))
    assert tasks.uploads_orphaned_remove() == 1
    assert not default_storage.exists(orphan) and default_storage.exists(live.files[0]["path"])
    assert not os.path.isdir(default_storage.path("uploads/demo/dead"))


def test_one_pass_expires_the_leases_of_every_campaign_kind(collection, media, monkeypatch):
    import campaign_core.services.leases as core_leases

    monkeypatch.setattr(core_leases, "leases_expire", lambda **kw: 5)
    stranded(collection, attempts=2)
    counts = reaper.reap_once()
    assert counts == {"retried": 0, "failed": 1, "expired_leases": 5, "orphaned_uploads": 0}
