"""Load and fault suite: the `make prod` shape on 127.0.0.1, 50 API assessors judging, faults injected.

Deploys what `make prod` runs (migrate, collectstatic, gunicorn with --web-workers on the
PostgreSQL database named by --database-url, which must be a throwaway one, two RQ task workers
on Redis and the reaper), fills a campaign of --pairs pool pairs needing --judgments judgments
each (replicate overlap), gives --clients assessors an API token each and lets them loop
next → submit through HTTP:

- 5 % of submits are sent twice with the same client token (a client that did not see the answer);
- 5 % of leases are abandoned: the client leaves that assessor idle (its lease runs out after
  --lease-seconds) and carries on as a spare assessor, so someone else must judge the item;
- faults, once each: SIGKILL of one gunicorn worker, a restart of one task worker, and
  pg_terminate_backend on every connection of the app's database.

The client follows the API's retry contract (docs/deployment.md): a connection error, a 5xx or a
429 is retried after a short back-off with the same request, and a submit keeps its client token,
so a retry can never record a second judgment.

Modes: ``paced`` (think time 2–6 s between next and submit, the pace of real judging, assessors arriving over the first 6 s; runs for
--duration seconds) and ``saturation`` (no think time; runs until the campaign is complete or
--duration). Prints p50/p95/p99 per endpoint, rounds per second, errors by status and what each
fault cost, then checks the invariants against the database: no (item, assessor) judged twice,
no item over its required count, every acknowledged submit stored, abandoned items judged by
someone else, and (saturation) the campaign complete. Exits 1 if an invariant fails.

Run: .venv/bin/pip install -r requirements-bench.txt
     .venv/bin/python benchmarks/load_judging.py --mode saturation \
         --database-url postgres://postgres@127.0.0.1:5432/qs_load --port 8182 --redis-url redis://127.0.0.1:6379/8
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RETRY_STATUSES = {429, 500, 502, 503, 504}
MAX_TRIES = 10


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# --- deployment -----------------------------------------------------------------------------------

class Deployment:
    """The make-prod processes, started and stopped by this script (bounded: everything stops at exit)."""

    def __init__(self, args) -> None:
        self.args = args
        self.env = {k: v for k, v in os.environ.items() if k not in ("QRELSMITH_DEV",)}
        self.env.update(
            DJANGO_SETTINGS_MODULE="qrelsmith.settings", DEBUG="0", SECRET_KEY=uuid.uuid4().hex * 2,
            DATABASE_URL=args.database_url, DB_CONN_MAX_AGE="60", TASKS_BACKEND="rq", REDIS_URL=args.redis_url,
            CACHE_URL=args.redis_url, CACHE_KEY_PREFIX=f"load{os.getpid()}", ALLOWED_HOSTS="127.0.0.1",
            STATIC_ROOT=str(Path(args.workdir) / "static"), MEDIA_ROOT=str(Path(args.workdir) / "media"),
            SECURE_SSL_REDIRECT="0", THROTTLE_TOKEN="100000/min", LOG_LEVEL="ERROR",
        )
        self.gunicorn: subprocess.Popen | None = None
        self.task_workers: list[subprocess.Popen] = []
        self.reaper: subprocess.Popen | None = None
        self.log = open(Path(args.workdir) / "servers.log", "w")  # noqa: SIM115 - closed in stop()

    def manage(self, *command: str) -> None:
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=self.env, check=True,
                       stdout=self.log, stderr=self.log)

    def spawn(self, *command: str) -> subprocess.Popen:
        return subprocess.Popen(list(command), cwd=ROOT, env=self.env, stdout=self.log, stderr=self.log,
                                start_new_session=True)

    def task_worker(self) -> subprocess.Popen:
        return self.spawn(sys.executable, "manage.py", "rqworker", "default", "--job-class", "django_tasks_rq.Job")

    def start(self) -> None:
        self.manage("collectstatic", "--noinput", "-v0")
        self.task_workers = [self.task_worker() for _ in range(2)]
        self.reaper = self.spawn(sys.executable, "manage.py", "reap", "--loop", "10")
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        self.gunicorn = self.spawn(gunicorn, "qrelsmith.wsgi", "--preload", "--workers", str(self.args.web_workers),
                                   "--bind", f"127.0.0.1:{self.args.port}", "--timeout", "60",
                                   "--backlog", "2048")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                status, _ = request(self.args.port, "GET", "/healthz", None, None)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError("gunicorn did not answer /healthz within 60 s (see servers.log)")

    def web_worker_pids(self) -> list[int]:
        import psutil

        return [child.pid for child in psutil.Process(self.gunicorn.pid).children()]

    def kill_web_worker(self) -> str:
        pid = random.choice(self.web_worker_pids())
        os.kill(pid, signal.SIGKILL)
        return f"SIGKILL gunicorn worker {pid}"

    def restart_task_worker(self) -> str:
        old = self.task_workers.pop(0)
        os.killpg(old.pid, signal.SIGTERM)
        old.wait(timeout=30)
        self.task_workers.append(self.task_worker())
        return f"restarted task worker {old.pid} → {self.task_workers[-1].pid}"

    def terminate_db_connections(self) -> str:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
            (count,) = cursor.fetchone()
        return f"terminated {count} database connections"

    def stop(self) -> None:
        for process in [self.gunicorn, self.reaper, *self.task_workers]:
            if process is not None and process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(timeout=30)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(process.pid, signal.SIGKILL)
        self.log.close()


def request(port: int, method: str, path: str, token: str | None, body: dict | None) -> tuple[int, dict | None]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        headers = {"Host": "127.0.0.1", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        payload = None
        if body is not None:
            payload = json.dumps(body)
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        data = response.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return response.status, parsed
    finally:
        connection.close()


# --- data -----------------------------------------------------------------------------------------

def setup_campaign(args) -> tuple[int, list[tuple[int, str]]]:
    """Create a collection, a pool of --pairs pairs over 50 topics and a campaign; return (id, [(assessor id, token)])."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from collections_app import scales
    from collections_app.models import Collection, Document, Membership, Pool, PoolPair, Topic
    from judging.models import Assessor
    from judging.plan import CampaignPlan
    from judging.services.campaigns import campaign_create

    rng = random.Random(7)
    users = get_user_model()
    lead = users.objects.create_user("lead", password="x")
    grades, threshold = scales.preset(scales.GRADED)
    collection = Collection.objects.create(name="Load", slug="load", scale=grades, relevant_threshold=threshold)
    Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    topics = Topic.objects.bulk_create(Topic(collection=collection, qid=str(401 + t), title=f"topic {t}")
                                       for t in range(50))
    # Heavy-tailed pool depth per topic (a few deep topics, many shallow), like real pools.
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(topics))]
    counts = [max(5, round(args.pairs * w / sum(weights))) for w in weights]
    counts[0] += args.pairs - sum(counts)
    documents, pairs = [], []
    order = 0
    for topic, count in zip(topics, counts):
        for d in range(count):
            docno = f"{topic.qid}-doc{d}"
            documents.append(Document(collection=collection, docno=docno, title=f"Doc {docno}",
                                      text="wind turbine noise " * rng.randint(20, 400)))
    Document.objects.bulk_create(documents, batch_size=1000)
    by_docno = {doc.docno: doc for doc in Document.objects.filter(collection=collection)}
    pool = Pool.objects.create(collection=collection, name="pool", strategy=Pool.Strategy.DEPTH, parameters={"k": 100})
    for topic, count in zip(topics, counts):
        for d in range(count):
            order += 1
            docno = f"{topic.qid}-doc{d}"
            pairs.append(PoolPair(pool=pool, topic=topic, docno=docno, document=by_docno[docno], judging_order=order,
                                  best_rank=d + 1, run_ranks={"r1": d + 1}))
    PoolPair.objects.bulk_create(pairs, batch_size=1000)
    people = []
    for n in range(args.clients + args.spares):
        user = users.objects.create_user(f"assessor{n:03d}", password="x")
        Membership.objects.create(collection=collection, user=user, role=Membership.Role.ASSESSOR)
        people.append(user)
    campaign = campaign_create(collection=collection, pool=pool, name="load", created_by=lead, assessors=people,
                               plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=args.judgments,
                                                    lease_seconds=args.lease_seconds))
    tokens = []
    for assessor in Assessor.objects.filter(campaign=campaign).select_related("user").order_by("user__username"):
        tokens.append((assessor.pk, Token.objects.create(user=assessor.user).key))
    return campaign.pk, tokens


