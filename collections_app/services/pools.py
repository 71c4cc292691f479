"""Build, deepen and delete pools: load rankings, call the pure pooling functions, persist."""
from __future__ import annotations

import json
import zlib
from collections.abc import Callable

import numpy as np
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from collections_app import runstore
from collections_app.importers.errors import ProblemList
from collections_app.importers.pairs import parse_pairs
from collections_app.importers.sources import Source
from collections_app.models import Document, Pool, PoolPair, QrelsEntry, QrelsSet, Run, RunRanking, Topic
from collections_app.pooling import ordering, sampling, selection, strategies

STRATEGIES = ("depth", "budget", "fusion", "sample")
_BATCH = 5000

Progress = Callable[[int, int | None], None] | None


def _check_positive(value, *, name: str, required: bool) -> None:
    if value is None:
        if required:
            raise ValidationError(f"This strategy needs a {name}.", code=f"{name}_required")
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(f"{name} must be a whole number of at least 1.", code=f"bad_{name}")


def _validate(*, strategy, depth, budget, fusion, order, max_runs_per_group) -> None:
    if strategy not in STRATEGIES:
        raise ValidationError(f"Unknown strategy {strategy!r}.", code="bad_strategy")
    _check_positive(depth, name="depth", required=strategy == "depth")
    _check_positive(budget, name="budget", required=strategy in ("budget", "fusion"))
    if fusion not in strategies.FUSIONS:
        raise ValidationError(f"Unknown fusion {fusion!r}.", code="bad_fusion")
    if order not in ordering.ORDERS:
        raise ValidationError(f"Unknown order {order!r}.", code="bad_order")
    if max_runs_per_group is not None:
        _check_positive(max_runs_per_group, name="max_runs_per_group", required=False)


def _load_rankings(runs: list[Run], *, depth: int | None, with_scores: bool, progress: Progress):
    """Return ``{qid: {tag: [docno...]}}`` (cut at ``depth``) and, if asked, the scores alike."""
    tags = {run.pk: run.tag for run in runs}
    qids = dict(Topic.objects.filter(run_rankings__run__in=runs).distinct().values_list("pk", "qid"))
    fields = ["run_id", "topic_id", "docnos"] + (["scores"] if with_scores else [])
    rows = RunRanking.objects.filter(run__in=runs).values_list(*fields)
    total = RunRanking.objects.filter(run__in=runs).count()
    rankings: dict[str, dict[str, list[str]]] = {}
    scores: dict[str, dict[str, np.ndarray]] = {}
    for done, row in enumerate(rows.iterator(chunk_size=500), start=1):
        qid, tag = qids[row[1]], tags[row[0]]
        docnos = runstore.unpack_docnos(row[2]) if depth is None else _head_docnos(row[2], depth)
        rankings.setdefault(qid, {})[tag] = docnos
        if with_scores:
            scores.setdefault(qid, {})[tag] = runstore.unpack_scores(row[3])
        if progress is not None and (done % 200 == 0 or done == total):
            progress(done, total)
    return rankings, scores


def _head_docnos(blob, n: int) -> list[str]:
    """Return the first ``n`` docnos of a packed ranking, decompressing no more than needed.

    A depth-100 pool needs a tenth of a 1000-line ranking; stopping early saves most of the
    zlib and split work (same result as ``runstore.unpack_docnos(blob)[:n]``).
    """
    if n <= 0:
        return []
    data = bytes(blob)
    stream = zlib.decompressobj()
    step = 64 * n
    buf = stream.decompress(data, step)
    while buf.count(b"\n") < n and stream.unconsumed_tail:
        buf += stream.decompress(stream.unconsumed_tail, step)
    if buf.count(b"\n") >= n:
        end = -1
        for _ in range(n):
            end = buf.index(b"\n", end + 1)
        return buf[:end].decode("utf-8").split("\n")
    buf += stream.flush()
    return buf.decode("utf-8").split("\n") if buf else []


