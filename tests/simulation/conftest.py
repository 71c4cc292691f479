"""Planner fixtures: the tiny hand-made case (pure) and the same case stored in a collection."""
from __future__ import annotations

import numpy as np
import pytest

from collections_app import runstore
from collections_app.models import Document, QrelsEntry, QrelsSet, Run, RunRanking, Topic

# Two runs, two topics. Relevant (grade >= 1): d1, d6, d9 (never retrieved) in topic 1; z in topic 2.
RANKINGS = {"1": {"A": ["d1", "d2", "d3", "d4"], "B": ["d3", "d5", "d1", "d6"]},
            "2": {"A": ["x", "y"], "B": ["y", "z"]}}
QRELS = {"1": {"d1": 1, "d3": 0, "d6": 1, "d9": 1}, "2": {"z": 2, "x": 0}}


def generated_case(seed: int, *, topics: int = 6, runs: int = 5, docs: int = 80):
    """Return (rankings, qrels): runs of varied noise over documents whose index predicts relevance."""
    rng = np.random.default_rng(seed)
    rankings, qrels = {}, {}
    for t in range(topics):
        q = f"t{t}"
        qrels[q] = {f"{q}d{i}": int(rng.random() < 0.5 * np.exp(-i / 20)) * int(rng.integers(1, 3))
                    for i in range(docs)}
        rankings[q] = {}
        for r in range(runs):
            noisy = np.arange(docs) + rng.normal(0, 3 + 12 * r, docs)
            rankings[q][f"run{r}"] = [f"{q}d{i}" for i in np.argsort(noisy, kind="stable")[:50]]
    return rankings, qrels


def store_case(collection, rankings=RANKINGS, qrels=QRELS, *, name: str = "complete") -> QrelsSet:
    """Store rankings as runs and qrels as an imported set of ``collection``."""
    topics = {q: Topic.objects.create(collection=collection, qid=q, title=f"topic {q} <b>") for q in rankings}
    docnos = {d for topic in rankings.values() for r in topic.values() for d in r}
    Document.objects.bulk_create(Document(collection=collection, docno=d, text=f"text of {d}") for d in sorted(docnos))
    tags = sorted({tag for topic in rankings.values() for tag in topic})
    for tag in tags:
        run = Run.objects.create(collection=collection, tag=tag, checksum="0" * 64)
        for q, topic in rankings.items():
            ranked = topic[tag]
            blob, scores = runstore.pack(np.array([d.encode() for d in ranked], dtype=object),
                                         np.arange(len(ranked), 0, -1, dtype=float))
            RunRanking.objects.create(run=run, topic=topics[q], length=len(ranked), docnos=blob, scores=scores)
    qrels_set = QrelsSet.objects.create(collection=collection, name=name, checksum="0" * 64,
                                        num_judgments=sum(len(g) for g in qrels.values()))
    QrelsEntry.objects.bulk_create(QrelsEntry(qrels_set=qrels_set, topic=topics[q], docno=d, grade=g)
                                   for q, grades in qrels.items() for d, g in grades.items())
    return qrels_set


@pytest.fixture
def stored(collection):
    """The hand-made case stored in ``collection`` with qrels set ``complete``."""
    store_case(collection)
    return collection
