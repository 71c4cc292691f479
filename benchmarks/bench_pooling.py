"""Benchmark: import 100 runs × 50 topics × 1000 lines into qrelsmith (SQLite) and pool them at
depth 100, against trectools loading the same files and making the same depth-100 pool.

Generates seeded run files (strictly decreasing scores, so no ties: trectools breaks ties by
docno ascending, trec_eval by docno descending) into benchmarks/_data/pooling/ (gitignored),
then, in a fresh temporary SQLite database, times
  (a) runs_import of all files (one transaction),
  (b) pool_build(strategy="depth", depth=100) and the pure pooling functions alone,
reports peak RSS of those steps, then times trectools (TrecRun for each file + TrecPoolMaker
topX), checks the two pools are identical per topic and prints a table with ratios: wall time,
and CPU time of this process beside it (on a loaded machine wall time includes waiting for a
core). Django runs with DEBUG off, as in production (DEBUG on keeps the text of every SQL
statement, bulk inserts included); DEBUG=1 in the environment measures it with DEBUG on.

Run: .venv/bin/python benchmarks/bench_pooling.py [--runs 100 --topics 50 --lines 1000 --depth 100]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGETS = {"import": 20.0, "pool": 3.0, "rss_mb": 1536.0, "speedup": 5.0}


def generate(data: Path, *, runs: int, topics: int, lines: int, seed: int = 7) -> list[Path]:
    """Write ``runs`` TREC run files; each run is a noisy view of a shared per-topic relevance."""
    data.mkdir(parents=True, exist_ok=True)
    stamp = data / f"stamp_{runs}_{topics}_{lines}_{seed}"
    paths = [data / f"run{i:03d}.txt" for i in range(runs)]
    if stamp.exists():
        return paths
    for old in data.glob("*"):
        old.unlink()
    rng = np.random.default_rng(seed)
    universe = lines * 5
    base = rng.standard_normal((topics, universe))
    names = np.array([f"doc{i:06d}" for i in range(universe)])
    scores = np.arange(lines, 0, -1)  # strictly decreasing: no ties anywhere
    ranks = np.arange(1, lines + 1)
    for r, path in enumerate(paths):
        tag = f"run{r:03d}"
        noise = rng.uniform(0.5, 2.0)
        out = []
        for t in range(topics):
            noisy = base[t] + noise * rng.standard_normal(universe)
            top = np.argpartition(-noisy, lines)[:lines]
            top = top[np.argsort(-noisy[top])]
            qid = str(t + 1)
            out.extend(f"{qid} Q0 {d} {k} {s} {tag}\n" for d, k, s in zip(names[top], ranks, scores))
        path.write_text("".join(out))
    stamp.touch()
    return paths


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def bench_app(paths: list[Path], *, topics: int, depth: int) -> dict:
    """Import and pool in a fresh temporary SQLite database; return timings and the pool."""
    tmp = Path(tempfile.mkdtemp(prefix="qs_bench_pool_"))
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qrelsmith.settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", "benchmark-only-secret")
    os.environ.setdefault("ALLOWED_HOSTS", "localhost")
    import django

    django.setup()
    from django.core.management import call_command

    from collections_app.models import Topic
    from collections_app.pooling import ordering, strategies
    from collections_app.services.collections import collection_create
    from collections_app.services.imports import runs_import
    from collections_app.services.pools import _load_rankings, pool_build

    try:
        call_command("migrate", verbosity=0)
        collection = collection_create(slug="bench", name="Bench")
        Topic.objects.bulk_create([Topic(collection=collection, qid=str(t + 1), title=f"t{t + 1}")
                                   for t in range(topics)])
        start, cpu = time.perf_counter(), time.process_time()
        summary = runs_import(collection=collection, sources=[str(p) for p in paths])
        t_import, c_import = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        pool = pool_build(collection=collection, name="depth", strategy="depth", depth=depth, exclude_judged=False)
        t_pool, c_pool = time.perf_counter() - start, time.process_time() - cpu
        rss = peak_rss_mb()

        runs = sorted(collection.runs.all(), key=lambda run: run.tag)
        rankings, _ = _load_rankings(runs, depth=depth, with_scores=False, progress=None)
        start = time.perf_counter()
        pooled = {qid: strategies.depth_pool(r, depth=depth) for qid, r in rankings.items()}
        fused = {qid: strategies.fused_scores(r, method="rrf", depth=depth) for qid, r in rankings.items()}
        ordering.judging_order({q: list(d) for q, d in pooled.items()}, fused=fused)
        t_pure = time.perf_counter() - start

        sets: dict[str, set[str]] = {}
        for qid, docno in pool.pairs.values_list("topic__qid", "docno"):
            sets.setdefault(qid, set()).add(docno)
        return {"import": t_import, "pool": t_pool, "pure": t_pure, "cpu_import": c_import, "cpu_pool": c_pool, "rss_mb": rss, "pool_sets": sets,
                "lines": summary.lines, "pairs": sum(len(s) for s in sets.values())}
    finally:
        from django.db import connections

        connections.close_all()
        shutil.rmtree(tmp, ignore_errors=True)


def bench_trectools(paths: list[Path], *, depth: int) -> dict:
    from trectools import TrecPoolMaker, TrecRun

    start, cpu = time.perf_counter(), time.process_time()
    runs = [TrecRun(str(p)) for p in paths]
    t_load, c_load = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=depth)
    t_pool, c_pool = time.perf_counter() - start, time.process_time() - cpu
    sets = {str(qid): {str(d) for d in docs} for qid, docs in pool.pool.items()}
    return {"load": t_load, "pool": t_pool, "cpu_load": c_load, "cpu_pool": c_pool, "pool_sets": sets}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--lines", type=int, default=1000, help="lines per run and topic")
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--data", type=Path, default=ROOT / "benchmarks" / "_data" / "pooling")
    args = parser.parse_args()

    start = time.perf_counter()
    paths = generate(args.data, runs=args.runs, topics=args.topics, lines=args.lines)
    print(f"data: {args.runs} runs × {args.topics} topics × {args.lines} lines "
          f"({time.perf_counter() - start:.1f} s to generate or reuse)", file=sys.stderr)

    app = bench_app(paths, topics=args.topics, depth=args.depth)
    ref = bench_trectools(paths, depth=args.depth)
    same = app["pool_sets"] == ref["pool_sets"]

    app_total, ref_total = app["import"] + app["pool"], ref["load"] + ref["pool"]
    app_cpu, ref_cpu = app["cpu_import"] + app["cpu_pool"], ref["cpu_load"] + ref["cpu_pool"]
    rows = [
        ("load / import", app["import"], ref["load"], app["cpu_import"], ref["cpu_load"]),
        (f"depth-{args.depth} pool", app["pool"], ref["pool"], app["cpu_pool"], ref["cpu_pool"]),
        ("load + pool", app_total, ref_total, app_cpu, ref_cpu),
    ]
    print(f"{'step':<18}{'qrelsmith s':>13}{'trectools s':>13}{'speed-up':>10}"
          f"{'CPU ours s':>12}{'CPU theirs s':>14}{'CPU ratio':>11}")
    for name, mine, theirs, cpu_mine, cpu_theirs in rows:
        print(f"{name:<18}{mine:>13.2f}{theirs:>13.2f}{theirs / mine:>9.1f}×"
              f"{cpu_mine:>12.2f}{cpu_theirs:>14.2f}{cpu_theirs / cpu_mine:>10.1f}×")
    print(f"pure pooling functions (depth + RRF + order, data in memory): {app['pure']:.2f} s")
    print(f"lines imported: {app['lines']}, pool pairs: {app['pairs']}, "
          f"peak RSS through import and pool: {app['rss_mb']:.0f} MB")
    print(f"pools identical per topic: {'yes' if same else 'NO'}")
    checks = [
        ("import ≤ 20 s", app["import"] <= TARGETS["import"]),
        ("pool build ≤ 3 s", app["pool"] <= TARGETS["pool"]),
        ("peak RSS ≤ 1.5 GB", app["rss_mb"] <= TARGETS["rss_mb"]),
        ("≥ 5× trectools on load + pool", ref_total / app_total >= TARGETS["speedup"]),
    ]
    print("targets: " + ", ".join(f"{name}: {'met' if ok else 'MISSED'}" for name, ok in checks))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