def _judged(collection) -> dict[str, set[str]]:
    judged: dict[str, set[str]] = {}
    rows = QrelsEntry.objects.filter(topic__collection=collection).values_list("topic__qid", "docno")
    for qid, docno in rows.iterator(chunk_size=_BATCH):
        judged.setdefault(qid, set()).add(docno)
    return judged


def _compute(collection, runs: list[Run], params: dict, *, progress: Progress) -> tuple[dict, dict, dict]:
    """Return ``({qid: {docno: {tag: rank}}}, {qid: {docno: fused}}, {qid: {docno: (stratum, prob)}})``.

    The third mapping is filled for sampled pools only. ``params["left_out_judged"]`` is set to
    the number of pairs left out because imported qrels already judge them: the judged pairs
    the same pool would hold without the exclusion (budget and fusion pools fill the freed
    places with the next pairs, so their size does not drop by that number).
    """
    strategy, depth, budget = params["strategy"], params["depth"], params["budget"]
    needs_scores = strategy == "fusion" and params["fusion"] == "combsum"
    cut = depth if strategy == "depth" else params["strata"][-1][0] if strategy == "sample" else None
    rankings, scores = _load_rankings(runs, depth=cut, with_scores=needs_scores, progress=progress)
    judged = _judged(collection) if params["exclude_judged"] else {}
    pooled, fused, samples = {}, {}, {}
    left_out = 0
    for qid, topic_rankings in rankings.items():
        skip = judged.get(qid, set())
        if strategy == "depth":
            chosen = strategies.depth_pool(topic_rankings, depth=depth)
            left_out += sum(1 for d in chosen if d in skip)
            chosen = {d: r for d, r in chosen.items() if d not in skip}
            # RRF within the depth, straight from the ranks just found (= fused_scores(..., depth=depth)).
            rrf_k = strategies.RRF_K
            topic_fused = {d: sum(1.0 / (rrf_k + r) for r in ranks.values()) for d, ranks in chosen.items()}
        elif strategy == "sample":
            drawn = sampling.stratified_sample(topic_rankings, strata=params["strata"], seed=params["seed"], topic=qid)
            ranks = strategies.run_ranks(topic_rankings)
            left_out += sum(1 for d, s in drawn.items() if s.sampled and d in skip)
            chosen = {d: ranks[d] for d, s in drawn.items() if s.sampled and d not in skip}
            samples[qid] = {d: (drawn[d].stratum, drawn[d].prob) for d in chosen}
            topic_fused = strategies.fused_scores(topic_rankings, method="rrf")
        elif strategy == "budget":
            chosen = strategies.round_robin_pool(topic_rankings, budget=budget, skip=skip)
            if skip:
                left_out += sum(1 for d in strategies.round_robin_pool(topic_rankings, budget=budget) if d in skip)
            topic_fused = strategies.fused_scores(topic_rankings, method="rrf")
        else:
            chosen = strategies.fused_pool(
                topic_rankings, budget=budget, method=params["fusion"], scores=scores.get(qid), skip=skip
            )
            if skip:
                unskipped = strategies.fused_pool(topic_rankings, budget=budget, method=params["fusion"],
                                                  scores=scores.get(qid))
                left_out += sum(1 for d in unskipped if d in skip)
            topic_fused = strategies.fused_scores(topic_rankings, method=params["fusion"], scores=scores.get(qid))
        if chosen:
            pooled[qid] = chosen
            fused[qid] = {docno: topic_fused.get(docno, 0.0) for docno in chosen}
    params["left_out_judged"] = left_out
    return pooled, fused, samples


