"""Benchmark: what one next → submit round through the judging API costs (queries and CPU ms).

The load suite (``load_judging.py``) measures latency and throughput of the deployed shape,
which a shared machine inflates; this script measures the cost that decides them, one
request at a time, so figures from a busy machine still compare: SQL queries per request,
CPU milliseconds of the Django process per round, and CPU milliseconds of the PostgreSQL
backend serving it (read from ``/proc/<pid>/stat`` when the server runs on this machine).

Setup: a throwaway database (the PostgreSQL one named by --database-url, migrated and filled,
or a temporary SQLite file), a campaign of --pairs pairs needing 3 judgments each, --assessors
assessors with API tokens; the assessors take turns doing ``POST next/`` then ``POST
judgments/`` through DRF's test client with token authentication (the whole middleware,
authentication, throttling and serialization path), ``DEBUG=0``.

Run: .venv/bin/python benchmarks/bench_api_round.py --database-url postgres://postgres@127.0.0.1:5432/qs_bench_round
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def backend_cpu_ms(pid: int | None) -> float:
    """Return the CPU time of the PostgreSQL backend ``pid`` (utime+stime), 0 when it cannot be read."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / CLOCK_TICKS


def build(pairs: int, assessors: int):
    """Create a collection, a pool of ``pairs`` pairs, a replicate-3 campaign and the assessors' tokens."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from collections_app import scales
    from collections_app.models import Collection, Document, Membership, Pool, PoolPair, Topic
    from judging.plan import CampaignPlan
    from judging.services.campaigns import campaign_create

    users = get_user_model().objects
    tag = uuid.uuid4().hex[:6]
    lead = users.create_user(username=f"lead-{tag}")
    grades, threshold = scales.preset(scales.GRADED)
    collection = Collection.objects.create(name=f"Bench {tag}", slug=f"bench-{tag}", scale=grades,
                                           relevant_threshold=threshold)
    Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    people = [users.create_user(username=f"a{n}-{tag}") for n in range(assessors)]
    Membership.objects.bulk_create(Membership(collection=collection, user=u, role=Membership.Role.ASSESSOR)
                                   for u in people)
    topics = [Topic.objects.create(collection=collection, qid=str(100 + t), title=f"topic {t}") for t in range(50)]
    docs = Document.objects.bulk_create(Document(collection=collection, docno=f"D{n}", title=f"doc {n}",
                                                 text="wind turbine noise " * 40) for n in range(pairs))
    pool = Pool.objects.create(collection=collection, name="bench", strategy=Pool.Strategy.DEPTH, parameters={"k": 1})
    PoolPair.objects.bulk_create(
        PoolPair(pool=pool, topic=topics[n % len(topics)], docno=doc.docno, document=doc, judging_order=n + 1,
                 best_rank=1, run_ranks={"r": 1}) for n, doc in enumerate(docs))
    campaign = campaign_create(collection=collection, pool=pool, name="bench", created_by=lead, assessors=people,
                               plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=3))
    return campaign, [Token.objects.create(user=u).key for u in people]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="A throwaway PostgreSQL database (default: temporary SQLite).")
    parser.add_argument("--pairs", type=int, default=1500)
    parser.add_argument("--assessors", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="Print the N costliest functions of the 100 profiled rounds (cProfile, CPU time).")
    args = parser.parse_args()
    os.environ.setdefault("THROTTLE_TOKEN", "1000000/min")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
    start_django(args.database_url, name="api_round")
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    campaign, tokens = build(args.pairs, args.assessors)
    clients = []
    for key in tokens:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        clients.append(client)
    next_url, submit_url = f"/api/campaigns/{campaign.pk}/next/", f"/api/campaigns/{campaign.pk}/judgments/"
    backend = None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]

    def one_round(client, *, count: bool = False) -> tuple[int, int]:
        """One next → submit; with ``count``, the SQL statements of each call (Django logs them then,
        which turns off the prepared statements of ``qrelsmith.sql_rows``: counted rounds are not timed)."""
        connection.queries_log.clear()
        with CaptureQueriesContext(connection) if count else nullcontext([]) as next_q:
            response = client.post(next_url)
        assert response.status_code == 200, (response.status_code, response.content)
        with CaptureQueriesContext(connection) if count else nullcontext([]) as submit_q:
            answer = client.post(submit_url, {"item": response.json()["item"], "grade": 1, "active_seconds": 2.5,
                                              "client_token": uuid.uuid4().hex}, format="json")
        assert answer.status_code == 200, (answer.status_code, answer.content)
        return len(next_q), len(submit_q)

    next_counts, submit_counts = [], []
    for n in range(20):  # warm up (imports, caches, prepared statements) and count statements
        nq, sq = one_round(clients[n % len(clients)], count=True)
        next_counts.append(nq)
        submit_counts.append(sq)
    for n in range(20):
        one_round(clients[n % len(clients)])
    wall0, cpu0, pg0 = time.perf_counter(), cpu_ms(), backend_cpu_ms(backend)
    for n in range(args.rounds):
        one_round(clients[n % len(clients)])
    wall, cpu, pg = time.perf_counter() - wall0, cpu_ms() - cpu0, backend_cpu_ms(backend) - pg0
    print(f"database {connection.vendor}; {args.rounds} rounds of next → submit by {len(clients)} token clients; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"queries per next:   {statistics.mean(next_counts):.1f} (max {max(next_counts)}; "
          "BEGIN/COMMIT/SAVEPOINT included)")
    print(f"queries per submit: {statistics.mean(submit_counts):.1f} (max {max(submit_counts)})")
    print(f"per round: Django process CPU {cpu / args.rounds:.2f} ms, PostgreSQL backend CPU "
          f"{pg / args.rounds:.2f} ms, wall {wall * 1000 / args.rounds:.2f} ms")
    # CPU time swells on a busy machine; the number of Python function calls per round does not
    # (the same code path makes the same calls), so it compares runs taken under different loads.
    import cProfile
    import pstats

    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for n in range(100):
        one_round(clients[n % len(clients)])
    profiler.disable()
    stats = pstats.Stats(profiler)
    print(f"Python function calls per round (load-independent): {stats.total_calls / 100:,.0f}")  # type: ignore[attr-defined]
    if args.profile:
        stats.sort_stats("cumulative").print_stats(args.profile)
        stats.sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
