"""Load a standard collection by its ``ir_datasets`` id: topics, documents and qrels, all-or-nothing.

``ir_datasets`` (https://ir-datasets.com) knows hundreds of test collections by id
(``cranfield``, ``msmarco-passage/trec-dl-2019/judged``, ...) and where their files live. It
downloads what it can into ``IR_DATASETS_HOME`` (default ``~/.ir_datasets``); data sets behind a
licence, or machines without internet, need the files put there by hand first (see
docs/formats.md). Anything registered through ``ir_datasets.registry.register`` works too —
the tests register a small data set from files they write.

Mapping, per record of the data set's iterators:

- queries → topics: ``query_id`` → qid; the title is the field named by ``topics_field``
  (default ``title`` when the queries have one, else ``text``); ``description`` and
  ``narrative`` fields fill theirs; other fields go to ``metadata``;
- docs → documents: ``doc_id`` → docno; ``title``; ``text`` (else ``body``); ``url``; other
  text fields go to ``metadata``. Streamed into the database in batches inside the
  transaction, so memory stays flat;
- qrels → one imported qrels set (``qrels_name``, default the data set id), ``relevance`` as
  the grade, ``iteration`` kept.

Problems name the data set, the part and the record number (``cranfield:queries:12: ...``);
any problem rolls everything back, as the file importers do. A qid or docno the collection
already has is refused, as is a repeated one.
"""
from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from collections_app.importers.errors import ProblemList, fail
from collections_app.importers.identifiers import identifier_problem
from collections_app.importers.pair_gate import PairGate
from collections_app.importers.summary import ImportSummary
from collections_app.models import Collection, Document, QrelsEntry, QrelsSet, Topic

BATCH = 2000
Progress = Callable[..., None] | None
_DOC_FIELDS = {"doc_id", "title", "text", "body", "url"}
_QUERY_FIELDS = {"query_id", "description", "narrative"}


def _load(dataset_id: str):
    """Return the ir_datasets data set for an id, or raise ImportFailed(code="unknown_dataset")."""
    try:
        import ir_datasets
    except ImportError:  # pragma: no cover - pinned in requirements.txt
        raise fail(dataset_id, None, "the ir_datasets package is not installed", code="unknown_dataset") from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise fail(dataset_id, None, "ir_datasets knows no data set with this id (see ir-datasets.com for the ids)",
                   code="unknown_dataset") from None


def _records(dataset_id: str, part: str, iterator_factory):
    """Iterate a data set part, turning download/read failures into a clear ImportFailed."""
    try:
        yield from iterator_factory()
    except Exception as exc:  # ir_datasets raises many kinds (IOError, requests errors, its own) when data is missing
        raise fail(f"{dataset_id}:{part}", None,
                   f"cannot read the data set's {part} ({type(exc).__name__}: {exc}); if this machine cannot download "
                   "it, put the files under IR_DATASETS_HOME as docs/formats.md explains",
                   code="unreadable_file") from None


def irds_import(*, collection: Collection, dataset_id: str, topics_field: str | None = None, qrels_name: str | None = None,
                docs: bool = True, user=None, progress: Progress = None) -> list[ImportSummary]:
    """Import a data set's topics, documents (unless ``docs=False``) and qrels in one transaction.

    Returns one summary per part imported. Raises ImportFailed (codes ``unknown_dataset``,
    ``duplicate_topic``, ``duplicate_document``, ``duplicate_qrels``, ``unknown_topic``,
    ``unreadable_file``, ...) and then nothing is changed.
    """
    dataset = _load(dataset_id)
    problems = ProblemList()
    summaries: list[ImportSummary] = []
    qrels_set_name = (qrels_name or dataset_id)[:200]
    if dataset.has_qrels() and collection.qrels_sets.filter(name=qrels_set_name).exists():
        problems.add(dataset_id, None, f"qrels {qrels_set_name!r} already exist in the collection (give another "
                     "--qrels-name)", code="duplicate_qrels")
    problems.raise_if_any()
    with transaction.atomic():
        topics = dict(collection.topics.values_list("qid", "id"))
        if dataset.has_queries():
            created = _import_queries(collection, dataset_id, dataset, topics_field, topics, problems)
            summaries.append(ImportSummary(kind="topics", created=created, lines=created))
        if docs and dataset.has_docs():
            created = _import_docs(collection, dataset_id, dataset, problems, progress)
            summaries.append(ImportSummary(kind="documents", created=created, lines=created))
        if dataset.has_qrels():
            topics = dict(collection.topics.values_list("qid", "id"))
            created = _import_qrels(collection, dataset_id, dataset, qrels_set_name, topics, problems, user)
            summaries.append(ImportSummary(kind="qrels", created=created, lines=created,
                                           details={"name": qrels_set_name}))
        if not summaries:
            problems.add(dataset_id, None, "the data set has no queries, documents or qrels to import",
                         code="empty_file")
        problems.raise_if_any()  # rolls back every batch already written
    return summaries


