"""Human-in-the-loop ordering by model uncertainty, and ranking stability on human vs model qrels."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from judging.models import Assessor, Item
from judging.plan import CampaignPlan
from judging.services.allocation import item_next
from model_assessors.report import stability_report
from model_assessors.services.runs import run_start
from model_assessors.services.uncertainty import item_uncertainty, priorities_by_uncertainty, priorities_reset
from tests.model_assessors.fake_openai import default_label
from tests.model_assessors.helpers import human_judges

pytestmark = pytest.mark.django_db


def _uncertainty_by_docno(campaign):
    docno = dict(Item.objects.filter(campaign=campaign).values_list("pk", "pair__docno"))
    return {docno[pk]: value for pk, value in item_uncertainty(campaign).items()}


def test_humans_get_the_pairs_whose_label_probabilities_are_least_sure_first(make_judge, campaign, fake_llm, alice):
    fake_llm.labels.update({"T3-D2": 1, "T2-D5": 1})
    fake_llm.probabilities.update({"T3-D2": {1: 0.4, 2: 0.35, 0: 0.25}, "T2-D5": {1: 0.6, 0: 0.4}})
    run_start(judge=make_judge(request_logprobs=True))
    values = _uncertainty_by_docno(campaign)
    assert values["T3-D2"] == pytest.approx(0.6) and values["T2-D5"] == pytest.approx(0.4)
    assert values["T1-D1"] == pytest.approx(0.1)  # the server's default: 0.9 on the label
    assert priorities_by_uncertainty(campaign=campaign) == 20
    me = Assessor.objects.get(campaign=campaign, user=alice)
    first = item_next(assessor=me)
    assert first.pair.docno == "T3-D2"
    human_judges(campaign, alice, {"T3-D2": 1})
    assert item_next(assessor=me).pair.docno == "T2-D5"
    assert priorities_reset(campaign=campaign) == 19  # the most uncertain pair already had priority 0
    assert set(Item.objects.filter(campaign=campaign).values_list("priority", flat=True)) == {0}


def test_without_probabilities_two_judges_disagreeing_make_a_pair_uncertain(make_judge, campaign, fake_llm):
    fake_llm.model_labels.update({"fake-model": {"T4-D1": 0, "T4-D2": 1}, "second-model": {"T4-D1": 3, "T4-D2": 2}})
    fake_llm.scripts["T4-D3"] = ["garbage"]
    run_start(judge=make_judge("first"))
    run_start(judge=make_judge("second", model="second-model"))
    values = _uncertainty_by_docno(campaign)
    assert values["T4-D1"] == pytest.approx(1.0)  # 0 against 3 on a 0–3 scale
    assert values["T4-D2"] == pytest.approx(1 / 3)  # 1 against 2
    assert values["T4-D3"] == 1.0  # the first judge's answer did not parse: a human must look
    assert values["T1-D1"] == 0.0  # both judges agree


def test_ordering_by_uncertainty_is_refused_for_an_adaptive_campaign(make_judge, collection, pool, lead, alice):
    from judging.services.campaigns import campaign_create

    adaptive = campaign_create(collection=collection, pool=pool, name="adaptive", created_by=lead, assessors=[alice],
                               plan=CampaignPlan.of(order="mtf"))
    with pytest.raises(ValidationError) as refused:
        priorities_by_uncertainty(campaign=adaptive)
    assert refused.value.code == "adaptive_order"


def test_system_ranking_on_model_qrels_equals_the_human_one_when_the_labels_agree(
        make_judge, campaign, collection, alice, tmp_path):
    from collections_app.services.imports import runs_import

    for tag, order in {"r-good": [1, 2, 3, 4, 5], "r-mid": [3, 1, 5, 2, 4], "r-bad": [5, 4, 3, 2, 1]}.items():
        lines = [f"40{t} Q0 T{t}-D{d} {r} {10 - r} {tag}" for t in range(1, 5) for r, d in enumerate(order, 1)]
        path = tmp_path / f"{tag}.run"
        path.write_text("\n".join(lines) + "\n")
        runs_import(collection=collection, sources=[path])
    judge = make_judge()
    run_start(judge=judge)
    human_judges(campaign, alice, {f"T{t}-D{d}": default_label(f"T{t}-D{d}") for t in (1, 2) for d in range(1, 6)})
    same = stability_report(judge, measure="map")
    assert same.n_pairs == 10 and same.comparison.tau == pytest.approx(1.0)
    assert all(m["shift"] == 0 for m in same.movers) and len(same.movers) == 3


def test_the_uncertainty_order_stays_on_and_each_model_run_reapplies_it(make_judge, campaign, fake_llm, lead, client):
    from django.urls import reverse

    from tests.conftest import PASSWORD

    judge = make_judge(request_logprobs=True, max_pairs=10)
    run_start(judge=judge)
    client.login(username=lead.username, password=PASSWORD)
    order_url = reverse("model-order", args=[campaign.collection.slug, campaign.pk])
    assert client.post(order_url).status_code == 302
    fake_llm.labels["T4-D5"] = 2
    fake_llm.probabilities["T4-D5"] = {2: 0.3, 1: 0.3, 3: 0.4}
    judge.max_pairs = None
    judge.save()
    run_start(judge=judge)
    first = Item.objects.filter(campaign=campaign).order_by("priority", "position").first()
    assert first.pair.docno == "T4-D5"
    page = client.get(reverse("model-judges", args=[campaign.collection.slug, campaign.pk])).content.decode()
    assert "<strong>On</strong>: 20 pairs ordered" in page
    client.post(order_url, {"reset": "1"})
    assert set(Item.objects.filter(campaign=campaign).values_list("priority", flat=True)) == {0}


def test_ranking_stability_on_disagreeing_model_qrels_matches_pytrec_eval_and_scipy(
        make_judge, campaign, collection, alice, fake_llm, tmp_path):
    import pytrec_eval
    from scipy.stats import kendalltau

    from collections_app.services.imports import runs_import

    orders = {"r1": [1, 2, 3, 4, 5], "r2": [3, 1, 5, 2, 4], "r3": [5, 4, 3, 2, 1], "r4": [2, 5, 1, 4, 3],
              "r5": [4, 3, 2, 5, 1]}
    for tag, order in orders.items():
        lines = [f"40{t} Q0 T{t}-D{d} {r} {10 - r} {tag}" for t in range(1, 5) for r, d in enumerate(order, 1)]
        (tmp_path / f"{tag}.run").write_text("\n".join(lines) + "\n")
        runs_import(collection=collection, sources=[tmp_path / f"{tag}.run"])
    pairs = [f"T{t}-D{d}" for t in (1, 2, 3) for d in range(1, 6)]
    human = {p: default_label(p) for p in pairs}
    fake_llm.labels.update({p: 3 - g if p.endswith(("D1", "D4")) else g for p, g in human.items()})
    judge = make_judge()
    run_start(judge=judge)
    human_judges(campaign, alice, human)
    result = stability_report(judge, measure="map")
    threshold = collection.relevant_threshold

    def reference_map(labels):
        qrels = {}
        for p, g in labels.items():
            t, d = p.split("-")
            qrels.setdefault(f"40{t[1:]}", {})[p] = g
        run = {tag: {f"40{t}": {f"T{t}-D{d}": float(10 - r) for r, d in enumerate(order, 1)} for t in range(1, 5)}
               for tag, order in orders.items()}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=threshold)
        return {tag: sum(v["map"] for v in evaluator.evaluate(r).values()) / len(qrels) for tag, r in run.items()}

    human_map = reference_map(human)
    model_map = reference_map({p: fake_llm.labels[p] for p in pairs})
    assert result.comparison.scores_a == pytest.approx(human_map)
    assert result.comparison.scores_b == pytest.approx(model_map)
    tags = sorted(orders)
    expected_tau = kendalltau([human_map[t] for t in tags], [model_map[t] for t in tags]).statistic
    assert result.comparison.tau == pytest.approx(expected_tau) and result.comparison.tau < 1
    shifts = {m["tag"]: m["shift"] for m in result.movers}
    human_rank = {t: i for i, t in enumerate(sorted(tags, key=lambda t: (-human_map[t], t)), 1)}
    model_rank = {t: i for i, t in enumerate(sorted(tags, key=lambda t: (-model_map[t], t)), 1)}
    assert shifts == {t: model_rank[t] - human_rank[t] for t in tags}
    assert abs(result.movers[0]["shift"]) == max(abs(s) for s in shifts.values())
