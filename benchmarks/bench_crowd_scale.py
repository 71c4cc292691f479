"""Benchmark: every lead page and API at real crowd scale (≈765 active workers, ≈98k labels, 20k pairs, 100 topics).

The shape follows a public crowd relevance data set loaded into a campaign: 100 topics × 200
pooled documents (with ~1 KB of text each), a 4-grade scale including a "broken document"
grade, ~770 crowd workers with heavy-tailed activity (a log-normal share of the work: most
judge fewer than 30 pairs, a few judge thousands), 1 to 10 labels per pair (mean ≈ 4.9), labels
that follow a hidden true grade with each worker's own accuracy, 2 % gold pairs, active
seconds from a log-normal, times spread over 14 days. Assessor overlap is sparse: most worker
pairs share no item, and many share only a handful.

It builds the data with ``bulk_create`` in a fresh temporary SQLite database (or the throwaway
PostgreSQL database named by ``--database-url``: it is migrated and filled), then times through
Django's test client, cold (cache cleared) and warm (median of ``--repeat`` further requests),
with the response size and the SQL query count of the last request:

* the campaign dashboard page and the dashboard API for every statistic, graded and binary;
* the collection dashboard, the campaign page, the conflicts page (unfiltered, one topic,
  later pages), the assessor table, the low-agreement list, the qrels versions page;
* the judgments export (CSV, JSONL) and the final-labels CSV under every rule;
* freezing qrels under every rule (the service the page calls).

Run: .venv/bin/python benchmarks/bench_crowd_scale.py [--repeat 3] [--quick]
     [--database-url postgres://postgres@127.0.0.1:5432/qs_bench]
"""
from __future__ import annotations

import argparse
import signal
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_django import start_django  # noqa: E402

TOPICS, DOCS, WORKERS = 100, 200, 790
SCALE = [
    {"grade": -1, "name": "Broken document", "key": "b"},
    {"grade": 0, "name": "Not relevant", "key": "0"},
    {"grade": 1, "name": "Relevant", "key": "1"},
    {"grade": 2, "name": "Highly relevant", "key": "2"},
]
TRUTH_SHARES = [0.04, 0.50, 0.30, 0.16]
WORDS = ("retrieval evaluation pooling assessor relevance judgment <b>markup</b> & crowd topic document "
         "query ranking metric precision recall").split()
TARGETS = {"dashboard": 1.0, "api": 1.0, "conflicts": 0.5}
CONFLICTS_MAX_BYTES = 300_000
PAGE_MAX_BYTES = 1_000_000


