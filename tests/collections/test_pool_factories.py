"""Factories for the pooling tests (no tests here): runs built from rows with runstore.pack, not the importers."""
import numpy as np

from collections_app import runstore
from collections_app.models import Document, QrelsEntry, QrelsSet, Run, RunRanking, Topic


def add_topics(collection, *qids):
    return {qid: Topic.objects.create(collection=collection, qid=qid, title=f"topic {qid}") for qid in qids}


def add_run(collection, tag, rankings, *, group=""):
    """Create a run; ``rankings`` is ``{qid: [(docno, score), ...]}`` in any order (stored in trec_eval order)."""
    run = Run.objects.create(collection=collection, tag=tag, group=group, checksum="0" * 64)
    for qid, lines in rankings.items():
        topic, _ = Topic.objects.get_or_create(collection=collection, qid=qid, defaults={"title": qid})
        docnos = np.array([d.encode() for d, _ in lines])
        scores = np.array([s for _, s in lines], dtype=float)
        order = runstore.trec_order(docnos, scores)
        blob, score_blob = runstore.pack(docnos[order], scores[order])
        RunRanking.objects.create(run=run, topic=topic, length=len(lines), docnos=blob, scores=score_blob)
    return run


def ranked(*docnos):
    """Return ``[(docno, score)]`` with strictly decreasing scores, first docno best."""
    return [(docno, float(len(docnos) - i)) for i, docno in enumerate(docnos)]


def add_documents(collection, *docnos):
    Document.objects.bulk_create([Document(collection=collection, docno=d, title=d) for d in docnos])


def add_qrels(collection, entries, name="old"):
    """``entries``: ``[(qid, docno, grade)]``."""
    qrels = QrelsSet.objects.create(collection=collection, name=name, checksum="0" * 64)
    for qid, docno, grade in entries:
        QrelsEntry.objects.create(qrels_set=qrels, topic=Topic.objects.get(collection=collection, qid=qid),
                                  docno=docno, grade=grade)
    return qrels


def bare_collection(slug="pools"):
    """A collection without members: pooling needs none, and skipping password hashing keeps tests fast."""
    from tests.conftest import make_collection

    return make_collection(slug)
