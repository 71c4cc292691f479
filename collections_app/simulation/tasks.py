"""Run the budget planner as a background job (a ``Job`` row of kind ``simulate``).

``collections_app.tasks.job_run`` dispatches only the import and pool kinds, so the planner has
its own task; it records progress, status and the report (as JSON-ready data) on the same
``Job`` table, which lets the page poll it like any other job.
"""
from __future__ import annotations

import json
import logging

from django.core.exceptions import ValidationError
from django.utils import timezone
from django_tasks import task

from collections_app.models import Collection, Job

from . import report
from .service import planner_run

logger = logging.getLogger(__name__)
KIND = Job.Kind.SIMULATE


def planner_start(*, collection: Collection, parameters: dict, user=None) -> Job:
    """Record a planner job and enqueue it; return the job (already finished with the immediate backend)."""
    job = Job.objects.create(collection=collection, kind=KIND, parameters=parameters, created_by=user)
    result = planner_job.enqueue(job.pk)
    Job.objects.filter(pk=job.pk, task_id="").update(task_id=str(result.id))
    job.refresh_from_db()
    return job


@task()
def planner_job(job_id: int) -> str:
    """Run one planner job, storing the report or the readable problem on the row."""
    job = Job.objects.select_related("collection").get(pk=job_id)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now())
    p = job.parameters
    done = []

    def progress(name: str) -> None:
        done.append(name)
        Job.objects.filter(pk=job.pk).update(progress_done=len(done) - 1)

    try:
        result = planner_run(collection=job.collection, qrels_set_name=p["qrels_set"], strategies=p["strategies"],
                             depths=p["depths"], budgets=p["budgets"], sample_rates=p["sample_rates"],
                             max_depth=p["max_depth"], seed=p["seed"], progress=progress)
    except ValidationError as exc:
        Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, errors=exc.messages,
                                             error_code=getattr(exc, "code", "") or "invalid",
                                             finished_at=timezone.now())
        return Job.Status.FAILED
    except Exception:  # noqa: BLE001 - every failure must end up on the job row
        logger.exception("Planner job %s failed", job.pk)
        Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, errors=["The simulation failed."],
                                             error_code="internal_error", finished_at=timezone.now())
        return Job.Status.FAILED
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED, result=json.loads(report.as_json(result)),
                                         progress_done=len(done), finished_at=timezone.now())
    return Job.Status.SUCCEEDED