def _persist_pairs(pool: Pool, order: list[tuple[str, str]], pooled: dict, fused: dict, *, start: int,
                   samples: dict | None = None) -> int:
    topics = dict(Topic.objects.filter(collection=pool.collection).values_list("qid", "pk"))
    docnos = {docno for _, docno in order}
    documents: dict[str, int] = {}
    wanted = sorted(docnos)
    for i in range(0, len(wanted), _BATCH):  # chunks keep SQLite under its variable limit
        documents.update(
            Document.objects.filter(collection=pool.collection, docno__in=wanted[i:i + _BATCH])
            .values_list("docno", "pk")
        )
    rows = [
        (pool.pk, topics[qid], docno, documents.get(docno), start + index,
         min(pooled[qid][docno].values(), default=0), pooled[qid][docno], fused[qid][docno],
         *(samples or {}).get(qid, {}).get(docno, ("", None)))
        for index, (qid, docno) in enumerate(order)
    ]
    _insert_pairs(rows)
    return len(rows)


def _json_prep():
    """Return a function turning ``{tag: rank}`` into the JSONField's database value."""
    json_field = PoolPair._meta.get_field("run_ranks")
    if connection.vendor != "sqlite":
        return lambda value: json_field.get_db_prep_save(value, connection)
    # SQLite's JSONField stores json.dumps text: build it directly (keys quoted once per tag),
    # skipping the per-value field and encoder hops that dominate 100k-row inserts.
    keys: dict[str, str] = {}

    def prep(ranks: dict) -> str:
        parts = []
        for tag, rank in ranks.items():
            key = keys.get(tag)
            if key is None:
                key = keys[tag] = json.dumps(tag)
            parts.append(f"{key}: {int(rank)}")
        return "{" + ", ".join(parts) + "}"

    return prep


def _update_ranks(changed: list[tuple[int, dict]]) -> None:
    """Set run_ranks/best_rank of existing pairs with one executemany per batch (bulk_update's CASE is slow)."""
    meta = PoolPair._meta
    quote = connection.ops.quote_name
    sql = (f"UPDATE {quote(meta.db_table)} SET {quote(meta.get_field('run_ranks').column)} = %s, "
           f"{quote(meta.get_field('best_rank').column)} = %s WHERE {quote(meta.pk.column)} = %s")
    prep = _json_prep()
    with connection.cursor() as cursor:
        for i in range(0, len(changed), _BATCH):
            cursor.executemany(sql, [(prep(r), min(r.values()), pk) for pk, r in changed[i:i + _BATCH]])


def _insert_pairs(rows: list[tuple]) -> None:
    """Insert pool pairs with one executemany per batch.

    ``bulk_create`` builds a model instance and prepares every field of every row in Python,
    which took ~7 s of a 100-run depth-100 pool (110k pairs) on SQLite; plain parameterised
    INSERTs take a fraction of that. The JSON field still goes through its own
    ``get_db_prep_save`` on PostgreSQL (psycopg wants Jsonb); SQLite stores ``json.dumps`` text.
    """
    meta = PoolPair._meta
    names = ["pool", "topic", "docno", "document", "judging_order", "best_rank", "run_ranks", "fused_score",
             "stratum", "inclusion_probability"]
    columns = [meta.get_field(name).column for name in names]  # type: ignore[union-attr]  # only concrete fields are named
    prep = _json_prep()
    quote = connection.ops.quote_name
    sql = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(c) for c in columns)}) "  # type: ignore[arg-type]  # only concrete fields are named
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    with connection.cursor() as cursor:
        for i in range(0, len(rows), _BATCH):
            batch = [(*row[:6], prep(row[6]), *row[7:])
                     for row in rows[i:i + _BATCH]]
            cursor.executemany(sql, batch)


