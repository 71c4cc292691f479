"""Resuming a model run after its worker is killed: the real database task backend and db_worker processes.

A fake OpenAI-compatible endpoint (the tests' server, 0.4 s per answer, one pair answering 429 then
500, one answering garbage) serves 60 pairs; a ``db_worker`` takes the run and is killed with
SIGKILL once 15 pairs are answered; the lead's *Resume* replaces the run and a second worker
finishes it. Prints how many pairs each run answered, how many HTTP requests each pair took, and
the final count of model judgments (must be exactly one per pair).

    .venv/bin/python benchmarks/bench_model_judge_resume.py [--port 8150]

The worker subprocesses need a database file they can share, so this always uses a temporary SQLite file.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8150)
    args = parser.parse_args()
    start_django(None, name="model_resume", tasks_backend="django_tasks_db.DatabaseBackend")
    from django.contrib.auth import get_user_model

    from judging.models import Judgment
    from judging.services.campaigns import campaign_create
    from model_assessors.models import ModelCall
    from model_assessors.services.judges import judge_create
    from model_assessors.services.runs import run_start
    from tests.conftest import make_collection
    from tests.judging.conftest import build_pool
    from tests.model_assessors.fake_openai import FakeOpenAI

    server = FakeOpenAI(port=args.port)
    server.delay_seconds = 0.4
    server.scripts.update({"T1-D2": [429, 500], "T3-D1": ["garbage"]})
    server.thread.start()
    lead = get_user_model().objects.create_user("lead")
    collection = make_collection("resume", lead=lead)
    campaign = campaign_create(collection=collection, pool=build_pool(collection, topics=10, docs=6), name="c",
                               created_by=lead, assessors=[])
    judge = judge_create(campaign=campaign, name="fake", base_url=server.base_url, model="fake-model", user=lead,
                         concurrency=2, requests_per_minute=0, backoff_seconds=0.1, timeout_seconds=5)
    worker_cmd = [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--no-reload"]
    run = run_start(judge=judge, user=lead)
    worker = subprocess.Popen(worker_cmd + ["--interval", "0.2"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        while run.done < 15:
            time.sleep(0.1)
            run.refresh_from_db()
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
    run.refresh_from_db()
    print(f"worker killed: run {run.pk} {run.status}, {run.done}/{run.total} answered, {len(server.requests)} requests so far")
    resumed = run_start(judge=judge, user=lead, resume=True)
    subprocess.run(worker_cmd + ["--batch"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    server.shutdown()
    run.refresh_from_db()
    resumed.refresh_from_db()
    keys = [r["key"] for r in server.requests]
    again = {k: keys.count(k) for k in sorted(set(keys)) if keys.count(k) > 1}
    judgments = Judgment.objects.filter(assessor=judge.assessor)
    print(f"old run: {run.status} ({run.message})")
    print(f"resumed run: {resumed.status}, {resumed.done}/{resumed.total} answered, {resumed.failed} failed")
    print(f"model judgments: {judgments.count()} for 60 pairs ({judgments.filter(skipped=True).count()} skip), "
          f"{ModelCall.objects.filter(judge=judge).count()} calls recorded, {len(keys)} HTTP requests")
    print(f"pairs requested more than once: {again}")


if __name__ == "__main__":
    main()