# --- CPU cost -------------------------------------------------------------------------------------

class CpuMeter:
    """CPU seconds spent by the web workers, the database backends and the clients during the judging phase.

    On a shared machine latencies and rounds/s measure the neighbours as much as the code; CPU
    time per round does not (much), and 1000 × cores / (CPU ms per round) is the ceiling on
    rounds/s this machine could reach. Sampled every second, per process: a worker killed by
    the fault injection keeps the CPU it was last seen with.
    """

    def __init__(self, gunicorn_pid: int, database: str) -> None:
        import psutil

        self.psutil = psutil
        self.gunicorn_pid = gunicorn_pid
        self.database = database
        self.seen: dict[tuple[str, int], float] = {}
        self.start: dict[tuple[str, int], float] = {}
        self.client = psutil.Process()
        self.client_start = self._cpu(self.client)
        self.client_end = self.client_start
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    @staticmethod
    def _cpu(process) -> float:
        times = process.cpu_times()
        return times.user + times.system

    def _sample(self) -> None:
        psutil = self.psutil
        found: list[tuple[str, object]] = []
        try:
            master = psutil.Process(self.gunicorn_pid)
            found += [("web", master)] + [("web", child) for child in master.children()]
        except psutil.Error:
            pass
        for process in psutil.process_iter(["cmdline"]):
            cmdline = process.info["cmdline"] or []
            if cmdline and cmdline[0].startswith("postgres:") and f" {self.database} " in f" {cmdline[0]} ":
                found.append(("database", process))
        for kind, process in found:
            try:
                cpu = self._cpu(process)
            except psutil.Error:
                continue
            key = (kind, process.pid)  # type: ignore[attr-defined]
            self.seen[key] = cpu
        self.client_end = self._cpu(self.client)

    def _loop(self) -> None:
        while not self.stopped.wait(1.0):
            self._sample()

    def begin(self) -> None:
        """Take the baseline (the processes that exist now count only what they spend from here on)."""
        self._sample()
        self.start = dict(self.seen)
        self.client_start = self.client_end
        self.thread.start()

    def end(self) -> dict[str, float]:
        """Stop sampling; return CPU seconds by part: web, database, clients."""
        self._sample()
        self.stopped.set()
        spent = {"web": 0.0, "database": 0.0}
        for key, cpu in self.seen.items():
            spent[key[0]] += cpu - self.start.get(key, 0.0)
        spent["clients"] = self.client_end - self.client_start
        return spent


