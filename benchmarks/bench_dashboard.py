"""Benchmark: the lead's dashboard on 50 topics, 25,000 pairs, 60,000 judgments, 20 assessors (target < 1 s).

Builds the data with ``bulk_create`` in a fresh temporary SQLite database (or the PostgreSQL
database named by --database-url, which must be a throwaway one: it is migrated and filled):
a graded collection, 50 topics × 500 pooled documents, a campaign with 20 expert assessors,
every pair required twice and 45 % of them three times (until 60,000 judgments are handed out), judged by random assessors with
labels that mostly follow a hidden true grade (so agreement is moderate, not random), active
times from a log-normal, spread over seven days; 2 % gold pairs. Then times, for several
statistics, (1) ``campaign_dashboard`` — the selector the page and the API call — with the cache
cleared (the cold computation) and (2) the whole page through Django's test client right after
(auth, template, SVG; the figures then come from the cache), and counts SQL queries.

Run: .venv/bin/python benchmarks/bench_dashboard.py [--repeat 5] [--database-url postgres://…/qs_bench]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

TARGET_SECONDS = 1.0
TOPICS, DOCS, ASSESSORS, JUDGMENTS = 50, 500, 20, 60_000


def build(seed: int = 0):
    """Create the collection, pool, campaign, items and judgments; return (lead, campaign)."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from collections_app import scales
    from collections_app.models import Collection, Membership, Pool, PoolPair, Topic
    from judging.models import Assessor, Campaign, Item, Judgment

    rng = np.random.default_rng(seed)
    users = get_user_model()
    lead = users.objects.create_user("bench-lead", password="x")
    people = users.objects.bulk_create(users(username=f"assessor{n:02d}") for n in range(ASSESSORS))
    grades, threshold = scales.preset(scales.GRADED)
    collection = Collection.objects.create(name="Bench", slug="bench", scale=grades, relevant_threshold=threshold)
    Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    Membership.objects.bulk_create(Membership(collection=collection, user=u, role=Membership.Role.ASSESSOR) for u in people)
    topics = Topic.objects.bulk_create(Topic(collection=collection, qid=str(301 + t), title=f"topic {t}") for t in range(TOPICS))
    pool = Pool.objects.create(collection=collection, name="depth", strategy=Pool.Strategy.DEPTH)
    pairs = PoolPair.objects.bulk_create(
        (PoolPair(pool=pool, topic=topics[t], docno=f"D{t}-{d}", judging_order=t * DOCS + d + 1, best_rank=d + 1,
                  run_ranks={}) for t in range(TOPICS) for d in range(DOCS)), batch_size=5000)
    campaign = Campaign.objects.create(collection=collection, pool=pool, name="bench", created_by=lead,
                                       overlap=Campaign.Overlap.REPLICATE, judgments_per_pair=2)
    assessors = Assessor.objects.bulk_create(Assessor(campaign=campaign, kind=Assessor.Kind.EXPERT, user=u) for u in people)
    scale = [g["grade"] for g in grades]
    n_items = len(pairs)
    required = np.where(rng.random(n_items) < 0.45, 3, 2)
    gold = rng.random(n_items) < 0.02
    truth = rng.choice(scale, size=n_items, p=[0.55, 0.25, 0.12, 0.08][: len(scale)])
    # hand out 60,000 judgments: fill items in order up to their requirement, random distinct assessors
    counts = np.zeros(n_items, dtype=np.int64)
    rows = []
    order = rng.permutation(n_items)
    budget = JUDGMENTS
    for i in order:
        take = min(int(required[i]), budget)
        for a in rng.choice(ASSESSORS, size=take, replace=False):
            noisy = truth[i] if rng.random() < 0.7 else rng.choice(scale)
            rows.append((int(i), int(a), int(noisy)))
        counts[i] = take
        budget -= take
        if budget == 0:
            break
    items = Item.objects.bulk_create(
        (Item(campaign=campaign, pair=pairs[i], position=i + 1, required_judgments=int(required[i]),
              judgment_count=int(counts[i]), is_gold=bool(gold[i]), gold_grade=int(truth[i]) if gold[i] else None)
         for i in range(n_items)), batch_size=5000)
    start = timezone.now() - timedelta(days=7)
    seconds = rng.lognormal(mean=2.5, sigma=0.6, size=len(rows))
    offsets = np.sort(rng.uniform(0, 7 * 86400, size=len(rows)))
    field = Judgment._meta.get_field("created_at")
    field.auto_now_add = False  # keep the spread-out times we give (benchmark data only)
    try:
        Judgment.objects.bulk_create(
            (Judgment(item=items[i], assessor=assessors[a], grade=g, active_seconds=float(seconds[n]),
                      client_token=f"bench-{n}", created_at=start + timedelta(seconds=float(offsets[n])))
             for n, (i, a, g) in enumerate(rows)), batch_size=5000)
    finally:
        field.auto_now_add = True
    return lead, campaign, len(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="Timed repetitions per statistic.")
    parser.add_argument("--database-url", help="A throwaway PostgreSQL database (default: temporary SQLite).")
    args = parser.parse_args()
    start_django(args.database_url, name="dashboard")
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from judging.dashboard.choices import choice
    from judging.dashboard.selectors import campaign_dashboard

    t0 = time.perf_counter()
    lead, campaign, n_judgments = build()
    print(f"built {TOPICS} topics, {TOPICS * DOCS} pairs, {n_judgments} judgments, {ASSESSORS} assessors "
          f"in {time.perf_counter() - t0:.1f} s; database {connection.vendor}")
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    # no collectstatic here: serve static names unhashed (the manifest storage would need one)
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    client = Client()
    client.force_login(lead)
    url = reverse("campaign-dashboard", args=[campaign.collection.slug, campaign.pk])
    print(f"\n{'statistic':<18} {'binary':>6} {'cold selector s':>15} {'warm page s':>11} {'page max s':>11} {'queries':>8}")
    worst = 0.0
    for key, binary in (("cohen", False), ("cohen_quadratic", False), ("alpha_ordinal", False), ("ac1", False),
                        ("fleiss", False), ("cohen", True)):
        selector, page = [], []
        for _ in range(args.repeat):
            cache.clear()  # time the computation, not the cache; the page below then reads the cache (warm)
            t = time.perf_counter()
            campaign_dashboard(campaign=campaign, stat=choice(key), binary=binary, rate=20.0)
            selector.append(time.perf_counter() - t)
            with CaptureQueriesContext(connection) as queries:
                t = time.perf_counter()
                response = client.get(url, {"stat": key, "binary": "1" if binary else "0", "rate": "20"})
                page.append(time.perf_counter() - t)
            assert response.status_code == 200
        worst = max(worst, statistics.median(page))
        print(f"{key:<18} {str(binary):>6} {statistics.median(selector):>15.3f} {statistics.median(page):>11.3f} "
              f"{max(page):>11.3f} {len(queries):>8}")
    print(f"\npage median target < {TARGET_SECONDS:.1f} s: {'met' if worst < TARGET_SECONDS else 'MISSED'} "
          f"(worst median {worst:.3f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
