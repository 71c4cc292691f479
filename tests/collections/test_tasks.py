"""Background jobs: uploads are saved, run by the task, recorded, and cleaned up."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from collections_app import tasks
from collections_app.models import Job, Run
from tests.collections.web_factories import RUN_LINES, seed


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def test_a_run_upload_job_imports_records_its_summary_and_removes_the_file(collection, lead, media):
    seed(collection)
    upload = SimpleUploadedFile("two.run", RUN_LINES.replace("bm25", "two").encode())
    job = tasks.job_start(collection=collection, kind=Job.Kind.RUNS, uploads=[upload], user=lead)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.finished
    assert job.result["kind"] == "runs" and job.result["created"] >= 1
    assert job.started_at and job.finished_at and job.task_id
    assert Run.objects.get(tag="two").uploaded_by == lead
    assert not any(default_storage.exists(entry["path"]) for entry in job.files)
    assert not any((media / "uploads" / "demo").iterdir())


def test_a_failed_import_records_each_problem_with_file_and_line(collection, lead):
    seed(collection)
    upload = SimpleUploadedFile("bad.run", b"101 Q0 D1 1 x bad\n")
    job = tasks.job_start(collection=collection, kind=Job.Kind.RUNS, uploads=[upload], user=lead)
    assert job.status == Job.Status.FAILED
    assert job.errors and job.errors[0].startswith("bad.run:1:")
    assert job.error_code and job.error_code != "internal_error"
    assert not Run.objects.filter(tag="bad").exists()


def test_an_unknown_job_kind_is_refused(collection):
    with pytest.raises(ValidationError):
        tasks.job_start(collection=collection, kind="nonsense")
    assert not Job.objects.exists()


def test_an_unexpected_error_ends_the_job_as_failed_without_details_leaking(collection, monkeypatch):
    def explode(job, progress):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(tasks, "_build_pool", explode)
    job = tasks.job_start(collection=collection, kind=Job.Kind.POOL, parameters={"name": "x"})
    assert job.status == Job.Status.FAILED and job.error_code == "internal_error"
    assert "secret internals" not in " ".join(job.errors)


def test_many_problems_are_capped_with_a_count_of_the_rest():
    from collections_app.importers.errors import ImportFailed, ImportProblem

    problems = [ImportProblem(file="f", line=i, message="bad") for i in range(1, 201)]
    errors, code = tasks._describe_failure(ImportFailed(problems, code="invalid_file", total=500))
    assert code == "invalid_file"
    assert errors[0] == "f:1: bad"
    assert len(errors) <= tasks.MAX_ERRORS_SHOWN + 1 and errors[-1] == f"... and {500 - len(errors) + 1} more"


def test_progress_is_recorded_but_throttled(collection):
    job = Job.objects.create(collection=collection, kind=Job.Kind.RUNS)
    clock = iter([10.0, 10.1, 11.0])
    recorder = tasks._ProgressRecorder(job.pk, clock=lambda: next(clock))
    recorder(5, 100)
    recorder(6, 100)  # within the interval: skipped
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total, job.percent) == (5, 100, 5)
    recorder(50, 100)
    job.refresh_from_db()
    assert job.percent == 50


@pytest.mark.django_db(transaction=True)
def test_progress_inside_an_import_transaction_is_visible_to_other_connections_on_postgresql(lead):
    from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

    from tests.conftest import make_collection

    if connection.vendor != "postgresql":
        pytest.skip("SQLite has one writer: progress shows when the import commits")
    job = Job.objects.create(collection=make_collection("demo", lead=lead), kind=Job.Kind.RUNS)
    recorder = tasks._ProgressRecorder(job.pk)
    observer = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with transaction.atomic():  # what an import service does
            recorder(40, 80)
            with observer.cursor() as cursor:
                cursor.execute("SELECT progress_done, progress_total FROM collections_app_job WHERE id = %s", [job.pk])
                assert cursor.fetchone() == (40, 80)
    finally:
        recorder.close()
        observer.close()
