"""Benchmark: server time of `item_next` and `judgment_submit` on the demo data (target: p95 < 50 ms).

In a fresh temporary SQLite database (or the PostgreSQL database named by --database-url,
which must be a throwaway one: it is migrated and filled), runs `demo_setup` (the demo
collection, its runs and its depth pool), starts a campaign over the demo pool with alice
and bob (every pair judged twice, gold from the demo's prior qrels at 10 %), then lets the
two assessors take turns: `item_next` → `judgment_submit`, timing each service call and
counting its SQL queries, for --calls rounds (or until the queue is empty). It then times the
same two operations through the API (`POST /api/campaigns/<id>/next/` and
`/judgments/`) with Django's test client, which adds authentication, serialization and
middleware. Prints p50 / p95 / max in milliseconds and queries per call.

Run: .venv/bin/python benchmarks/bench_judging.py [--calls 2000] [--database-url postgres://…/qs_bench]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

TARGET_P95_MS = 50.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summarize(name: str, times: list[float], queries: list[int]) -> str:
    ms = [t * 1000 for t in times]
    return (f"{name:<28} {len(ms):>6} {percentile(ms, .5):>8.2f} {percentile(ms, .95):>8.2f} {max(ms):>8.2f}"
            f" {statistics.mean(queries) if queries else float('nan'):>8.1f} {max(queries) if queries else 0:>5}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="Rounds of next+submit through the services.")
    parser.add_argument("--api-calls", type=int, default=500, help="Rounds of next+submit through the API.")
    parser.add_argument("--database-url", help="A throwaway PostgreSQL database (default: temporary SQLite).")
    args = parser.parse_args()
    start_django(args.database_url, name="judging")
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from demo.setup import demo_setup
    from judging.models import Assessor, Item
    from judging.plan import CampaignPlan
    from judging.services.allocation import item_next
    from judging.services.campaigns import campaign_create
    from judging.services.judgments import judgment_submit

    started = time.perf_counter()
    report = demo_setup()
    collection = report.collection
    print(f"demo_setup: {time.perf_counter() - started:.1f} s; database {connection.vendor}")
    pool = collection.pools.order_by("id").first()
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["lead", "alice", "bob"])}
    gold = collection.qrels_sets.order_by("id").first()

    def start():
        """Start a fresh campaign over the demo pool (a new one whenever the previous runs dry)."""
        name = f"bench {uuid.uuid4().hex[:6]}"
        campaign = campaign_create(collection=collection, pool=pool, name=name, created_by=users["lead"],
                                   assessors=[users["alice"], users["bob"]],
                                   plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=2, gold_qrels=gold,
                                                        gold_rate=0.1 if gold else 0.0))
        return campaign, list(Assessor.objects.select_related("campaign__collection").filter(campaign=campaign))

    campaign, assessors = start()
    items = Item.objects.filter(campaign=campaign).count()
    print(f"campaigns over pool {pool.name!r}: {items} items each ({pool.pairs.count()} pool pairs), gold: {bool(gold)}")

    next_t, next_q, submit_t, submit_q = [], [], [], []
    campaigns = 1
    for round_ in range(args.calls):
        connection.queries_log.clear()
        assessor = assessors[round_ % 2]
        with CaptureQueriesContext(connection) as q:
            t0 = time.perf_counter()
            item = item_next(assessor=assessor)
            next_t.append(time.perf_counter() - t0)
        next_q.append(len(q))
        if item is None:
            assessor = assessors[(round_ + 1) % 2]
            if item_next(assessor=assessor) is None:
                campaign, assessors = start()
                campaigns += 1
            continue
        with CaptureQueriesContext(connection) as q:
            t0 = time.perf_counter()
            judgment_submit(assessor=assessor, item=item, grade=round_ % 4, active_seconds=3.0,
                            client_token=uuid.uuid4().hex)
            submit_t.append(time.perf_counter() - t0)
        submit_q.append(len(q))

    api_next, api_submit = [], []
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    print(f"service rounds spanned {campaigns} campaigns; the API rounds continue the last one as alice")
    client = Client()
    client.force_login(users["alice"])
    for _ in range(args.api_calls):
        t0 = time.perf_counter()
        response = client.post(f"/api/campaigns/{campaign.pk}/next/")
        api_next.append(time.perf_counter() - t0)
        if response.status_code != 200:
            campaign, assessors = start()
            continue
        body = {"item": response.json()["item"], "grade": 1, "client_token": uuid.uuid4().hex, "active_seconds": 2}
        t0 = time.perf_counter()
        answer = client.post(f"/api/campaigns/{campaign.pk}/judgments/", data=json.dumps(body),
                             content_type="application/json")
        api_submit.append(time.perf_counter() - t0)
        assert answer.status_code == 200, answer.content

    print(f"\n{'operation':<28} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'queries':>8} {'max':>5}")
    print(summarize("item_next (service)", next_t, next_q))
    print(summarize("judgment_submit (service)", submit_t, submit_q))
    print(summarize("POST next/ (API)", api_next, []))
    print(summarize("POST judgments/ (API)", api_submit, []))
    worst = max(percentile(next_t, .95), percentile(submit_t, .95)) * 1000
    print(f"\nservice p95 target < {TARGET_P95_MS:.0f} ms: {'met' if worst < TARGET_P95_MS else 'MISSED'} ({worst:.2f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
