"""Live campaign labels and frozen versions as qrels sources; ranking stability between two assessors."""
from __future__ import annotations

import pytest
from django.urls import reverse
from scipy import stats

from collections_app.services.imports import runs_import
from evaluation.runs import collection_runs
from evaluation.selectors import stability
from evaluation.sources import QrelsCache, available_sources, parse_source
from judging.models import Assessor, Item
from judging.services.judgments import judgment_submit
from judging.services.qrels import final_labels, qrels_freeze
from metrics import evaluate, qrels_from_dict, run_from_dict
from tests.browser.factories import make_campaign, make_pool

pytestmark = pytest.mark.django_db

ALICE = [0, 1, 2, 3, 0, 3, 1, 2]  # positions 1–4 topic 401 (D1-1..4), 5–8 topic 402 (D2-1..4)
BOB = [0, 1, 2, 3, 3, 0, 2, 1]
RANKINGS = {
    "runA": {t: [f"D{t - 400}-{d}" for d in (1, 2, 3, 4)] for t in (401, 402)},
    "runB": {t: [f"D{t - 400}-{d}" for d in (4, 3, 2, 1)] for t in (401, 402)},
    "runC": {t: [f"D{t - 400}-{d}" for d in (2, 4, 1, 3)] for t in (401, 402)},
}


@pytest.fixture
def judged(collection, lead, alice, bob, tmp_path):
    campaign = make_campaign(collection, lead=lead, assessors=[alice, bob], overlap="replicate", judgments_per_pair=2,
                             pool=make_pool(collection, topics=2, docs_per_topic=4))
    for user, grades in ((alice, ALICE), (bob, BOB)):
        assessor = Assessor.objects.get(campaign=campaign, user=user)
        for position, grade in enumerate(grades, start=1):
            judgment_submit(assessor=assessor, item=Item.objects.get(campaign=campaign, position=position), grade=grade,
                            active_seconds=10.0, client_token=f"{user.username}-{position}")
    paths = []
    for tag, ranking in RANKINGS.items():
        path = tmp_path / f"{tag}.run"
        path.write_text("".join(f"{q} Q0 {d} {r} {10 - r} {tag}\n" for q, docs in ranking.items()
                                for r, d in enumerate(docs, 1)))
        paths.append(path)
    runs_import(collection=collection, sources=paths)
    return campaign


def labels_of(grades):
    return {str(400 + t): {f"D{t}-{d}": grades[(t - 1) * 4 + d - 1] for d in range(1, 5)} for t in (1, 2)}


def test_live_campaign_and_frozen_version_sources(judged, collection, lead):
    live = parse_source(collection, f"campaign:{judged.pk}:majority")
    live_dict = QrelsCache(collection).as_dict(live)
    want = {}
    for (qid, docno), grade in final_labels(campaign=judged, rule="majority").items():
        want.setdefault(qid, {})[docno] = grade
    assert live_dict == want and sum(len(v) for v in want.values()) == 8
    qrels_freeze(campaign=judged, rule="majority", description="v1", user=lead)
    assert available_sources(collection)[0].token == "version:1"
    assert parse_source(collection, None).token == "version:1"
    assert QrelsCache(collection).as_dict(parse_source(collection, "version:1")) == want


def test_sources_of_another_collection_are_refused(judged, collection, lead):
    from django.core.exceptions import ValidationError

    from tests.conftest import make_collection

    other = make_collection("other", lead=lead)
    with pytest.raises(ValidationError):
        parse_source(other, f"campaign:{judged.pk}:majority")
    with pytest.raises(ValidationError):
        parse_source(collection, f"campaign:{judged.pk}:no_such_rule")


def test_assessor_stability_equals_independent_computation(judged, collection):
    (comparison,) = stability(collection, campaign_id=judged.pk, measure="map")
    assert {comparison.label_a, comparison.label_b} == {"alice", "bob"}
    assert comparison.n_items == 8 and comparison.n_topics == 2
    grades = {"alice": ALICE, "bob": BOB}
    maps = {}
    for name in (comparison.label_a, comparison.label_b):
        qrels = qrels_from_dict(labels_of(grades[name]))
        maps[name] = {tag: evaluate(qrels, run_from_dict({q: {d: 10.0 - r for r, d in enumerate(ds, 1)}
                                                          for q, ds in ranking.items()}), ["map"], warn=False).aggregate["map"]
                      for tag, ranking in RANKINGS.items()}
    assert comparison.scores_a == pytest.approx(maps[comparison.label_a])
    assert comparison.scores_b == pytest.approx(maps[comparison.label_b])
    tags = sorted(RANKINGS)
    tau = stats.kendalltau([maps[comparison.label_a][t] for t in tags], [maps[comparison.label_b][t] for t in tags]).statistic
    assert comparison.tau == pytest.approx(tau)
    swapped = {tuple(sorted(p)) for p in comparison.swapped}
    a, b = maps[comparison.label_a], maps[comparison.label_b]
    assert swapped == {(x, y) for x in tags for y in tags if x < y and (a[x] - a[y]) * (b[x] - b[y]) < 0}


def test_stability_page_for_assessors_and_live_leaderboard(client, judged, collection, lead):
    client.force_login(lead)
    body = client.get(reverse("evaluation-stability", kwargs={"slug": collection.slug}) + f"?campaign={judged.pk}").content.decode()
    assert "alice vs bob" in body or "bob vs alice" in body
    assert "8 items judged by both" in body
    url = reverse("evaluation-leaderboard", kwargs={"slug": collection.slug}) + f"?source=campaign:{judged.pk}:majority"
    body = client.get(url).content.decode()
    assert body.count('<tr data-run="') == 3
    assert len(collection_runs(collection)) == 3
