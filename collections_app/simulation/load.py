"""Load a collection's run rankings and one qrels set into the planner's plain inputs."""
from __future__ import annotations

from collections_app import runstore
from collections_app.models import Collection, QrelsEntry, QrelsSet, RunRanking, Topic


def planner_inputs(collection: Collection, qrels_set: QrelsSet, *, max_depth: int):
    """Return (rankings ``{qid: {tag: docnos}}``, qrels ``{qid: {docno: grade}}``, queries ``{qid: title}``).

    Rankings are cut at ``max_depth`` except that full rankings are kept for scoring: the
    planner judges only the top ``max_depth`` but MAP is computed on whole runs.
    """
    qrels: dict[str, dict[str, int]] = {}
    rows = QrelsEntry.objects.filter(qrels_set=qrels_set).values_list("topic__qid", "docno", "grade")
    for qid, docno, grade in rows.iterator(chunk_size=5000):
        qrels.setdefault(qid, {})[docno] = grade
    rankings: dict[str, dict[str, list[str]]] = {}
    blobs = (RunRanking.objects.filter(run__collection=collection, topic__qid__in=list(qrels))
             .values_list("topic__qid", "run__tag", "docnos"))
    for qid, tag, blob in blobs.iterator(chunk_size=200):
        rankings.setdefault(qid, {})[tag] = runstore.unpack_docnos(blob)
    queries = dict(Topic.objects.filter(collection=collection, qid__in=list(qrels)).values_list("qid", "title"))
    return rankings, qrels, queries


def document_texts(collection: Collection, docnos: set[str]) -> dict[str, str]:
    """Return ``{docno: title + text}`` for the given documents (CAL's features)."""
    rows = collection.documents.filter(docno__in=list(docnos)).values_list("docno", "title", "text")
    return {d: f"{t}\n{x}" for d, t, x in rows.iterator(chunk_size=2000)}
