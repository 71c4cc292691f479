"""Import per-assessor judgments made elsewhere (a crowd platform, an earlier round, a public data set).

One service for the command (``manage.py import_judgments``), the lead's upload page and
the API. The file is parsed and checked against the database first (``ImportFailed`` with
``file:line: problem`` and nothing written), then everything is written with bulk inserts in
one transaction — 100k labels take seconds, not one ``judgment_submit`` per row.

What an imported campaign is (``Campaign.origin == "imported"``):

- Its pool is the set of pairs the file labels (strategy ``pairs``, frozen), in order of first
  appearance; a later import into the same campaign appends the new pairs. Pairs whose docno
  the collection lacks are kept (as in a run-built pool) and counted in a warning.
- Its assessors are external workers (``Assessor.Kind.IMPORTED``) named by the ``assessor``
  column; they have no account and cannot log in.
- Repeated rows of one (pair, assessor) are revisions in file order: the first row makes the
  judgment (its timestamp is ``created_at``), each later row that changes the label adds a
  ``JudgmentRevision`` (history kept, as for a native resubmit) and the last row is final.
- Unknown stays unknown: ``seconds`` missing on any row of a judgment leaves its
  ``active_seconds`` null (no "too fast" flags, no throughput from load time).
- Each item requires exactly the judgments observed (``required_judgments ==
  judgment_count``), so nothing reads as unfinished until the lead asks for more.
- A ``gold`` value makes the pair a gold item with that expected label (left out of the final
  labels like native gold; it feeds gold-weighted votes and Dawid–Skene).
- The campaign is created *finished*: nobody is waiting to judge it. A lead may reopen it and
  send items to more (expert) assessors like any campaign.

Adding to an existing campaign: it must be an imported one, and a (pair, assessor) the
campaign already holds is refused (``duplicate_judgment``): loading the same file twice
would otherwise double every label's history.
"""
from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable

from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.judgments import JudgmentRow, parse_judgments
from collections_app.importers.sources import Source
from collections_app.importers.summary import ImportSummary
from collections_app.models import Collection, Document, Pool, PoolPair
from judging.models import Assessor, Campaign, Item, Judgment, JudgmentRevision

BATCH = 2000
LOOKUP_BATCH = 5000
Progress = Callable[..., None] | None


def judgments_import(*, collection: Collection, source, campaign_name: str, user=None, format: str | None = None,
                     progress: Progress = None) -> ImportSummary:
    """Import a file of per-assessor labels into the imported campaign ``campaign_name`` (created if new).

    Raises ``ImportFailed`` (codes ``bad_header``, ``bad_grade``, ``unknown_topic``,
    ``duplicate_judgment``, ``native_campaign``, ``empty_file``, ...) and writes nothing then.
    """
    problems = ProblemList()
    topics = dict(collection.topics.values_list("qid", "id"))
    opened = Source(source)
    try:
        rows = parse_judgments(opened, topics=topics, grades=collection.grades, problems=problems, format=format)
    finally:
        opened.close()
    name = (campaign_name or "").strip()
    if not name:
        problems.add(opened.name, None, "a campaign name is required", code="bad_name")
    elif len(name) > (Campaign._meta.get_field("name").max_length or 0):
        problems.add(opened.name, None, "the campaign name is longer than 200 characters", code="bad_name")
    campaign = Campaign.objects.filter(collection=collection, name=name).first() if name else None
    if campaign is not None and campaign.origin != Campaign.Origin.IMPORTED:
        problems.add(opened.name, None, f"campaign {name!r} is judged here, not imported; import into a new "
                     "campaign name", code="native_campaign")
    problems.raise_if_any()
    if progress is not None:
        progress(0, len(rows))
    try:
        with transaction.atomic():
            if campaign is not None:
                # Lock the campaign first, so a second import into it waits and then sees what this one wrote.
                Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
            existing = _Existing.load(campaign)
            _check_against_database(opened.name, rows, existing, problems)
            problems.raise_if_any()  # inside the transaction, before any write: nothing to undo
            campaign, counts = _write(collection=collection, campaign=campaign, name=name, user=user, rows=rows,
                                      existing=existing, source_name=opened.name)
    except IntegrityError:
        # Two uploads creating the same new campaign at once: the loser's transaction rolled back whole.
        raise fail(opened.name, None, f"another import into campaign {name!r} ran at the same time; nothing was "
                   "imported from this file, import it again", code="concurrent_import") from None
    if progress is not None:
        progress(len(rows), len(rows))
    warnings = []
    if counts["unknown_docnos"]:
        warnings.append(f"{counts['unknown_docnos']} pairs name docnos the collection lacks (kept, shown without text)")
    return ImportSummary(
        kind="judgments", created=counts["judgments"], lines=len(rows), warnings=warnings,
        details={"campaign_id": campaign.pk, "campaign": campaign.name, "revisions": counts["revisions"],
                 "new_pairs": counts["pairs"], "new_assessors": counts["assessors"]},
    )