# --- clients --------------------------------------------------------------------------------------

class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.statuses: Counter = Counter()
        self.errors: Counter = Counter()
        self.retried = 0
        self.rounds = 0
        self.acknowledged: list[tuple[int, int, str]] = []  # (item, assessor, client token)
        self.abandoned: list[tuple[int, int]] = []  # (item, assessor)
        self.duplicates_sent = 0
        self.refused: Counter = Counter()
        self.last_abandon = float("-inf")  # monotonic time of the last abandoned lease
        self.drained: tuple[float, int] | None = None  # (time, rounds) of the first 204: only held items left

    def record(self, endpoint: str, seconds: float, status: int | str) -> None:
        with self.lock:
            self.latency[endpoint].append(seconds)
            self.statuses[(endpoint, status)] += 1
            if not isinstance(status, int) or status in RETRY_STATUSES:
                self.errors[(endpoint, status)] += 1


def call(stats: Stats, port: int, endpoint: str, path: str, token: str, body: dict | None) -> tuple[int, dict | None]:
    """One API call under the retry contract: retry connection errors, 5xx and 429 with the same request."""
    for attempt in range(MAX_TRIES):
        started = time.perf_counter()
        try:
            status, data = request(port, "POST", path, token, body)
        except (OSError, http.client.HTTPException) as exc:
            stats.record(endpoint, time.perf_counter() - started, type(exc).__name__)
        else:
            stats.record(endpoint, time.perf_counter() - started, status)
            if status not in RETRY_STATUSES:
                return status, data
        with stats.lock:
            stats.retried += 1
        time.sleep(min(2.0, 0.05 * 2 ** attempt) * (0.5 + random.random()))
    with stats.lock:
        stats.refused[(endpoint, "gave up")] += 1
    return 0, None


