"""Import topics, documents, runs and qrels into a collection, all-or-nothing.

The CLI, the web upload and the API all call these functions. Each parses and
validates every input first, then writes inside one transaction, so a failed import
changes nothing. Problems name file, line and what is wrong (``ImportFailed``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import transaction

from collections_app.importers.documents import parse_documents
from collections_app.importers.errors import ImportFailed, ImportProblem, ProblemList
from collections_app.importers.qrels import parse_qrels
from collections_app.importers.runs import ParsedRun, parse_run
from collections_app.importers.sources import Source
from collections_app.importers.summary import ImportSummary
from collections_app.importers.topics import parse_topics
from collections_app.models import Collection, Document, QrelsEntry, QrelsSet, Run, RunRanking, Topic
from collections_app.scales import scale_grades

BATCH = 1000
Progress = Callable[..., None] | None


def topics_import(*, collection: Collection, source, format: str | None = None, progress: Progress = None) -> ImportSummary:
    """Add the topics of one file; a qid already in the collection or repeated in the file is refused."""
    problems = ProblemList()
    opened = Source(source)
    try:
        topics = parse_topics(opened, format=format, problems=problems)
        existing = set(collection.topics.values_list("qid", flat=True))
        for topic in topics:
            if topic.qid in existing:
                problems.add(opened.name, topic.line, f"topic {topic.qid!r} already exists in the collection",
                             code="duplicate_topic")
        problems.raise_if_any()
    finally:
        opened.close()
    with transaction.atomic():
        Topic.objects.bulk_create(
            [Topic(collection=collection, qid=t.qid, title=t.title, description=t.description,
                   narrative=t.narrative, metadata=t.metadata) for t in topics],
            batch_size=BATCH,
        )
    if progress is not None:
        progress(len(topics), len(topics))
    return ImportSummary(kind="topics", created=len(topics), lines=len(topics))


def documents_import(*, collection: Collection, source, format: str | None = None, progress: Progress = None,
                     replace: bool = False) -> ImportSummary:
    """Add the documents of one file, streamed and written in batches inside one transaction.

    A docno repeated in the file is always refused. A docno the collection already has
    is refused (code "duplicate_document") unless ``replace=True``, which updates that
    document's title, text, url and metadata in place (pool pairs keep pointing at it).
    """
    problems = ProblemList()
    opened = Source(source)
    total = opened.size
    created = replaced = 0
    try:
        with transaction.atomic():
            existing = dict(collection.documents.values_list("docno", "id"))
            seen: dict[str, int] = {}
            new: list[Document] = []
            updates: list[Document] = []
            for doc in parse_documents(opened, format=format, problems=problems):
                if doc.docno in seen:
                    problems.add(opened.name, doc.line, f"docno {doc.docno!r} appears again (first on line "
                                 f"{seen[doc.docno]})", code="duplicate_document")
                    continue
                seen[doc.docno] = doc.line
                fields = dict(title=doc.title, text=doc.text, url=doc.url, metadata=doc.metadata)
                if doc.docno in existing:
                    if not replace:
                        problems.add(opened.name, doc.line, f"docno {doc.docno!r} is already in the collection "
                                     "(ask to replace to update it)", code="duplicate_document")
                        continue
                    updates.append(Document(id=existing[doc.docno], collection=collection, docno=doc.docno, **fields))
                else:
                    new.append(Document(collection=collection, docno=doc.docno, **fields))
                if problems:
                    new.clear()
                    updates.clear()
                if len(new) >= BATCH:
                    Document.objects.bulk_create(new)
                    created += len(new)
                    new.clear()
                    if progress is not None:
                        progress(opened.consumed, total)
                if len(updates) >= BATCH:
                    Document.objects.bulk_update(updates, ["title", "text", "url", "metadata"])
                    replaced += len(updates)
                    updates.clear()
            if not problems and not seen:
                problems.add(opened.name, None, "the file has no documents", code="empty_file")
            problems.raise_if_any()  # rolls back any batch already written
            Document.objects.bulk_create(new)
            Document.objects.bulk_update(updates, ["title", "text", "url", "metadata"])
            created += len(new)
            replaced += len(updates)
    finally:
        opened.close()
    if progress is not None:
        progress(total or 0, total)
    return ImportSummary(kind="documents", created=created, replaced=replaced, lines=len(seen))


def runs_import(*, collection: Collection, sources: list, replace: bool = False, group: str = "",
                description: str = "", user=None, progress: Progress = None) -> ImportSummary:
    """Import one or more run files as one action: every file is valid, or nothing is stored.

    Each file must hold exactly one tag, and two files may not share a tag. A tag the
    collection already has is refused (code "duplicate_run") unless ``replace=True``,
    which swaps that run's rankings for the new ones in the same transaction.
    Docnos missing from the collection are counted per run and reported as warnings.

    Steps: open every source, parse each file (problems are collected, not raised, so one
    upload reports every bad file), check the tags across files and against the collection,
    then store everything in one transaction.
    """
    problems = ProblemList()
    opened = _open_all(sources)
    parsed = _runs_parse(collection=collection, opened=opened, problems=problems, progress=progress)
    if not opened:
        problems.add("(upload)", None, "no run file was given", code="empty_upload")
    existing = _runs_check_tags(collection=collection, parsed=parsed, replace=replace, problems=problems)
    problems.raise_if_any()
    warnings = [f"run {run.tag}: {unknown} docnos not in the collection" for run, unknown in parsed if unknown]
    _runs_store(collection=collection, parsed=parsed, existing=existing,
                fields={"description": description, "group": group, "uploaded_by": user})
    replaced = sum(1 for run, _ in parsed if run.tag in existing)
    return ImportSummary(kind="runs", created=len(parsed) - replaced, replaced=replaced,
                         lines=sum(run.lines for run, _ in parsed), warnings=warnings,
                         details={"tags": [run.tag for run, _ in parsed]})


def _open_all(sources) -> list[Source]:
    """Open every source, closing those already open if one cannot be opened."""
    opened: list[Source] = []
    try:
        for source in _as_list(sources):
            opened.append(Source(source))
    except ImportFailed:
        for source in opened:
            source.close()
        raise
    return opened


def _runs_parse(*, collection: Collection, opened: list[Source], problems: ProblemList,
                progress: Progress) -> list[tuple[ParsedRun, int]]:
    """Parse each opened run file (closing them all); return (run, docnos not in the collection) per valid file.

    A file's problems go to ``problems``; its run is left out. Each run's docnos are dropped
    once counted against the collection, so only the packed rankings stay in memory.
    """
    topics = {qid.encode(): pk for qid, pk in collection.topics.values_list("qid", "id")}
    total = sum(s.size for s in opened) if all(s.size is not None for s in opened) else None
    # Bytes, because parsers keep docnos as bytes; loaded once so each run's docnos can be dropped after counting.
    known = {docno.encode() for docno in collection.documents.values_list("docno", flat=True).iterator()}
    parsed: list[tuple[ParsedRun, int]] = []
    done = 0
    try:
        for source in opened:
            def tick(consumed: int, _base=done) -> None:
                if progress is not None:
                    progress(_base + consumed, total)

            try:
                run = parse_run(source, topics=topics, problems=problems, progress=tick)
            except ImportFailed as exc:
                for problem in exc.problems:
                    problems.add(problem.file, problem.line, problem.message, code=exc.code)
                run = None
            done += source.consumed
            if run is not None:
                unknown = (sum(1 for docno in run.docnos.tolist() if docno not in known)
                           if known else len(run.docnos))
                run.docnos = run.docnos[:0]
                parsed.append((run, unknown))
    finally:
        for source in opened:
            source.close()
    return parsed


def _runs_check_tags(*, collection: Collection, parsed: list[tuple[ParsedRun, int]], replace: bool,
                     problems: ProblemList) -> dict[str, Run]:
    """Report tags shared by two files, too long, or already in the collection (unless replacing).

    Returns the collection's existing runs with the uploaded tags, by tag (the rows a replace updates).
    """
    by_tag: dict[str, str] = {}
    for run, _ in parsed:
        if run.tag in by_tag:
            problems.add(run.source_name, None, f"tag {run.tag!r} is also the tag of {by_tag[run.tag]}; "
                         "each file must hold a different run", code="duplicate_run")
        by_tag.setdefault(run.tag, run.source_name)
        if len(run.tag) > Run._meta.get_field("tag").max_length:  # type: ignore[operator]  # a CharField always has a max_length
            problems.add(run.source_name, None, f"tag {run.tag[:40]!r}... is too long")
    existing = {r.tag: r for r in collection.runs.filter(tag__in=list(by_tag))}
    if existing and not replace:
        for run, _ in parsed:
            if run.tag in existing:
                problems.add(run.source_name, None, f"run {run.tag!r} already exists (ask to replace it)",
                             code="duplicate_run")
    return existing


@transaction.atomic
def _runs_store(*, collection: Collection, parsed: list[tuple[ParsedRun, int]], existing: dict[str, Run],
                fields: dict) -> None:
    """Write the runs and their rankings in one transaction; an existing tag's rankings are swapped in place."""
    to_store: list[tuple[Run, ParsedRun]] = []
    for run, unknown in parsed:
        values = dict(fields, source_name=run.source_name[:500], checksum=run.checksum, num_topics=run.num_topics,
                      num_lines=run.lines, num_unknown_docnos=unknown)
        row = existing.get(run.tag)
        if row is not None:
            row.rankings.all().delete()
            for key, value in values.items():
                setattr(row, key, value)
            row.save()
        else:
            row = Run.objects.create(collection=collection, tag=run.tag, **values)
        to_store.append((row, run))
    batch: list[RunRanking] = []
    for row, run in to_store:
        for ranking in run.rankings:
            batch.append(RunRanking(run=row, topic_id=ranking.topic_id, length=ranking.length,
                                    docnos=ranking.docnos, scores=ranking.scores))
            if len(batch) >= BATCH:
                RunRanking.objects.bulk_create(batch)
                batch.clear()
        run.rankings = []  # let the packed bytes go as soon as they are written
    RunRanking.objects.bulk_create(batch)


