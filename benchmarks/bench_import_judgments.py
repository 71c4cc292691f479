"""Benchmark: import ~98,000 crowd labels (770 workers, 20,000 pairs, 100 topics) — target ≤ 20 s.

The generated file is shaped like a real crowd batch, not a tidy grid: worker activity is
heavy-tailed (a Zipf-like law: a few workers label thousands of pairs, most a handful), pairs
get 1 to 10+ labels (more for the pairs many runs retrieved), topics differ in size, about 3 %
of (pair, worker) rows are revisions (a worker changing their mind), timestamps spread over two
weeks, about 40 % of rows carry no active time (unknown), some rows have comments with commas
and quotes, and 1 % of pairs are gold questions. Documents exist for 90 % of the docnos.

It times ``judgments_import`` — the one service the command, the upload page and the API
call — end to end: parse, validate against the database, bulk writes in one transaction.
Nothing is timed in tests; this script prints the figures.

Run: .venv/bin/python benchmarks/bench_import_judgments.py [--rows 98000] [--database-url postgres://…/qs_bench]
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

TARGET_SECONDS = 20.0
TOPICS, PAIRS, WORKERS = 100, 20_000, 770


def generate(path: Path, *, rows: int, seed: int = 0) -> dict:
    """Write the crowd file; return {qids, docnos} for the collection it needs."""
    rng = random.Random(seed)
    # Topics of uneven size: pairs per topic ∝ a log-normal weight.
    weights = [rng.lognormvariate(0, 0.8) for _ in range(TOPICS)]
    total = sum(weights)
    qids = [str(401 + t) for t in range(TOPICS)]
    pairs: list[tuple[str, str]] = []
    for t, qid in enumerate(qids):
        for d in range(max(5, round(PAIRS * weights[t] / total))):
            pairs.append((qid, f"DOC-{qid}-{d:05d}"))
    pairs = pairs[:PAIRS]
    # Pair popularity (how many labels it attracts) and worker activity are both heavy-tailed.
    pair_weight = [1.0 / (1 + i % 400) ** 0.3 for i in range(len(pairs))]
    rng.shuffle(pair_weight)
    worker_weight = [1.0 / (rank + 1) ** 1.1 for rank in range(WORKERS)]
    workers = [f"W{rng.getrandbits(40):010X}" for _ in range(WORKERS)]
    truth = {pair: rng.choices([0, 1, 2, 3], weights=[60, 20, 12, 8])[0] for pair in pairs}
    gold = set(rng.sample(pairs, len(pairs) // 100))
    start = datetime(2024, 3, 1, tzinfo=UTC)
    seen: set[tuple[int, int]] = set()
    written = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["qid", "docno", "assessor", "label", "timestamp", "seconds", "comment", "gold"])
        pair_index = rng.choices(range(len(pairs)), weights=pair_weight, k=rows * 2)
        worker_index = rng.choices(range(WORKERS), weights=worker_weight, k=rows * 2)
        for p, w in zip(pair_index, worker_index, strict=True):
            if written >= rows:
                break
            revision = (p, w) in seen
            if revision and rng.random() > 0.03:
                continue  # a worker rarely comes back to a pair; when they do it is a revision
            seen.add((p, w))
            pair = pairs[p]
            label = truth[pair] if rng.random() < 0.75 else rng.choice([0, 1, 2, 3])
            moment = start + timedelta(seconds=rng.uniform(0, 14 * 86400))
            seconds = "" if rng.random() < 0.4 else f"{rng.lognormvariate(2.3, 0.8):.2f}"
            comment = rng.choice(["", "", "", "", "off topic", 'says "turbine", not wind', "short, but on topic"])
            out.writerow([pair[0], pair[1], workers[w], label, moment.isoformat(), seconds, comment,
                          truth[pair] if pair in gold else ""])
            written += 1
    return {"qids": qids, "docnos": sorted({d for _, d in pairs}), "rows": written, "pairs": len(pairs)}


def build_collection(shape: dict, *, seed: int = 0):
    from collections_app import scales
    from collections_app.models import Collection, Document, Topic

    grades, threshold = scales.preset(scales.GRADED)
    collection = Collection.objects.create(name="crowd", slug="crowd", scale=grades, relevant_threshold=threshold)
    Topic.objects.bulk_create(Topic(collection=collection, qid=q, title=f"topic {q}") for q in shape["qids"])
    rng = random.Random(seed)
    Document.objects.bulk_create(
        (Document(collection=collection, docno=d, title=d, text="wind turbine noise " * 20)
         for d in shape["docnos"] if rng.random() < 0.9), batch_size=2000)
    return collection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=98_000)
    parser.add_argument("--database-url", default=None, help="Throwaway PostgreSQL database (migrated and filled).")
    args = parser.parse_args()
    start_django(args.database_url, name="import_judgments")
    from django.db import connection

    from judging.models import Judgment, JudgmentRevision
    from judging.services.imported import judgments_import

    path = Path(tempfile.mkdtemp(prefix="qs_bench_crowd_")) / "crowd.csv"
    shape = generate(path, rows=args.rows)
    collection = build_collection(shape)
    started, cpu = time.perf_counter(), time.process_time()
    summary = judgments_import(collection=collection, source=path, campaign_name="crowd batch")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    details = summary.details
    print(f"database: {connection.vendor}")
    print(f"file: {path.stat().st_size / 1e6:.1f} MB, {shape['rows']:,} rows, {shape['pairs']:,} pairs drawn, "
          f"{TOPICS} topics, {WORKERS} workers drawn")
    print(f"imported: {summary.created:,} judgments, {details['revisions']:,} revisions, "
          f"{details['new_pairs']:,} pairs, {details['new_assessors']:,} assessors")
    print(f"rows in DB: {Judgment.objects.count():,} judgments, {JudgmentRevision.objects.count():,} revisions")
    print(f"machine load (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"judgments_import: {elapsed:.2f} s wall, {cpu:.2f} s CPU in this process ({shape['rows'] / elapsed:,.0f} rows/s); target ≤ {TARGET_SECONDS:.0f} s: "
          f"{'met' if elapsed <= TARGET_SECONDS else 'MISSED'}")


if __name__ == "__main__":
    main()
