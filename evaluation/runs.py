"""Load a collection's stored runs as metrics Runs in one query."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from collections_app.models import Collection, Run, RunRanking
from collections_app.runstore import unpack_docnos, unpack_scores
from metrics import Run as MetricsRun
from metrics.io import VOCABULARY


def collection_runs(collection: Collection, *, tags: Sequence[str] | None = None, depth: int | None = None) -> list[MetricsRun]:
    """Return the collection's runs (all, or those tagged ``tags``) in tag order, as metrics Runs.

    One query reads every ranking; docnos and scores are unpacked from their blobs. The Runs are
    built directly from the stored, already validated rankings (one topic per ranking, no duplicate
    docnos: the importer refused those), skipping ``run_from_arrays``' per-line copies and checks,
    which dominated loading 100 runs × 50 topics × 1,000 documents.
    With ``depth`` only the top ``depth`` documents of each ranking are kept (they are stored in rank order).
    Runs without rankings are returned empty so every run appears on the leaderboard.
    """
    run_rows = Run.objects.filter(collection=collection)
    if tags is not None:
        run_rows = run_rows.filter(tag__in=list(tags))
    all_tags = sorted(run_rows.values_list("tag", flat=True))
    parts: dict[str, tuple[list, list, list, list]] = {tag: ([], [0], [], []) for tag in all_tags}
    rankings = RunRanking.objects.filter(run__collection=collection, run__tag__in=all_tags).order_by(
        "run__tag", "topic__qid").values_list("run__tag", "topic__qid", "docnos", "scores")
    for tag, qid, docno_blob, score_blob in rankings.iterator(chunk_size=2000):
        docnos = unpack_docnos(docno_blob)
        scores = unpack_scores(score_blob)
        if depth is not None:
            docnos, scores = docnos[:depth], scores[:depth]
        qids, offsets, dlist, slist = parts[tag]
        qids.append(qid)
        offsets.append(offsets[-1] + len(docnos))
        dlist.extend(docnos)
        slist.append(scores)
    return [MetricsRun(qids, offsets, VOCABULARY.encode(d), np.concatenate(s) if s else np.empty(0), tag=tag)
            for tag, (qids, offsets, d, s) in parts.items()]


def collection_rankings(collection: Collection, *, tags: Sequence[str] | None = None,
                        qids: Sequence[str] | None = None) -> dict[str, dict[str, list[str]]]:
    """Return ``{tag: {qid: [docno, ...]}}`` (trec_eval order, rank 1 first) in one query; every run appears.

    ``qids`` limits the topics read (the sampled-pool estimators only need the prels' topics).
    """
    run_rows = Run.objects.filter(collection=collection)
    if tags is not None:
        run_rows = run_rows.filter(tag__in=list(tags))
    out: dict[str, dict[str, list[str]]] = {tag: {} for tag in sorted(run_rows.values_list("tag", flat=True))}
    rankings = RunRanking.objects.filter(run__collection=collection, run__tag__in=list(out))
    if qids is not None:
        rankings = rankings.filter(topic__qid__in=list(qids))
    for tag, qid, blob in rankings.values_list("run__tag", "topic__qid", "docnos").iterator(chunk_size=2000):
        out[tag][qid] = unpack_docnos(blob)
    return out
