"""Benchmark: evaluation of 100 runs × 50 topics × 1,000 documents against 15,000 judgments.

Builds the data with ``bulk_create`` in a fresh temporary SQLite database (or the PostgreSQL
database named by --database-url, which must be a throwaway one: it is migrated and filled):
runs retrieve from a shared 3,000-document pool per topic with a hidden quality per run, so
scores differ. Times loading the runs (one query), scoring the leaderboard (cold: cache cleared; cached), the whole page
through Django's test client, the 20-run significance matrix and leave-one-run-out pool bias,
and counts the page's SQL queries.

Run: .venv/bin/python benchmarks/bench_evaluation.py [--repeat 3] [--database-url postgres://…/qs_bench]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

RUNS, TOPICS, DEPTH, DOCS, JUDGED = 100, 50, 1000, 3000, 300
if os.environ.get("BENCH_SMALL"):
    RUNS = 10


def build(seed: int = 0):
    import numpy as np
    from django.contrib.auth import get_user_model

    from collections_app import scales
    from collections_app.models import Collection, Membership, QrelsEntry, QrelsSet, Run, RunRanking, Topic
    from collections_app.runstore import pack

    rng = np.random.default_rng(seed)
    lead = get_user_model().objects.create_user("lead", password="x")
    grades, threshold = scales.preset(scales.GRADED)
    collection = Collection.objects.create(name="Bench", slug="bench", scale=grades, relevant_threshold=threshold)
    Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    topics = Topic.objects.bulk_create([Topic(collection=collection, qid=str(401 + t), title=f"topic {t}") for t in range(TOPICS)])
    truth = rng.random((TOPICS, DOCS)) ** 3 * 3.99  # mostly non-relevant
    qrels = QrelsSet.objects.create(collection=collection, name="official", checksum="0" * 64, num_judgments=TOPICS * JUDGED)
    entries = []
    for t, topic in enumerate(topics):
        for d in rng.choice(DOCS, JUDGED, replace=False):
            entries.append(QrelsEntry(qrels_set=qrels, topic=topic, docno=f"doc{t}-{d}", grade=int(truth[t, d])))
    QrelsEntry.objects.bulk_create(entries, batch_size=5000)
    runs = Run.objects.bulk_create([Run(collection=collection, tag=f"team{r % 25}.run{r}", group=f"team{r % 25}",
                                        checksum="0" * 64, num_topics=TOPICS, num_lines=TOPICS * DEPTH) for r in range(RUNS)])
    rankings = []
    for r, run in enumerate(runs):
        quality = 0.2 + 0.8 * r / RUNS
        for t, topic in enumerate(topics):
            noisy = quality * truth[t] + rng.normal(0, 1, DOCS)
            top = np.argsort(-noisy)[:DEPTH]
            docnos = np.array([f"doc{t}-{d}".encode() for d in top])
            scores = noisy[top].astype(np.float64)
            blob_d, blob_s = pack(docnos, scores)
            rankings.append(RunRanking(run=run, topic=topic, length=DEPTH, docnos=blob_d, scores=blob_s))
    RunRanking.objects.bulk_create(rankings, batch_size=500)
    return lead, collection


def timed(fn, repeat):
    """Return the median wall and CPU seconds (CPU time is what counts on a shared, loaded machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-url", help="A throwaway PostgreSQL database (default: temporary SQLite).")
    args = parser.parse_args()
    start_django(args.database_url, name="evaluation")
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from evaluation.runs import collection_runs
    from evaluation.selectors import board, pool_bias_report, significance

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    t0 = time.perf_counter()
    lead, collection = build()
    print(f"built {RUNS} runs × {TOPICS} topics × {DEPTH} docs, {TOPICS * JUDGED} judgments in "
          f"{time.perf_counter() - t0:.1f} s; database {connection.vendor}")
    client = Client()
    client.force_login(lead)
    url = reverse("evaluation-leaderboard", kwargs={"slug": collection.slug})
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats
        board(collection)  # warm the process's docno vocabulary, as a running server has
        cProfile.runctx("board(collection)", globals(), locals(), "/tmp/b2prof")
        pstats.Stats("/tmp/b2prof").sort_stats("cumulative").print_stats(25)
        return 0
    from django.core.cache import cache

    def cold(fn):
        def run():
            cache.clear()
            return fn()
        return run

    rows = [
        ("load runs (one query)", lambda: collection_runs(collection)),
        ("leaderboard selector, cold", cold(lambda: board(collection))),
        ("leaderboard page, cold", cold(lambda: client.get(url))),
        ("leaderboard page, cached scores", lambda: client.get(url + "?sort=P_10")),
        ("significance, 20 runs, MAP, cold", cold(lambda: significance(collection, measure="map"))),
        ("significance, 20 runs, MAP, cached", lambda: significance(collection, measure="map")),
        ("pool bias, leave-one-run-out, depth 100, cold", cold(lambda: pool_bias_report(collection, depth=100))),
        ("pool bias, cached", lambda: pool_bias_report(collection, depth=100)),
    ]
    print(f"{'what':<42} {'wall s':>9} {'CPU s':>9}  (medians of {args.repeat})")
    for name, fn in rows:
        wall, cpu = timed(fn, args.repeat)
        print(f"{name:<42} {wall:9.3f} {cpu:9.3f}", flush=True)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    print(f"leaderboard page SQL queries: {len(queries)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