class _Existing:
    """What an imported campaign already holds, keyed the way the file names things."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[int, str], int] = {}
        self.items: dict[int, tuple[int, bool, int | None]] = {}  # pair id -> (item id, is_gold, gold grade)
        self.assessors: dict[str, int] = {}
        self.judged: set[tuple[int, int]] = set()  # (pair id, assessor id)

    @classmethod
    def load(cls, campaign: Campaign | None) -> _Existing:
        found = cls()
        if campaign is None:
            return found
        found.pairs = {(t, d): pk for pk, t, d in PoolPair.objects.filter(pool=campaign.pool)
                       .values_list("pk", "topic_id", "docno")}
        found.items = {pair: (pk, gold, grade) for pk, pair, gold, grade in Item.objects.filter(campaign=campaign)
                       .values_list("pk", "pair_id", "is_gold", "gold_grade")}
        found.assessors = dict(Assessor.objects.filter(campaign=campaign, kind=Assessor.Kind.IMPORTED)
                               .values_list("worker_id", "pk"))
        found.judged = set(Judgment.objects.filter(item__campaign=campaign).values_list("item__pair_id", "assessor_id"))
        return found


def _check_against_database(name: str, rows: list[JudgmentRow], existing: _Existing, problems: ProblemList) -> None:
    """Refuse conflicting gold labels and (pair, assessor) judgments the campaign already holds."""
    gold: dict[tuple[int, str], tuple[int, int]] = {}
    for row in rows:
        key = (row.topic_id, row.docno)
        pair_id = existing.pairs.get(key)
        if row.gold is not None:
            first = gold.setdefault(key, (row.gold, row.line))
            if first[0] != row.gold:
                problems.add(name, row.line, f"gold label {row.gold} differs from {first[0]} on line {first[1]}",
                             code="bad_grade")
            elif pair_id is not None and pair_id in existing.items and existing.items[pair_id][2] != row.gold:
                problems.add(name, row.line, "the campaign already holds this pair with another gold label",
                             code="bad_grade")
        if pair_id is not None:
            assessor_id = existing.assessors.get(row.assessor)
            if assessor_id is not None and (pair_id, assessor_id) in existing.judged:
                problems.add(name, row.line, f"assessor {row.assessor!r} already has a judgment of this pair in the "
                             "campaign (was the file imported before?)", code="duplicate_judgment")


def _write(*, collection: Collection, campaign: Campaign | None, name: str, user, rows: list[JudgmentRow],
           existing: _Existing, source_name: str) -> tuple[Campaign, dict[str, int]]:
    now = timezone.now()
    if campaign is None:
        pool = Pool.objects.create(
            collection=collection, name=_free_pool_name(collection, f"{name} · imported"), strategy=Pool.Strategy.PAIRS,
            parameters={"imported_judgments": source_name[:200]}, created_by=user, frozen=True,
        )
        campaign = Campaign.objects.create(
            collection=collection, pool=pool, name=name, created_by=user, origin=Campaign.Origin.IMPORTED,
            status=Campaign.Status.FINISHED,
        )
    else:
        pool = campaign.pool

    # Pairs, in order of first appearance.
    new_keys = list(dict.fromkeys((r.topic_id, r.docno) for r in rows if (r.topic_id, r.docno) not in existing.pairs))
    documents = _document_ids(collection, {docno for _, docno in new_keys})
    start = PoolPair.objects.filter(pool=pool).aggregate(n=Max("judging_order"))["n"] or 0
    _insert_rows(PoolPair, [
        {"pool_id": pool.pk, "topic_id": t, "docno": d, "document_id": documents.get(d), "judging_order": start + i,
         "best_rank": 0, "run_ranks": {}} for i, (t, d) in enumerate(new_keys, start=1)])
    pair_ids = {(t, d): pk for pk, t, d in PoolPair.objects.filter(pool=pool).values_list("pk", "topic_id", "docno")}

    # Assessors: external workers, by name (few; bulk_create gives each its own session key).
    new_names = list(dict.fromkeys(r.assessor for r in rows if r.assessor not in existing.assessors))
    Assessor.objects.bulk_create([Assessor(campaign=campaign, kind=Assessor.Kind.IMPORTED, worker_id=n)
                                  for n in new_names], batch_size=BATCH)
    assessor_ids = dict(Assessor.objects.filter(campaign=campaign, kind=Assessor.Kind.IMPORTED)
                        .values_list("worker_id", "pk"))

    # Group the rows into judgments: (pair, assessor) -> rows in file order.
    groups: dict[tuple[int, int], list[JudgmentRow]] = {}
    for row in rows:
        groups.setdefault((pair_ids[(row.topic_id, row.docno)], assessor_ids[row.assessor]), []).append(row)
    per_pair = Counter(pair for pair, _ in groups)
    gold = {pair_ids[(r.topic_id, r.docno)]: r.gold for r in rows if r.gold is not None}

    # Items: a new pair's item requires exactly the judgments observed; an old one grows by the new judgments.
    last = Item.objects.filter(campaign=campaign).aggregate(n=Max("position"))["n"] or 0
    new_pairs = [pair_ids[key] for key in new_keys]
    _insert_rows(Item, [
        {"campaign_id": campaign.pk, "pair_id": pair, "position": last + i, "required_judgments": per_pair[pair],
         "judgment_count": per_pair[pair], "is_gold": pair in gold, "gold_grade": gold.get(pair)}
        for i, pair in enumerate(new_pairs, start=1)])
    grown = {existing.items[pair][0]: n for pair, n in per_pair.items() if pair in existing.items}
    if grown:
        changed = list(Item.objects.filter(pk__in=list(grown)))
        for item in changed:
            item.required_judgments += grown[item.pk]
            item.judgment_count += grown[item.pk]
        Item.objects.bulk_update(changed, ["required_judgments", "judgment_count"], batch_size=BATCH)
    item_ids = dict(Item.objects.filter(campaign=campaign).values_list("pair_id", "pk"))

    # Judgments (the first row of each group's time, the last row's label) and their revisions.
    judgments: list[dict] = []
    histories: dict[str, list[JudgmentRow]] = {}
    # Tokens that ascend within one import (and differ between imports) and rows in item order keep the
    # unique indexes' inserts sequential: random tokens made SQLite's inserts twice as slow.
    prefix = f"imported-{uuid.uuid4().hex[:16]}-"
    for number, ((pair, assessor), given) in enumerate(sorted(groups.items()), start=1):
        first, final = given[0], given[-1]
        seconds = None if any(r.seconds is None for r in given) else sum(r.seconds for r in given)
        revisions = sum(1 for before, after in zip(given, given[1:], strict=False) if before.grade != after.grade)
        token = f"{prefix}{number:09d}"
        judgments.append({
            "item_id": item_ids[pair], "assessor_id": assessor, "grade": final.grade, "skipped": False,
            "skip_reason": "", "comment": final.comment, "active_seconds": seconds, "client_token": token,
            "created_at": first.timestamp or now, "updated_at": final.timestamp or now, "revision_count": revisions,
        })
        if revisions:
            histories[token] = given
    _insert_rows(Judgment, judgments)
    tokens = list(histories)
    judgment_ids: dict[str, int] = {}
    for start in range(0, len(tokens), LOOKUP_BATCH):
        judgment_ids.update(Judgment.objects.filter(client_token__in=tokens[start:start + LOOKUP_BATCH])
                            .values_list("client_token", "pk"))
    history: list[dict] = []
    for token, given in histories.items():
        for before, after in zip(given, given[1:], strict=False):
            if before.grade == after.grade:
                continue
            history.append({
                "judgment_id": judgment_ids[token], "changed_by_id": assessor_ids[given[0].assessor],
                "changed_at": after.timestamp or now, "old_grade": before.grade, "new_grade": after.grade,
                "old_skipped": False, "new_skipped": False, "client_token": f"{token}-r{len(history) + 1}",
                "active_seconds": after.seconds,
            })
    _insert_rows(JudgmentRevision, history)
    unknown = sum(1 for _, docno in new_keys if docno not in documents)
    return campaign, {"judgments": len(judgments), "revisions": len(history), "pairs": len(new_keys),
                      "assessors": len(new_names), "unknown_docnos": unknown}


def _insert_rows(model, rows: list[dict]) -> None:
    """Insert rows (dicts of field name → value) with COPY (PostgreSQL) or executemany, bypassing model objects.

    ``bulk_create`` spends most of its time building and preparing model instances (about
    three quarters of a 100k-label import, measured); here each column gets one converter
    chosen once. Every concrete field is written — a field missing from a row gets its model
    default — so a field added to the model later cannot break the insert.
    """
    if not rows:
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    converters = []
    for field in fields:
        kind = field.get_internal_type()
        if kind == "DateTimeField":
            converters.append(connection.ops.adapt_datetimefield_value)
        elif kind == "JSONField":
            converters.append(lambda value, _field=field: _field.get_db_prep_save(value, connection))
        else:
            converters.append(None)  # type: ignore[arg-type]  # None: the value goes in as it is
    defaults = {f.attname: f.get_default() for f in fields}
    fresh = {f.attname: f.get_default for f in fields if callable(f.default)}  # e.g. a new token per row
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(f.column) for f in fields)
    names = [f.attname for f in fields]

    def prepared(batch: list[dict]):
        for row in batch:
            values = [row[name] if name in row else (fresh[name]() if name in fresh else defaults[name])
                      for name in names]
            for index, convert in enumerate(converters):
                if convert is not None and values[index] is not None:
                    values[index] = convert(values[index])
            yield values

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY streams the rows in one command; executemany would cost a round trip per row and
            # a multi-row INSERT makes psycopg re-parse a 20,000-placeholder query per batch.
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for values in prepared(rows):
                    copy.write_row(values)
            return
        sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
        for start in range(0, len(rows), BATCH):
            cursor.executemany(sql, list(prepared(rows[start:start + BATCH])))


def _document_ids(collection: Collection, docnos: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    wanted = sorted(docnos)
    for start in range(0, len(wanted), LOOKUP_BATCH):
        found.update(Document.objects.filter(collection=collection, docno__in=wanted[start:start + LOOKUP_BATCH])
                     .values_list("docno", "pk"))
    return found


def _free_pool_name(collection: Collection, wanted: str) -> str:
    taken = set(Pool.objects.filter(collection=collection, name__startswith=wanted[:190]).values_list("name", flat=True))
    name, number = wanted[:200], 2
    while name in taken:
        name = f"{wanted[:190]} ({number})"
        number += 1
    return name