def _text(value) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _import_queries(collection, dataset_id, dataset, topics_field, existing: dict, problems: ProblemList) -> int:
    name = f"{dataset_id}:queries"
    fields = dataset.queries_cls()._fields
    field = topics_field or ("title" if "title" in fields else "text")
    if field not in fields:
        raise fail(name, None, f"the queries have no field {field!r} (fields: {', '.join(fields)})",
                   code="bad_format")
    rows: list[Topic] = []
    seen: dict[str, int] = {}
    for number, query in enumerate(_records(dataset_id, "queries", dataset.queries_iter), start=1):
        record = query._asdict()
        qid = _text(record["query_id"]).strip()
        reason = identifier_problem(qid, "qid")
        if reason:
            problems.add(name, number, reason)
            continue
        if qid in existing or qid in seen:
            where = "is already in the collection" if qid in existing else f"appears again (first at {seen[qid]})"
            problems.add(name, number, f"topic {qid!r} {where}", code="duplicate_topic")
            continue
        seen[qid] = number
        metadata = {k: _text(v) for k, v in record.items() if k not in _QUERY_FIELDS and k != field}
        rows.append(Topic(collection=collection, qid=qid, title=_text(record[field]),
                          description=_text(record.get("description")), narrative=_text(record.get("narrative")),
                          metadata=metadata))
    if not problems:
        Topic.objects.bulk_create(rows, batch_size=BATCH)
    return len(rows)


def _import_docs(collection, dataset_id, dataset, problems: ProblemList, progress: Progress) -> int:
    name = f"{dataset_id}:docs"
    existing = set(collection.documents.values_list("docno", flat=True))
    seen: set[str] = set()
    batch: list[Document] = []
    created = 0
    total = dataset.docs_count() if hasattr(dataset, "docs_count") else None
    for number, doc in enumerate(_records(dataset_id, "docs", dataset.docs_iter), start=1):
        record = doc._asdict()
        docno = _text(record["doc_id"])
        reason = identifier_problem(docno, "docno")
        if reason:
            problems.add(name, number, reason)
            continue
        if docno in existing or docno in seen:
            where = "is already in the collection" if docno in existing else "appears again"
            problems.add(name, number, f"docno {docno!r} {where}", code="duplicate_document")
            continue
        seen.add(docno)
        text = record.get("text", record.get("body"))
        metadata = {k: v for k, v in record.items() if k not in _DOC_FIELDS and isinstance(v, (str, int, float))}
        batch.append(Document(collection=collection, docno=docno, title=_text(record.get("title")), text=_text(text),
                              url=_text(record.get("url"))[:2000], metadata=metadata))
        if problems:
            batch.clear()  # the import will be refused: stop writing, keep collecting problems
        if len(batch) >= BATCH:
            Document.objects.bulk_create(batch)
            created += len(batch)
            batch.clear()
            if progress is not None:
                progress(number, total)
    if not problems:
        Document.objects.bulk_create(batch)
        created += len(batch)
    return created


def _import_qrels(collection, dataset_id, dataset, set_name, topics: dict, problems: ProblemList, user) -> int:
    name = f"{dataset_id}:qrels"
    entries: list[tuple[int, str, str, int]] = []
    gate = PairGate(name, topics=topics, problems=problems,
                    again="topic {qid!r} judges docno {docno!r} again (first at {first})", again_code="duplicate_judgment")
    for number, qrel in enumerate(_records(dataset_id, "qrels", dataset.qrels_iter), start=1):
        record = qrel._asdict()
        qid, docno = _text(record["query_id"]), _text(record["doc_id"])
        if not gate.admit(number, qid, docno):
            continue
        topic_id = topics[qid]
        try:
            grade = int(record["relevance"])
        except (TypeError, ValueError):
            problems.add(name, number, f"relevance {record['relevance']!r} is not an integer", code="bad_grade")
            continue
        entries.append((topic_id, _text(record.get("iteration", "0"))[:50] or "0", docno, grade))
    if problems:
        return 0
    qrels_set = QrelsSet.objects.create(collection=collection, name=set_name, source_name=f"ir_datasets:{dataset_id}"[:500],
                                        checksum="", imported_by=user, num_judgments=len(entries))
    QrelsEntry.objects.bulk_create(
        (QrelsEntry(qrels_set=qrels_set, topic_id=t, iteration=i, docno=d, grade=g) for t, i, d, g in entries),
        batch_size=BATCH * 5)
    return len(entries)
