"""MEDIA_STORAGE=s3 against a real S3-protocol HTTP server: uploads, the job that reads them, the reaper, /healthz.

The server is moto's ``ThreadedMotoServer`` (an S3 implementation speaking HTTP on
127.0.0.1), so django-storages and boto3 go through their real network path: request
signing, PUT/GET/HEAD/DELETE and listing. Storage is configured the way a deployment does
it, from the documented environment variables read by ``qrelsmith.env.media_storage``. No
real AWS account is involved (see docs/deployment.md for what that leaves untested).
Skipped when moto is not installed (requirements-dev.txt pins it).
"""
from __future__ import annotations

import io
import socket
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from collections_app import tasks
from collections_app.models import Job, Topic
from qrelsmith.env import media_storage

moto_server = pytest.importorskip("moto.server", reason="moto[s3] with flask (requirements-dev.txt) is not installed")

pytestmark = pytest.mark.django_db

BUCKET = "qs-media-test"
PORTS = range(8184, 8190)  # this project's test ports; the first free one is used


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    pytest.skip("no free port for the S3 server")


@pytest.fixture(scope="module")
def s3_endpoint():
    """A real S3-protocol server on 127.0.0.1 for this module, with an empty bucket."""
    import boto3

    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="test-key", aws_secret_access_key="test-secret",
                 region_name="us-east-1").create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


@pytest.fixture
def s3_media(s3_endpoint, settings, monkeypatch):
    """Point default storage at the bucket through the environment, as a deployment would."""
    for name, value in {"MEDIA_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": BUCKET, "AWS_S3_ENDPOINT_URL": s3_endpoint,
                        "AWS_S3_REGION_NAME": "us-east-1", "AWS_ACCESS_KEY_ID": "test-key",
                        "AWS_SECRET_ACCESS_KEY": "test-secret", "MEDIA_S3_PREFIX": "media",
                        "AWS_MAX_ATTEMPTS": "1"}.items():
        monkeypatch.setenv(name, value)
    settings.STORAGES = {**settings.STORAGES, "default": media_storage("s3")}
    import boto3

    client = boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="test-key",
                          aws_secret_access_key="test-secret", region_name="us-east-1")
    yield client
    for entry in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=entry["Key"])


def keys(client) -> list[str]:
    return sorted(entry["Key"] for entry in client.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def test_an_uploaded_file_goes_to_the_bucket_and_the_job_reads_it_back_then_removes_it(
        s3_media, client, lead, collection, settings):
    assert default_storage.bucket_name == BUCKET
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}  # queued, not run inline
    client.force_login(lead)
    response = client.post("/api/collections/demo/topics/",
                           {"file": SimpleUploadedFile("t.tsv", b"101\tfirst topic\n102\tsecond topic\n")})
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    stored = job.files[0]["path"]
    assert keys(s3_media) == [f"media/{stored}"]  # the object is in the bucket, under the configured prefix
    assert job.status == Job.Status.QUEUED

    tasks.job_run.call(job.pk)  # what a task worker does with it

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert sorted(Topic.objects.filter(collection=collection).values_list("qid", flat=True)) == ["101", "102"]
    assert keys(s3_media) == []  # the finished job removed its upload


def test_the_reaper_removes_orphaned_objects_and_keeps_a_live_jobs_upload(s3_media, collection):
    live_path = default_storage.save("uploads/demo/live/t.tsv", io.BytesIO(b"101\tfirst\n"))
    Job.objects.create(collection=collection, kind=Job.Kind.TOPICS, status=Job.Status.RUNNING,
                       files=[{"name": "t.tsv", "path": live_path}])
    orphan = default_storage.save("uploads/demo/dead/old.run", io.BytesIO(b"101 Q0 d1 1 1.0 r\n"))
    assert tasks.uploads_orphaned_remove() == 0  # both are younger than a day
    assert tasks.uploads_orphaned_remove(older_than=timedelta(0)) == 1
    assert keys(s3_media) == [f"media/{live_path}"]
    assert not default_storage.exists(orphan)


def test_healthz_checks_the_bucket(s3_media, client, settings, monkeypatch):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["checks"]["storage"] == "ok"
    monkeypatch.setenv("AWS_STORAGE_BUCKET_NAME", "no-such-bucket")
    settings.STORAGES = {**settings.STORAGES, "default": media_storage("s3")}
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["checks"]["storage"] == "error: ClientError"
