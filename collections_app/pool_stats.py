"""Describe a saved pool: sizes per topic, what each run contributed, overlap, relevant found."""
from __future__ import annotations

import numpy as np

from collections_app.models import Pool, QrelsEntry
from collections_app.pooling.ordering import qid_key


def pool_stats(pool: Pool) -> dict:
    """Return the numbers a lead checks before judging (and, with imported qrels, after).

    ``topics``: pairs per topic and, when qrels exist for the collection, ``relevant_known``
    (pool pairs with an imported grade ``>= relevant_threshold``; the highest grade wins when
    qrels sets disagree) else None. ``runs``: ``contributed`` (pairs the run retrieved within the
    pool), ``unique`` (pairs no other contributing run retrieved) and ``relevant_known``.
    ``overlap``: ``{"tags": [...], "shared": [[n]], "jaccard": [[x]]}`` over the runs' pair sets.
    """
    rows = list(pool.pairs.values_list("topic__qid", "docno", "run_ranks"))
    tags = sorted(pool.runs.values_list("tag", flat=True))
    index = {tag: i for i, tag in enumerate(tags)}
    grades: dict[tuple[str, str], int] = {}
    qrels = QrelsEntry.objects.filter(qrels_set__collection=pool.collection)
    has_qrels = qrels.exists()
    if has_qrels:
        for qid, docno, grade in qrels.values_list("topic__qid", "docno", "grade").iterator(chunk_size=5000):
            grades[(qid, docno)] = max(grade, grades.get((qid, docno), grade))
    threshold = pool.collection.relevant_threshold

    incidence = np.zeros((len(rows), len(tags)), dtype=bool)
    relevant = np.zeros(len(rows), dtype=bool)
    per_topic: dict[str, list[int]] = {}
    for i, (qid, docno, ranks) in enumerate(rows):
        for tag in ranks:
            if tag in index:
                incidence[i, index[tag]] = True
        found = grades.get((qid, docno))
        relevant[i] = found is not None and found >= threshold
        topic_counts = per_topic.setdefault(qid, [0, 0])
        topic_counts[0] += 1
        topic_counts[1] += int(relevant[i])

    # float64 so the product goes through BLAS (an int64 matmul of 110k × 100 runs takes seconds);
    # counts stay far below 2**53, so the result is exact.
    counts = incidence.astype(np.float64)
    shared = np.rint(counts.T @ counts).astype(np.int64)
    sizes = np.diag(shared)
    union = sizes[:, None] + sizes[None, :] - shared
    jaccard = np.divide(shared, union, out=np.zeros(shared.shape, dtype=float), where=union > 0)
    alone = incidence.sum(axis=1) == 1
    unique = (incidence & alone[:, None]).sum(axis=0)
    relevant_by_run = (incidence & relevant[:, None]).sum(axis=0)
    return {
        "pool": pool.name,
        "strategy": pool.strategy,
        "parameters": pool.parameters,
        "pairs": len(rows),
        "has_qrels": has_qrels,
        "topics": [
            {"qid": qid, "pairs": n, "relevant_known": rel if has_qrels else None}
            for qid, (n, rel) in sorted(per_topic.items(), key=lambda item: qid_key(item[0]))
        ],
        "runs": [
            {
                "tag": tag, "contributed": int(sizes[i]), "unique": int(unique[i]),
                "relevant_known": int(relevant_by_run[i]) if has_qrels else None,
            }
            for i, tag in enumerate(tags)
        ],
        "overlap": {
            "tags": tags,
            "shared": shared.astype(int).tolist(),
            "jaccard": [[round(x, 4) for x in row] for row in jaccard.tolist()],
        },
    }
