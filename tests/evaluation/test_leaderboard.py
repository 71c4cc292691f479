"""Leaderboard services and page against metrics.evaluate on the same data, computed independently."""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import QrelsSet
from evaluation.leaderboard import MEASURE_NAMES, REQUESTS
from evaluation.runs import collection_runs
from evaluation.selectors import board, run_topics
from metrics import evaluate, qrels_from_dict, run_from_dict
from tests.evaluation.conftest import QRELS, RUNS

pytestmark = pytest.mark.django_db


def expected(tag, measures=REQUESTS):
    run = run_from_dict({q: {d: 100.0 - r for r, d in enumerate(docs, 1)} for q, docs in RUNS[tag].items()}, tag=tag)
    return evaluate(qrels_from_dict(QRELS), run, list(measures), relevance_level=1, warn=False)


def test_runs_load_in_rank_order(scored):
    runs = {r.tag: r for r in collection_runs(scored)}
    assert sorted(runs) == sorted(RUNS)
    for tag, ranking in RUNS.items():
        assert {q: list(d.tolist()) for q, (d, _) in runs[tag].topics.items()} == ranking


def test_leaderboard_equals_metrics_evaluate(scored):
    token = f"set:{QrelsSet.objects.get(collection=scored).pk}"
    result = board(scored, source=token)
    assert result.source.token == token
    assert len(result.rows) == 4
    for row in result.rows:
        want = expected(row.tag).aggregate
        for name in MEASURE_NAMES:
            assert row.scores[name] == pytest.approx(want[name], abs=1e-12), (row.tag, name)
    maps = [row.scores["map"] for row in result.rows]
    assert maps == sorted(maps, reverse=True)
    assert [row.rank for row in result.rows] == [1, 2, 3, 4]


def test_hand_computed_p10_and_judged(scored):
    # bm25 on 401: d1(2) d2(1) d3(0) d4(unjudged) → 2 relevant in top 10 → P@10 = 0.2, judged@10 = 3/10
    result = board(scored)
    topics = {t["qid"]: t["scores"] for t in run_topics(scored, "bm25")[1]}
    assert topics["401"]["P_10"] == pytest.approx(0.2)
    assert topics["401"]["judged_10"] == pytest.approx(0.3)
    assert result.rows  # the default source is the imported set


def test_sort_by_other_measure_ascending(scored):
    result = board(scored, sort="P_10", descending=False)
    values = [row.scores["P_10"] for row in result.rows]
    assert values == sorted(values)


def test_page_renders_for_members_sorted_and_escaped(client, scored, lead, alice, mallory):
    url = reverse("evaluation-leaderboard", kwargs={"slug": scored.slug})
    scored.assessors_see_systems = True  # assessors are blind to systems unless the lead opens them
    scored.save()
    for user in (lead, alice):
        client.force_login(user)
        response = client.get(url + "?sort=ndcg_cut_10")
        assert response.status_code == 200
        body = response.content.decode()
        assert 'id="leaderboard"' in body and "<svg" in body
        assert body.count('class="curve"') == 4
    client.force_login(mallory)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


def test_curves_are_metrics_iprec_and_svg_escapes_labels(scored):
    from evaluation.charts import pr_curves_svg

    result = board(scored)
    curves = dict(result.curves(["dense", "bm25", "nope"]))
    assert sorted(curves) == ["bm25", "dense"]
    want = expected("dense", ["iprec_at_recall"]).aggregate
    assert curves["dense"] == pytest.approx([want[f"iprec_at_recall_{k / 10:.2f}"] for k in range(11)])
    svg = pr_curves_svg([('<script>"x"</script>', [1.0] * 11)])
    assert "<script>" not in svg and "&lt;script&gt;&quot;x&quot;" in svg
    assert svg.count("<polyline") == 1


def test_scores_are_cached_until_runs_or_qrels_change(scored, tmp_path):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from collections_app.services.imports import runs_import
    from tests.evaluation.conftest import write_run

    first = {r.tag: r.scores for r in board(scored).rows}
    with CaptureQueriesContext(connection) as queries:
        again = {r.tag: r.scores for r in board(scored).rows}
    assert again == first
    assert not any("runranking" in q["sql"].lower() for q in queries.captured_queries)
    # replacing a run's file changes its checksum: scored afresh
    runs_import(collection=scored, sources=[write_run(tmp_path / "bm25.run", "bm25", {"401": ["d9", "d1"]})], replace=True)
    replaced = {r.tag: r.scores for r in board(scored).rows}
    assert replaced["bm25"]["map"] != first["bm25"]["map"]
    assert replaced["dense"] == first["dense"]
    # a new relevance threshold is a new key
    scored.relevant_threshold = 2
    scored.save(update_fields=["relevant_threshold"])
    assert {r.tag: r.scores for r in board(scored).rows}["bm25"]["P_10"] != replaced["bm25"]["P_10"]