def build(seed: int = 0):
    """Create the collection, documents, pool, campaign, crowd workers, items and judgments."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from collections_app.models import Collection, Document, Membership, Pool, PoolPair, Topic
    from judging.models import Assessor, Campaign, Item, Judgment

    rng = np.random.default_rng(seed)
    lead = get_user_model().objects.create_user("bench-lead", password="x")
    collection = Collection.objects.create(name="Crowd", slug="crowd", scale=SCALE, relevant_threshold=1)
    Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    topics = Topic.objects.bulk_create(Topic(collection=collection, qid=str(1 + t), title=f"topic {t}")
                                       for t in range(TOPICS))
    words = np.array(WORDS)
    documents = Document.objects.bulk_create(
        (Document(collection=collection, docno=f"D{t}-{d}", title=f"Document {t}-{d}",
                  text=" ".join(words[rng.integers(0, words.size, 140)]))
         for t in range(TOPICS) for d in range(DOCS)), batch_size=2000)
    pool = Pool.objects.create(collection=collection, name="depth", strategy=Pool.Strategy.DEPTH)
    pairs = PoolPair.objects.bulk_create(
        (PoolPair(pool=pool, topic=topics[t], docno=f"D{t}-{d}", document=documents[t * DOCS + d],
                  judging_order=t * DOCS + d + 1, best_rank=d + 1, run_ranks={})
         for t in range(TOPICS) for d in range(DOCS)), batch_size=5000)
    campaign = Campaign.objects.create(collection=collection, pool=pool, name="crowd", created_by=lead,
                                       overlap=Campaign.Overlap.REPLICATE, judgments_per_pair=5, crowd_enabled=True)
    workers = Assessor.objects.bulk_create(
        Assessor(campaign=campaign, kind=Assessor.Kind.CROWD, platform=Assessor.Platform.MTURK,
                 worker_id=f"W{n:04d}") for n in range(WORKERS))
    n_items = len(pairs)
    per_pair = np.clip(1 + rng.binomial(9, 0.43, size=n_items), 1, 10)
    activity = rng.lognormal(mean=0.0, sigma=1.8, size=WORKERS)
    weights = activity / activity.sum()
    accuracy = rng.beta(4, 2.5, size=WORKERS)
    truth = rng.choice(4, size=n_items, p=TRUTH_SHARES)
    gold = rng.random(n_items) < 0.02
    rows = []
    for i in range(n_items):
        for a in rng.choice(WORKERS, size=int(per_pair[i]), replace=False, p=weights):
            right = rng.random() < accuracy[a]
            grade = truth[i] if right else min(3, max(0, truth[i] + rng.choice([-1, 1, 1])))
            rows.append((i, int(a), SCALE[int(grade)]["grade"]))
    items = Item.objects.bulk_create(
        (Item(campaign=campaign, pair=pairs[i], position=i + 1, required_judgments=int(per_pair[i]),
              judgment_count=int(per_pair[i]), is_gold=bool(gold[i]),
              gold_grade=SCALE[int(truth[i])]["grade"] if gold[i] else None)
         for i in range(n_items)), batch_size=5000)
    start = timezone.now() - timedelta(days=14)
    seconds = rng.lognormal(mean=2.7, sigma=0.8, size=len(rows))
    offsets = np.sort(rng.uniform(0, 14 * 86400, size=len(rows)))
    order = rng.permutation(len(rows))
    field = Judgment._meta.get_field("created_at")
    field.auto_now_add = False  # keep the spread-out times we give (benchmark data only)
    try:
        Judgment.objects.bulk_create(
            (Judgment(item=items[rows[k][0]], assessor=workers[rows[k][1]], grade=rows[k][2],
                      active_seconds=float(seconds[n]), client_token=f"bench-{n}",
                      created_at=start + timedelta(seconds=float(offsets[n])))
             for n, k in enumerate(order)), batch_size=5000)
    finally:
        field.auto_now_add = True
    per_worker = np.bincount([a for _, a, _ in rows], minlength=WORKERS)
    shape = {"judgments": len(rows), "pairs": n_items, "workers_active": int((per_worker > 0).sum()),
             "under_30": int(((per_worker > 0) & (per_worker < 30)).sum()), "max_per_worker": int(per_worker.max()),
             "over_1000": int((per_worker >= 1000).sum())}
    return lead, campaign, shape


class PageTimeout(Exception):
    """A request ran longer than --page-timeout."""


def _stop(signum, frame):
    raise PageTimeout


def _body_size(response) -> int:
    if getattr(response, "streaming", False):
        return sum(len(chunk) for chunk in response.streaming_content)
    return len(response.content)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="Warm requests per page (median reported).")
    parser.add_argument("--database-url", help="A throwaway PostgreSQL database (default: temporary SQLite).")
    parser.add_argument("--quick", action="store_true", help="Only Cohen's κ, AC1 and Fleiss on the dashboard.")
    parser.add_argument("--page-timeout", type=int, default=0,
                        help="Stop a request after this many seconds and report it as over (0: no limit).")
    args = parser.parse_args()
    start_django(args.database_url, name="crowd_scale")
    signal.signal(signal.SIGALRM, _stop)
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import NoReverseMatch, reverse

    from judging.dashboard.choices import CHOICES
    from judging.models import QrelsVersion
    from judging.services.qrels import qrels_freeze

    t0 = time.perf_counter()
    lead, campaign, shape = build()
    print(f"built in {time.perf_counter() - t0:.0f} s on {connection.vendor}: {shape}")
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    client = Client()
    client.force_login(lead)
    slug, pk = campaign.collection.slug, campaign.pk

    def url(name, *extra):
        try:
            return reverse(name, args=[slug, pk, *extra])
        except NoReverseMatch:
            return None

    api = reverse("api-campaign-dashboard", args=[pk])
    stats = ("cohen", "ac1", "fleiss") if args.quick else tuple(CHOICES)
    pages = []
    for key in stats:
        for binary in ("0", "1"):
            pages.append((f"dashboard {key}{' bin' if binary == '1' else ''}", "dashboard",
                          url("campaign-dashboard"), {"stat": key, "binary": binary, "rate": "12"}))
            pages.append((f"API dashboard {key}{' bin' if binary == '1' else ''}", "api", api,
                          {"stat": key, "binary": binary, "rate": "12"}))
    conflicts = url("campaign-conflicts")
    pages += [
        ("collection dashboard", "page", reverse("collection-dashboard", args=[slug]), {}),
        ("campaign page", "page", url("campaign-detail"), {}),
        ("conflicts", "conflicts", conflicts, {}),
        ("conflicts page 40", "conflicts", conflicts, {"page": "40"}),
        ("conflicts topic 7", "conflicts", conflicts, {"topic": "7"}),
        ("conflicts gap>=2 unresolved", "conflicts", conflicts, {"gap": "2", "unresolved": "1"}),
        ("assessors", "page", url("campaign-assessors"), {}),
        ("assessors flagged", "page", url("campaign-assessors"), {"filter": "flagged"}),
        ("low agreement", "page", url("campaign-low-agreement"), {}),
        ("qrels page", "page", url("campaign-qrels"), {}),
        ("API conflicts", "page", reverse("api-campaign-conflicts", args=[pk]), {}),
        ("judgments.csv", "export", url("campaign-judgments-export", "csv"), {}),
        ("judgments.jsonl", "export", url("campaign-judgments-export", "jsonl"), {}),
    ]
    for rule in QrelsVersion.Rule.values:
        pages.append((f"final-labels {rule}", "export", url("campaign-final-labels"), {"rule": rule}))

    print(f"\n{'page':<34} {'cold s':>7} {'warm med s':>10} {'bytes':>10} {'queries':>8}  note")
    misses = []
    for label, kind, address, params in pages:
        if address is None:
            print(f"{label:<34} {'—':>7} {'—':>10} {'—':>10} {'—':>8}  no such page")
            continue
        cache.clear()
        times = []
        try:
            for _ in range(1 + args.repeat):
                with CaptureQueriesContext(connection) as queries:
                    t = time.perf_counter()
                    signal.alarm(args.page_timeout)
                    try:
                        response = client.get(address, params)
                        size = _body_size(response)
                    finally:
                        signal.alarm(0)
                    times.append(time.perf_counter() - t)
                if response.status_code != 200:
                    break
        except PageTimeout:
            print(f"{label:<34} {'>' + str(args.page_timeout):>7} {'—':>10} {'—':>10} {'—':>8}  stopped after "
                  f"{args.page_timeout} s", flush=True)
            misses.append(label)
            continue
        note = "" if response.status_code == 200 else f"HTTP {response.status_code}"
        warm = statistics.median(times[1:]) if len(times) > 1 else times[0]
        target = TARGETS.get(kind)
        if target is not None and warm > target:
            note += f" over {target} s"
        if kind == "conflicts" and size > CONFLICTS_MAX_BYTES:
            note += " over 300 KB"
        if kind != "export" and size > PAGE_MAX_BYTES:
            note += " over 1 MB"
        if note.strip():
            misses.append(label)
        print(f"{label:<34} {times[0]:>7.2f} {warm:>10.3f} {size:>10,} {len(queries):>8}  {note.strip()}", flush=True)

    print(f"\n{'freeze (service)':<34} {'s':>7}")
    for rule in QrelsVersion.Rule.values:
        t = time.perf_counter()
        version = qrels_freeze(campaign=campaign, rule=rule, description="bench", user=lead)
        info = getattr(version, "aggregation", None) or {}
        extra = f"  {info.get('iterations')} rounds, converged {info.get('converged')}" if info else ""
        print(f"freeze {rule:<27} {time.perf_counter() - t:>7.2f}{extra}", flush=True)
    print(f"\ntargets missed: {', '.join(misses) if misses else 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
