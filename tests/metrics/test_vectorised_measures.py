"""The vectorised Rndcg, ndcg_rel, G and infAP equal trec_eval's per-rank loops on generated batches.

The loops (``*_loop``, ``_g_topic``) follow m_Rndcg.c, m_ndcg_rel.c, m_G.c and m_infap.c step
by step; the vectorised forms are what evaluation runs.
"""

from __future__ import annotations

import math

import pytest

from metrics.io import qrels_from_dict, run_from_dict
from metrics.measures import gain, trec
from metrics.measures.batch import make_batch, prepare_qrels
from tests.metrics._gen import make_case


def batches(seed: int):
    for i in range(12):
        qd, rd = make_case(seed * 100 + i, ties=i % 2 == 0, negative=i % 3 != 0, max_grade=1 + i % 4)
        qrels, run = qrels_from_dict(qd), run_from_dict(rd)
        qids = sorted(qrels.topics)
        for level in (0, 1, 2):
            yield make_batch(prepare_qrels(qrels), run, qids, level=level, max_docs=None if i % 3 else 5,
                             judged_only=i % 4 == 1)


def same(a, b) -> bool:
    return all((math.isnan(x) and math.isnan(y)) or abs(x - y) < 1e-12 for x, y in zip(a, b))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("params", [(), ((1, 0.5), (2, 3.0)), ((0, 1.0), (1, 0.0))])
def test_gain_measures_equal_their_loops(seed, params):
    for b in batches(seed):
        assert same(gain.rndcg(b, params)[0][1], gain.rndcg_loop(b, params)[0][1])
        assert same(gain.ndcg_rel(b, params)[0][1], gain.ndcg_rel_loop(b, params)[0][1])
        for t in range(len(b.qids)):
            gains = gain._g_gains(b.level_counts[t], params)
            row = b.rel[t, : int(b.num_ret[t])]
            assert abs(gain._g_vector(row, gains) - gain._g_topic(row.tolist(), gains)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_infap_equals_its_loop(seed):
    for b in batches(seed):
        assert same(trec.infap(b)[0][1], trec.infap_loop(b)[0][1])


def test_rndcg_is_nan_where_trec_eval_divides_zero_by_zero():
    # -l 0 and only grade-0 judgments: a relevant document but no positive ideal gain
    qrels, run = qrels_from_dict({"1": {"a": 0, "b": 0}}), run_from_dict({"1": {"a": 1.0}})
    b = make_batch(prepare_qrels(qrels), run, ["1"], level=0)
    assert math.isnan(gain.rndcg(b, ())[0][1][0]) and math.isnan(gain.rndcg_loop(b, ())[0][1][0])