@transaction.atomic
def pool_build(
    *, collection, name: str, strategy: str, depth: int | None = None, budget: int | None = None,
    fusion: str = "rrf", order: str = "fused", seed: int = 0, run_tags: list[str] | None = None,
    max_runs_per_group: int | None = None, exclude_judged: bool = True, strata=None, user=None,
    progress: Progress = None,
) -> Pool:
    """Build and save a pool from the collection's runs, in one transaction.

    The same collection data and arguments always give the same pairs and judging order
    (see ``collections_app.pooling`` for the tie rules). Raises ``ValidationError`` with a code:
    ``name_required``, ``name_taken``, ``bad_strategy``, ``depth_required``, ``bad_depth``,
    ``budget_required``, ``bad_budget``, ``bad_fusion``, ``bad_order``, ``unknown_run``, ``no_runs``,
    ``bad_strata``.

    ``strategy="sample"`` draws a seeded stratified sample by best rank (``strata``: a
    ``"10:1,30:0.5,100:0.2"`` string or ``[(last_rank, rate), ...]``, default
    ``pooling.sampling.DEFAULT_STRATA``) and records each pair's stratum and inclusion probability.
    """
    name = (name or "").strip()
    if not name:
        raise ValidationError("A pool needs a name.", code="name_required")
    _validate(strategy=strategy, depth=depth, budget=budget, fusion=fusion, order=order,
              max_runs_per_group=max_runs_per_group)
    if Pool.objects.filter(collection=collection, name=name).exists():
        raise ValidationError(f"A pool named {name!r} already exists.", code="name_taken")
    if strategy == "sample":
        try:
            strata = (sampling.parse_strata(strata) if isinstance(strata, str)
                      else tuple((int(a), float(b)) for a, b in (strata or sampling.DEFAULT_STRATA)))
            sampling.check_strata(strata)
        except (TypeError, ValueError) as error:
            raise ValidationError(str(error), code="bad_strata") from error
        strata = [list(band) for band in strata]
    all_runs = {run.tag: run for run in Run.objects.filter(collection=collection)}
    try:
        tags = selection.runs_choose(
            [(run.tag, run.group) for run in all_runs.values()], tags=run_tags, max_per_group=max_runs_per_group
        )
    except ValueError as error:
        raise ValidationError(str(error), code="unknown_run") from error
    if not tags:
        raise ValidationError("No runs to pool from.", code="no_runs")
    runs = [all_runs[tag] for tag in tags]
    params = {
        "strategy": strategy, "depth": depth, "budget": budget, "fusion": fusion, "order": order, "seed": seed,
        "run_tags": list(run_tags) if run_tags is not None else None, "max_runs_per_group": max_runs_per_group,
        "exclude_judged": exclude_judged, "rrf_k": strategies.RRF_K,
    }
    if strategy == "sample":
        params["strata"] = strata
    pooled, fused, samples = _compute(collection, runs, params, progress=progress)
    pool = Pool.objects.create(collection=collection, name=name, strategy=strategy, parameters=params,
                               created_by=user)
    pool.runs.set(runs)
    judging = ordering.judging_order({qid: list(d) for qid, d in pooled.items()}, order=order, fused=fused, seed=seed)
    _persist_pairs(pool, judging, pooled, fused, start=1, samples=samples)
    return pool


@transaction.atomic
def pool_deepen(*, pool: Pool, depth: int, progress: Progress = None) -> Pool:
    """Deepen a depth pool to ``depth``, appending only new pairs after the existing judging order.

    Existing pairs keep their judging order (assessors may have seen it); their ``run_ranks`` gain
    the ranks the deeper cut reveals. Raises ``ValidationError``: ``frozen``, ``not_depth_pool``,
    ``bad_depth`` (not deeper than now).
    """
    pool = Pool.objects.select_for_update().get(pk=pool.pk)
    if pool.frozen:
        raise ValidationError("This pool is frozen: judging has started.", code="frozen")
    if pool.strategy != "depth":
        raise ValidationError("Only depth pools can be deepened.", code="not_depth_pool")
    _check_positive(depth, name="depth", required=True)
    params = dict(pool.parameters)
    if depth <= (params.get("depth") or 0):
        raise ValidationError(f"The pool already has depth {params.get('depth')}.", code="bad_depth")
    params["depth"] = depth
    runs = sorted(pool.runs.all(), key=lambda run: run.tag)
    pooled, fused, _samples = _compute(pool.collection, runs, params, progress=progress)
    existing = pool.pairs.values_list("pk", "topic__qid", "docno", "run_ranks", "judging_order")
    changed = []
    last = 0
    for pk, qid, docno, old_ranks, position in existing.iterator(chunk_size=_BATCH):
        last = max(last, position)
        ranks = pooled.get(qid, {}).pop(docno, None)
        if ranks is not None and ranks != old_ranks:
            changed.append((pk, ranks))
    _update_ranks(changed)
    new = {qid: list(docs) for qid, docs in pooled.items() if docs}
    judging = ordering.judging_order(new, order=params.get("order", "fused"), fused=fused,
                                     seed=params.get("seed", 0) + len(pool.parameters.get("deepened", [])) + 1)
    _persist_pairs(pool, judging, pooled, fused, start=last + 1)
    params["deepened"] = [*pool.parameters.get("deepened", []), {"from": pool.parameters.get("depth"), "to": depth}]
    pool.parameters = params
    pool.save(update_fields=["parameters"])
    return pool