def run_clients(args, campaign_id: int, tokens: list[tuple[int, str]], stats: Stats, stop: threading.Event,
                progress: list[int]) -> None:
    spares: list[tuple[int, str]] = list(tokens[args.clients:])
    resting: list[tuple[float, tuple[int, str]]] = []
    pool_lock = threading.Lock()

    def swap(identity):
        """Leave this assessor idle (its lease runs out) and continue as a spare one."""
        with pool_lock:
            resting.append((time.monotonic() + args.lease_seconds + 1, identity))
            ready = [entry for entry in resting if entry[0] <= time.monotonic()]
            for entry in ready:
                resting.remove(entry)
                spares.append(entry[1])
            return spares.pop(0) if spares else None

    def client(index: int, identity: tuple[int, str]) -> None:
        rng = random.Random(index)
        next_path = f"/api/campaigns/{campaign_id}/next/"
        submit_path = f"/api/campaigns/{campaign_id}/judgments/"
        if args.mode == "paced" and stop.wait(rng.uniform(0.0, 6.0)):
            return  # real assessors arrive over a think-time window, not all in the same millisecond
        while not stop.is_set():
            assessor_id, token = identity
            status, item = call(stats, args.port, "next", next_path, token, None)
            if status == 204:
                with stats.lock:
                    if stats.drained is None:
                        stats.drained = (time.monotonic(), stats.rounds)
                    leases_out = stats.last_abandon + args.lease_seconds + 1 - time.monotonic()
                if leases_out > 0:
                    # What is left may be held by abandoned leases: ask again once the last has run out.
                    if stop.wait(leases_out):
                        return
                    continue
            if status == 204 or (status == 0 and stop.is_set()):
                return  # this assessor's queue is empty (or the run is over)
            if status != 200:
                with stats.lock:
                    stats.refused[("next", status)] += 1
                continue
            if args.mode == "paced":
                if stop.wait(rng.uniform(2.0, 6.0)):
                    return
            if rng.random() < args.abandon_rate:
                with stats.lock:
                    stats.abandoned.append((item["item"], assessor_id))
                    stats.last_abandon = time.monotonic()
                replacement = swap(identity)
                if replacement is None:
                    return
                identity = replacement
                continue
            body = {"item": item["item"], "grade": rng.choice([0, 0, 1, 2, 3]), "client_token": uuid.uuid4().hex,
                    "active_seconds": 3}
            repeats = 2 if rng.random() < args.duplicate_rate else 1
            for _ in range(repeats):
                status, answer = call(stats, args.port, "submit", submit_path, token, body)
                if status == 200:
                    with stats.lock:
                        stats.acknowledged.append((item["item"], assessor_id, body["client_token"]))
                else:
                    with stats.lock:
                        stats.refused[("submit", (status, (answer or {}).get("code")))] += 1
            with stats.lock:
                stats.duplicates_sent += repeats - 1
                stats.rounds += 1
                progress[0] += 1

    threads = [threading.Thread(target=client, args=(i, tokens[i]), daemon=True) for i in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# --- invariants -----------------------------------------------------------------------------------

def check_invariants(campaign_id: int, stats: Stats, *, require_complete: bool) -> list[tuple[str, bool, str]]:
    from django.db.models import Count

    from judging.models import Item, Judgment

    judgments = Judgment.objects.filter(item__campaign_id=campaign_id)
    doubled = judgments.values("item", "assessor").annotate(n=Count("id")).filter(n__gt=1).count()
    counted = dict(judgments.values_list("item").annotate(n=Count("id")))
    items = list(Item.objects.filter(campaign_id=campaign_id).values_list("pk", "required_judgments", "judgment_count"))
    over = sum(1 for pk, required, _ in items if counted.get(pk, 0) > required)
    mismatched = sum(1 for pk, _, stored in items if counted.get(pk, 0) != stored)
    stored = set(judgments.values_list("client_token", flat=True))
    from judging.models import JudgmentRevision

    stored |= set(JudgmentRevision.objects.filter(judgment__item__campaign_id=campaign_id)
                  .values_list("client_token", flat=True))
    lost = sum(1 for _, _, token in stats.acknowledged if token not in stored)
    by_item = defaultdict(set)
    for item, assessor in judgments.values_list("item", "assessor"):
        by_item[item].add(assessor)
    complete_abandoned = sum(1 for item, assessor in stats.abandoned if by_item[item] - {assessor})
    incomplete = sum(1 for pk, required, _ in items if counted.get(pk, 0) < required)
    checks = [
        ("no (item, assessor) judged twice", doubled == 0, f"{doubled} doubled"),
        ("no item over its required count", over == 0, f"{over} over"),
        ("judgment_count matches the stored judgments", mismatched == 0, f"{mismatched} mismatched"),
        ("every acknowledged submit stored", lost == 0, f"{len(stats.acknowledged)} acknowledged, {lost} lost"),
        ("abandoned items judged by someone else",
         complete_abandoned == len(stats.abandoned) or not require_complete,
         f"{complete_abandoned} of {len(stats.abandoned)}"),
    ]
    if require_complete:
        checks.append(("the campaign completes", incomplete == 0, f"{incomplete} items short of their count"))
    return checks


# --- main -----------------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["paced", "saturation"], default="saturation")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/qs_load",
                        help="A THROWAWAY PostgreSQL database: it is dropped and created again.")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--port", type=int, default=8182)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--spares", type=int, default=200,
                        help="Extra assessors taken up after an abandoned lease (an abandoning assessor rests for "
                             "a lease; at R rounds/s about abandon-rate × R × lease seconds rest at once).")
    parser.add_argument("--pairs", type=int, default=1500)
    parser.add_argument("--judgments", type=int, default=3, help="Judgments per pair (2 or 3).")
    parser.add_argument("--lease-seconds", type=int, default=30, help="The plan allows 30 s to 24 h.")
    parser.add_argument("--duplicate-rate", type=float, default=0.05)
    parser.add_argument("--abandon-rate", type=float, default=0.05)
    parser.add_argument("--duration", type=float, default=600, help="Hard bound on the judging phase, seconds.")
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--workdir", default=f"/tmp/qs_load_{os.getpid()}")
    args = parser.parse_args()
    Path(args.workdir).mkdir(parents=True, exist_ok=True)

    import dj_database_url
    import psycopg

    db = dj_database_url.parse(args.database_url)
    admin = psycopg.connect(host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], dbname="postgres",
                            autocommit=True)
    admin.execute(f'DROP DATABASE IF EXISTS "{db["NAME"]}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{db["NAME"]}"')
    admin.close()
    import redis

    redis.Redis.from_url(args.redis_url).flushdb()

    deployment = Deployment(args)
    os.environ.update(deployment.env)
    import django

    django.setup()
    deployment.manage("migrate", "--noinput", "-v0")
    campaign_id, tokens = setup_campaign(args)
    from django.db import connection

    connection.close()
    total_rounds = args.pairs * args.judgments
    print(f"campaign {campaign_id}: {args.pairs} pairs × {args.judgments} judgments, {args.clients} clients "
          f"({args.mode}), {args.web_workers} gunicorn workers, PostgreSQL, RQ on Redis")
    stats = Stats()
    stop = threading.Event()
    progress = [0]
    faults: list[str] = []
    bounded = False
    try:
        deployment.start()
        plan = [] if args.no_faults else [(0.25, deployment.kill_web_worker), (0.45, deployment.restart_task_worker),
                                          (0.65, deployment.terminate_db_connections)]
        runner = threading.Thread(target=run_clients, args=(args, campaign_id, tokens, stats, stop, progress))
        assert deployment.gunicorn is not None
        meter = CpuMeter(deployment.gunicorn.pid, db["NAME"])
        meter.begin()
        started = time.monotonic()
        runner.start()
        expected = total_rounds if args.mode == "saturation" else args.duration * args.clients / 4.5
        while runner.is_alive():
            runner.join(timeout=0.5)
            elapsed = time.monotonic() - started
            if elapsed > args.duration:
                bounded = True
                stop.set()
            # Faults fire at a share of the work done or of the time bound, whichever comes first.
            done = max(progress[0] / expected if args.mode == "saturation" else 0.0, elapsed / args.duration)
            while plan and done >= plan[0][0]:
                _, fault = plan.pop(0)
                faults.append(f"{elapsed:6.1f} s: {fault()}")
        wall = time.monotonic() - started
        cpu = meter.end()
    finally:
        stop.set()
        deployment.stop()

    print(f"\njudging phase {wall:.1f} s; {stats.rounds} rounds (next+submit) = {stats.rounds / wall:.1f} rounds/s; "
          f"{stats.duplicates_sent} duplicate submits sent, {len(stats.abandoned)} leases abandoned, "
          f"{stats.retried} retries")
    if stats.drained is not None:
        busy, rounds_busy = stats.drained[0] - started, stats.drained[1]
        print(f"until the queue first ran dry (only abandoned leases left to expire): {busy:.1f} s, {rounds_busy} "
              f"rounds = {rounds_busy / busy:.1f} rounds/s")
    print(f"\n{'endpoint':<8} {'calls':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for endpoint in ("next", "submit"):
        ms = [t * 1000 for t in stats.latency[endpoint]]
        print(f"{endpoint:<8} {len(ms):>7} {percentile(ms, .5):>8.1f} {percentile(ms, .95):>8.1f} "
              f"{percentile(ms, .99):>8.1f} {max(ms) if ms else float('nan'):>8.1f}")
    print("\nresponses by status:", ", ".join(f"{e} {s}: {n}" for (e, s), n in sorted(stats.statuses.items(),
                                                                                     key=str)))
    print("errors (all retried):", ", ".join(f"{e} {s}: {n}" for (e, s), n in sorted(stats.errors.items(), key=str))
          or "none")
    print("refused (not retried):", ", ".join(f"{e} {s}: {n}" for (e, s), n in sorted(stats.refused.items(),
                                                                                     key=str)) or "none")
    print("faults:", *faults, sep="\n  ")
    print(f"mean latency next {statistics.mean(stats.latency['next']) * 1000:.1f} ms" if stats.latency["next"] else "")
    rounds = max(stats.rounds, 1)
    total = sum(cpu.values())
    cores = os.cpu_count() or 1
    print(f"\nCPU per round (load-independent): web {cpu['web'] * 1000 / rounds:.1f} ms, database "
          f"{cpu['database'] * 1000 / rounds:.1f} ms, clients {cpu['clients'] * 1000 / rounds:.1f} ms, total "
          f"{total * 1000 / rounds:.1f} ms → at most {cores * rounds / total if total else float('nan'):.0f} rounds/s "
          f"on {cores} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    complete = args.mode == "saturation" and not bounded
    checks = check_invariants(campaign_id, stats, require_complete=complete)
    if args.mode == "saturation" and bounded:
        print("\n(the run hit --duration before the campaign was complete: completion not checked)")
    print("\ninvariants:")
    for name, ok, detail in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
