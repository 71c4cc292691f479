"""Background work of model assessors: one judging run, executed by a django-tasks worker."""
from __future__ import annotations

from django_tasks import task


@task()
def model_judge_run(run_id: int) -> str:
    """Execute one model judging run (idempotent: pairs already answered are never asked again)."""
    from model_assessors.models import ModelRun
    from model_assessors.services.runs import run_execute

    run = ModelRun.objects.filter(pk=run_id).first()
    if run is None:
        return "missing"
    return run_execute(run=run).status