def qrels_import(*, collection: Collection, source, name: str | None = None, user=None,
                 progress: Progress = None, allow_off_scale: bool = False) -> ImportSummary:
    """Import a TREC qrels file as a named set of judgments (name defaults to the file name).

    Grades outside the collection's scale are refused (code "off_scale_grade") unless
    ``allow_off_scale=True``.
    """
    problems = ProblemList()
    topics = dict(collection.topics.values_list("qid", "id"))
    opened = Source(source)
    try:
        entries, lines = parse_qrels(opened, topics=topics, problems=problems,
                                     progress=None if progress is None else (lambda done: progress(done, opened.size)),
                                     scale=scale_grades(collection.scale) or None, allow_off_scale=allow_off_scale)
        checksum = opened.checksum()
    finally:
        opened.close()
    set_name = (name or opened.name)[:200]
    if collection.qrels_sets.filter(name=set_name).exists():
        problems.add(opened.name, None, f"qrels {set_name!r} already exist in the collection", code="duplicate_qrels")
    problems.raise_if_any()
    with transaction.atomic():
        qrels_set = QrelsSet.objects.create(collection=collection, name=set_name, source_name=opened.name[:500],
                                            checksum=checksum, imported_by=user, num_judgments=len(entries))
        QrelsEntry.objects.bulk_create(
            [QrelsEntry(qrels_set=qrels_set, topic_id=e.topic_id, docno=e.docno, iteration=e.iteration[:50],
                        grade=e.grade) for e in entries],
            batch_size=BATCH * 5,
        )
    return ImportSummary(kind="qrels", created=len(entries), lines=lines, details={"name": set_name})


def _as_list(sources) -> list:
    if isinstance(sources, (list, tuple)):
        return list(sources)
    if isinstance(sources, Iterable) and not isinstance(sources, (str, bytes)) and not hasattr(sources, "read"):
        return list(sources)
    return [sources]


__all__ = ["ImportFailed", "ImportProblem", "ImportSummary", "documents_import", "qrels_import", "runs_import",
           "topics_import"]