@transaction.atomic
def pool_delete(*, pool: Pool) -> None:
    """Delete a pool and its pairs; refuses a frozen pool, whose pairs judgments point at."""
    if Pool.objects.filter(pk=pool.pk, frozen=True).exists() or pool.frozen:
        raise ValidationError("This pool is frozen: judging has started.", code="frozen")
    pool.delete()


@transaction.atomic
def pool_from_pairs(*, collection, name: str, source=None, qrels_set: QrelsSet | None = None, user=None) -> Pool:
    """Create a pool from a list of pairs: a file (``importers.pairs``) or an imported qrels set, for re-judging.

    The pool has strategy ``pairs`` and no runs; its judging order is the file's order column,
    else the file's order (a qrels set: by topic, then docno, as TREC qrels read). Already judged
    pairs are kept: listing a pair is asking for it to be judged. All-or-nothing: raises
    ``ImportFailed`` for a bad file (unknown topic, repeated pair, ...) and ``ValidationError``
    (``name_required``, ``name_taken``, ``bad_source``) otherwise.
    """
    name = (name or "").strip()
    if not name:
        raise ValidationError("A pool needs a name.", code="name_required")
    if (source is None) == (qrels_set is None):
        raise ValidationError("Give either a file of pairs or a qrels set.", code="bad_source")
    topics = dict(Topic.objects.filter(collection=collection).values_list("qid", "pk"))
    problems = ProblemList()
    if source is not None:
        opened = Source(source)
        try:
            listed = [(p.qid, p.docno) for p in parse_pairs(opened, topics=topics, problems=problems)]
        finally:
            opened.close()
        origin = {"source_name": opened.name[:200]}
    else:
        assert qrels_set is not None  # one of file and qrels_set, checked above
        if qrels_set.collection_id != collection.pk:
            raise ValidationError("The qrels set belongs to another collection.", code="bad_source")
        rows = list(qrels_set.entries.values_list("topic__qid", "docno"))
        numeric = all(qid.isascii() and qid.isdigit() for qid, _ in rows)
        listed = sorted(set(rows), key=lambda pair: (int(pair[0]) if numeric else 0, pair[0], pair[1]))
        origin = {"qrels_set": qrels_set.name}
    if Pool.objects.filter(collection=collection, name=name).exists():
        raise ValidationError(f"A pool named {name!r} already exists.", code="name_taken")
    problems.raise_if_any()
    if not listed:
        raise ValidationError("There are no pairs to pool.", code="empty_pool")
    pool = Pool.objects.create(collection=collection, name=name, strategy=Pool.Strategy.PAIRS,
                               parameters={"strategy": "pairs", **origin}, created_by=user)
    pooled: dict[str, dict[str, dict]] = {}
    for qid, docno in listed:
        pooled.setdefault(qid, {})[docno] = {}
    fused = {qid: dict.fromkeys(docnos) for qid, docnos in pooled.items()}
    _persist_pairs(pool, listed, pooled, fused, start=1)
    return pool
