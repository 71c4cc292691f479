"""Small data for the web and API tests, made straight through the ORM.

Importers and pooling have their own tests; here we only need a collection with a
little of everything so each page and endpoint has something to show.
"""
from __future__ import annotations

import numpy as np

from collections_app import runstore
from collections_app.models import Collection, Document, Pool, PoolPair, QrelsEntry, QrelsSet, Run, RunRanking, Topic

RUN_LINES = "101 Q0 D1 1 3.0 bm25\n101 Q0 D2 2 2.0 bm25\n102 Q0 D3 1 1.0 bm25\n"
TOPICS_TSV = "101\tfirst topic\n102\tsecond topic\n"


def seed(collection: Collection) -> dict:
    """Add two topics, three documents, one run, a qrels set and a small pool."""
    t1 = Topic.objects.create(collection=collection, qid="101", title="first topic", description="about one")
    t2 = Topic.objects.create(collection=collection, qid="102", title="second topic")
    docs = [Document.objects.create(collection=collection, docno=f"D{i}", title=f"Doc {i}", text=f"text {i} <b>x</b>")
            for i in (1, 2, 3)]
    run = Run.objects.create(collection=collection, tag="bm25", group="g1", checksum="0" * 64, num_topics=2, num_lines=3)
    for topic, docnos, scores in ((t1, [b"D1", b"D2"], [3.0, 2.0]), (t2, [b"D3"], [1.0])):
        blob, score_blob = runstore.pack(np.array(docnos), np.array(scores))
        RunRanking.objects.create(run=run, topic=topic, length=len(docnos), docnos=blob, scores=score_blob)
    qrels = QrelsSet.objects.create(collection=collection, name="round1", checksum="1" * 64, num_judgments=1)
    QrelsEntry.objects.create(qrels_set=qrels, topic=t2, docno="D9", grade=1)
    pool = Pool.objects.create(collection=collection, name="p10", strategy=Pool.Strategy.DEPTH, parameters={"depth": 10})
    pool.runs.add(run)
    for order, (topic, doc) in enumerate(((t1, docs[0]), (t1, docs[1]), (t2, docs[2])), start=1):
        PoolPair.objects.create(pool=pool, topic=topic, docno=doc.docno, document=doc, judging_order=order,
                                best_rank=1, run_ranks={"bm25": 1})
    return {"topics": [t1, t2], "documents": docs, "run": run, "pool": pool, "qrels": qrels}


