"""Model judging throughput: pairs per second against an OpenAI-compatible endpoint, by concurrency.

The endpoint is the tests' fake server on 127.0.0.1 with heavy-tailed latencies (lognormal,
median 80 ms, a few calls over a second, as hosted APIs behave) and 5% injected 429s (retried
after ``Retry-After: 0``). Documents have lognormal lengths (median ~1,500 characters, a tail
past 20,000, cut at the judge's 6,000). Each configuration judges a fresh campaign of the same
pairs through ``run_execute`` (the task's body: prompt rendering, HTTP, parsing, one transaction
per answer). The "zero latency" row measures the app's own cost per pair.

    .venv/bin/python benchmarks/bench_model_judge.py [--pairs 300] [--database-url postgres://…]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402


def build(collection, pairs: int, rng: random.Random):
    from collections_app.models import Document, Pool, PoolPair, Topic

    pool = Pool.objects.create(collection=collection, name=f"pool-{rng.random()}", strategy=Pool.Strategy.DEPTH,
                               parameters={"k": 10})
    topics = [Topic.objects.get_or_create(collection=collection, qid=str(400 + t),
                                          defaults={"title": f"topic {t}", "description": "d", "narrative": "n"})[0]
              for t in range(1, pairs // 10 + 1)]
    order = 0
    for t, topic in enumerate(topics, 1):
        for d in range(1, 11):
            docno = f"T{t}-D{d}"
            length = min(int(rng.lognormvariate(7.3, 1.0)), 60_000)
            document, _ = Document.objects.get_or_create(collection=collection, docno=docno,
                                                         defaults={"title": f"Doc {docno}", "text": "x" * length})
            order += 1
            PoolPair.objects.create(pool=pool, topic=topic, docno=docno, document=document, judging_order=order,
                                    best_rank=d, run_ranks={"r": d})
    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    start_django(args.database_url, name="model_judge")
    from django.contrib.auth import get_user_model

    from judging.services.campaigns import campaign_create
    from model_assessors.models import ModelCall, ModelRun
    from model_assessors.services.judges import judge_create
    from model_assessors.services.runs import run_execute
    from tests.conftest import make_collection
    from tests.model_assessors.fake_openai import FakeOpenAI

    rng = random.Random(7)
    server = FakeOpenAI()
    server.thread.start()
    lead = get_user_model().objects.create_user("bench-lead")
    collection = make_collection("bench-llm", lead=lead)
    rows = []
    for label, concurrency, latency in [("zero latency", 1, False), ("lognormal", 1, True), ("lognormal", 4, True),
                                        ("lognormal", 8, True), ("lognormal", 16, True)]:
        server.delay_seconds = (lambda: min(rng.lognormvariate(-2.5, 0.8), 3.0)) if latency else 0.0
        keys = [f"T{t}-D{d}" for t in range(1, args.pairs // 10 + 1) for d in range(1, 11)]
        server.scripts.clear()
        for key in keys:
            if latency and rng.random() < 0.05:
                server.scripts[key] = [429]
        pool = build(collection, args.pairs, rng)
        campaign = campaign_create(collection=collection, pool=pool, name=f"{label}-{concurrency}", created_by=lead,
                                   assessors=[])
        judge = judge_create(campaign=campaign, name=f"j{concurrency}{label[0]}", base_url=server.base_url, model="m",
                             concurrency=concurrency, requests_per_minute=0, backoff_seconds=0.0, timeout_seconds=10)
        run = ModelRun.objects.create(judge=judge)
        started = time.perf_counter()
        run = run_execute(run=run)
        seconds = time.perf_counter() - started
        calls = ModelCall.objects.filter(judge=judge)
        rows.append((label, concurrency, run.done, calls.filter(attempts__gt=1).count(), seconds, run.done / seconds))
    server.shutdown()
    print(f"{'endpoint':<14}{'concurrency':>12}{'pairs':>7}{'retried':>9}{'seconds':>9}{'pairs/s':>9}")
    for label, concurrency, done, retried, seconds, rate in rows:
        print(f"{label:<14}{concurrency:>12}{done:>7}{retried:>9}{seconds:>9.2f}{rate:>9.1f}")


if __name__ == "__main__":
    main()
