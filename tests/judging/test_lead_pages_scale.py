"""The lead's pages built for hundreds of assessors and thousands of conflicts: paged, filtered, cached, honest."""
from __future__ import annotations

import re

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from aggregation import dawid_skene
from collections_app.models import Document
from judging.dashboard import compute
from judging.dashboard.choices import choice
from judging.dashboard.selectors import _stamp_key, campaign_dashboard
from judging.models import Adjudication, Item, Judgment, QrelsVersion
from judging.services.qrels import qrels_freeze
from judging.services.rejudge import rejudge_history
from judging.views.dashboard import filter_assessors
from tests.judging.conftest import expert
from tests.judging.test_dashboard_views import GRADES, judge_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(make_campaign, alice, bob, carol):
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3)
    judge_all(campaign, [alice, bob, carol])
    return campaign


@pytest.fixture
def carol(collection):
    from collections_app.models import Membership
    from tests.conftest import make_user

    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    return carol


def url(name, campaign, query=""):
    return reverse(name, args=[campaign.collection.slug, campaign.pk]) + (f"?{query}" if query else "")


def disputed_positions():
    return [p for p in range(20) if len({GRADES[n][p] for n in GRADES}) > 1]


# --- conflicts ------------------------------------------------------------------------------------------

def test_conflicts_are_paged_and_every_page_holds_different_pairs(client, judged, lead, monkeypatch):
    monkeypatch.setattr("judging.views.lead.CONFLICTS_PER_PAGE", 4)
    client.force_login(lead)
    total = len(disputed_positions())
    seen = []
    for page in range(1, -(-total // 4) + 1):
        html = client.get(url("campaign-conflicts", judged, f"page={page}")).content.decode()
        ids = re.findall(r'<section class="card conflict" id="item-(\d+)"', html)
        assert 1 <= len(ids) <= 4 and f"{total} pairs whose labels disagree" in html
        seen += ids
    assert len(seen) == len(set(seen)) == total
    assert 'id="conflict-pager"' in html


def test_conflicts_filter_by_grade_gap_and_unresolved(client, judged, lead):
    client.force_login(lead)
    gaps = {p: max(GRADES[n][p] for n in GRADES) - min(GRADES[n][p] for n in GRADES) for p in disputed_positions()}
    html = client.get(url("campaign-conflicts", judged, "gap=2")).content.decode()
    assert html.count('class="card conflict"') == sum(1 for g in gaps.values() if g >= 2)
    item = Item.objects.get(campaign=judged, position=disputed_positions()[0] + 1)
    Adjudication.objects.create(campaign=judged, item=item, grade=1, decided_by=lead)
    html = client.get(url("campaign-conflicts", judged, "unresolved=1")).content.decode()
    assert html.count('class="card conflict"') == len(gaps) - 1 and f'id="item-{item.pk}"' not in html


def test_conflicts_show_the_document_text_escaped_beside_the_labels(client, judged, lead):
    item = Item.objects.select_related("pair").get(campaign=judged, position=disputed_positions()[0] + 1)
    Document.objects.filter(pk=item.pair.document_id).update(title="<b>bold</b>", text='<script>alert("x")</script> ok')
    client.force_login(lead)
    html = client.get(url("campaign-conflicts", judged)).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; ok" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and 'class="conflict-document"' in html


def test_after_set_final_label_the_chosen_grade_stays_selected_and_the_filters_survive(client, judged, lead):
    client.force_login(lead)
    item = Item.objects.get(campaign=judged, position=disputed_positions()[0] + 1)
    target = url("campaign-conflicts", judged, "topic=401&page=1")
    response = client.post(target, {"item": item.pk, "grade": 2, "note": "checked"})
    assert response.status_code == 302 and response["Location"].endswith(f"?topic=401&page=1#item-{item.pk}")
    html = client.get(target).content.decode()
    section = html[html.index(f'id="item-{item.pk}"'):]
    section = section[:section.index("</section>")]
    assert re.search(r'<option value="2" selected>', section) and "checked</textarea>" in section


def test_api_conflicts_are_paged_with_a_total_and_a_next_link(client, judged, lead):
    client.force_login(lead)
    api = reverse("api-campaign-conflicts", args=[judged.pk])
    total = len(disputed_positions())
    first = client.get(api, {"page_size": 3})
    assert first.status_code == 200 and len(first.json()) == 3 and first["X-Total-Count"] == str(total)
    assert "page=2" in first["Link"] and 'rel="next"' in first["Link"]
    everything = client.get(api).json()
    assert len(everything) == total
    assert client.get(api, {"gap": "x"}).status_code == 400


# --- assessors and low agreement ---------------------------------------------------------------------------

def test_assessor_table_sorts_filters_and_pages(client, judged, lead, monkeypatch):
    monkeypatch.setattr("judging.views.dashboard.PER_PAGE", 2)
    client.force_login(lead)
    html = client.get(url("campaign-assessors", judged, "sort=name&dir=asc")).content.decode()
    assert re.findall(r'data-assessor="\d+"><td>(\w+)', html) == ["alice", "bob"] and "page 1 of 2" in html
    html = client.get(url("campaign-assessors", judged, "sort=name&dir=asc&page=2")).content.decode()
    assert re.findall(r'data-assessor="\d+"><td>(\w+)', html) == ["carol"]
    html = client.get(url("campaign-assessors", judged, "q=CAR")).content.decode()
    assert re.findall(r'data-assessor="\d+"><td>(\w+)', html) == ["carol"]
    html = client.get(url("campaign-assessors", judged, "show=blocked")).content.decode()
    assert "No assessor matches." in html


def test_filter_assessors_keeps_missing_values_last_both_ways():
    rows = [{"name": n, "agreement": a, "flags": f, "blocked": b, "judgments": j, "gold_accuracy": None,
             "median_seconds": None}
            for n, a, f, b, j in (("a", 0.5, [], False, 3), ("b", None, ["too fast"], False, 9),
                                  ("c", 0.1, ["low agreement", "low gold accuracy"], False, 5),
                                  ("d", 0.9, ["blocked"], True, 1))]
    assert [r["name"] for r in filter_assessors(rows, show="all", name="", sort="agreement", descending=False)] == [
        "c", "a", "d", "b"]
    assert [r["name"] for r in filter_assessors(rows, show="all", name="", sort="agreement", descending=True)] == [
        "d", "a", "c", "b"]
    assert [r["name"] for r in filter_assessors(rows, show="flagged", name="", sort="judgments",
                                                descending=True)] == ["b", "c"]
    assert [r["name"] for r in filter_assessors(rows, show="gold", name="", sort="name", descending=False)] == ["c"]
    assert [r["name"] for r in filter_assessors(rows, show="blocked", name="", sort="name", descending=False)] == ["d"]


def test_low_agreement_page_sends_the_selected_pairs_to_one_more_assessor(client, judged, lead, alice, bob, carol,
                                                                           monkeypatch):
    monkeypatch.setattr(compute, "LOW_PAIR_OVERLAP", 1)
    monkeypatch.setattr(compute, "LOW_AGREEMENT", 2.0)  # every pair counts as low here
    client.force_login(lead)
    html = client.get(url("campaign-low-agreement", judged)).content.decode()
    assert html.count('name="pair"') == 3 and 'id="bulk-rejudge"' in html
    a, b, c = expert(judged, alice), expert(judged, bob), expert(judged, carol)
    rejudge = reverse("campaign-rejudge", args=[judged.collection.slug, judged.pk])
    response = client.post(rejudge, {"token": "bulk-1", "pair": [f"{a.pk}-{b.pk}", f"{b.pk}-{c.pk}"],
                                      "from": "low-agreement"})
    assert response.status_code == 302 and "/low-agreement/" in response["Location"]
    history = rejudge_history(campaign=judged)
    assert sorted(tuple(h["assessors"]) for h in history) == sorted([(a.pk, b.pk), (b.pk, c.pk)])
    disputed = set(Item.objects.filter(campaign=judged, position__in=[p + 1 for p in disputed_positions()])
                   .values_list("pk", flat=True))
    for h in history:  # all three judged every pair: each disputed pair is raised or left alone, never lost
        assert set(h["raised"]) | set(h["skipped"]) == disputed
    client.post(rejudge, {"token": "bulk-1", "pair": [f"{a.pk}-{b.pk}"], "from": "low-agreement"})
    assert len(rejudge_history(campaign=judged)) == 2  # a replay changes nothing


def test_new_pages_refuse_assessors_and_outsiders(client, judged, alice, mallory):
    for name in ("campaign-assessors", "campaign-low-agreement"):
        client.force_login(alice)
        assert client.get(url(name, judged)).status_code == 403
        client.force_login(mallory)
        assert client.get(url(name, judged)).status_code == 404


# --- the dashboard at scale: heatmap choice, cache, freshness, imported, unknown seconds -------------------------------

def test_heatmap_choice_is_explained_and_switchable(client, judged, lead, monkeypatch):
    monkeypatch.setattr(compute, "MAX_MATRIX_RATERS", 2)
    client.force_login(lead)
    for key in ("judgments", "lowest", "flagged"):
        html = client.get(url("campaign-dashboard", judged, f"heatmap={key}")).content.decode()
        assert compute.HEATMAP_CHOICES[key].split(" (")[0] in html and 'id="matrix-limited"' in html
        assert f'<option value="{key}" selected>' in html


def test_dashboard_is_cached_until_a_judgment_arrives_and_says_how_fresh(client, judged, lead, alice):
    first = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    assert first["freshness"]["cached"] is False and first["freshness"]["judgments"] == 60
    again = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    assert again["freshness"]["cached"] is True and again["overall"] == first["overall"]
    item = Item.objects.get(campaign=judged, position=1)
    judgment = Judgment.objects.get(item=item, assessor=expert(judged, alice))
    Judgment.objects.filter(pk=judgment.pk).update(grade=3, updated_at=timezone.now())  # as a revision does
    assert campaign_dashboard(campaign=judged, stat=choice("cohen"))["freshness"]["cached"] is True  # digest reused
    cache.delete(_stamp_key(judged))  # what STAMP_SECONDS later brings
    fresh = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    assert fresh["freshness"]["cached"] is False and fresh["overall"]["value"] != first["overall"]["value"]
    client.force_login(lead)
    assert 'id="freshness"' in client.get(url("campaign-dashboard", judged)).content.decode()


def test_an_imported_campaign_shows_no_pace_time_or_cost(client, judged, lead):
    judged.origin = "imported"
    data = campaign_dashboard(campaign=judged, stat=choice("fleiss"), rate=10.0)
    assert data["imported"] is True
    assert data["throughput"]["recent_per_hour"] is None and data["estimate"]["cost"] is None
    assert data["estimate"]["active_hours"] is None and data["estimate"]["wall_hours"] is None
    assert data["overall"]["value"] is not None  # agreement still shown


def test_unknown_active_seconds_are_left_out_and_never_too_fast():
    rows = [(i, a, (i + a) % 4, np.nan if a == 1 else 20.0, i) for i in range(6) for a in range(2)]
    j = np.array(rows, dtype=float)
    data = compute.CampaignArrays(
        scale=(0, 1, 2, 3), threshold=2, topics=[("401", "t")],
        assessors=[{"id": 10 + a, "name": f"a{a}", "kind": "crowd", "blocked": False} for a in range(2)],
        item_ids=np.arange(6), item_topic=np.zeros(6, np.int64), required=np.full(6, 2), counts=np.full(6, 2),
        is_gold=np.zeros(6, bool), gold_grade=np.full(6, np.nan), j_item=j[:, 0].astype(np.int64),
        j_assessor=j[:, 1].astype(np.int64), j_grade=j[:, 2].astype(np.int64), j_seconds=j[:, 3], j_time=j[:, 4])
    out = compute.assessor_rows(data, np.full(2, np.nan), choice("cohen"), gold_threshold=0.0, gold_min_answers=1)
    assert out[1]["median_seconds"] is None and "too fast" not in out[1]["flags"]
    assert out[0]["median_seconds"] == 20.0
    plan = compute.estimate(seconds=data.j_seconds, remaining=10, rate=36.0, recent_per_hour=None)
    assert plan["median_seconds"] == 20.0 and plan["cost"] == pytest.approx(2.0)


def test_null_active_seconds_load_as_unknown(judged):
    Judgment.objects.filter(item__campaign=judged, assessor__user__username="carol").update(active_seconds=None)
    data = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    carol = next(r for r in data["assessors"] if r["name"] == "carol")
    assert carol["median_seconds"] is None and "too fast" not in carol["flags"]


# --- Dawid–Skene convergence ---------------------------------------------------------------------------------

def heavy_tailed_crowd(seed: int, *, items: int = 1500, workers: int = 150):
    """4-grade crowd labels: log-normal activity, 1–10 labels per item, honest, spamming and lenient workers."""
    rng = np.random.default_rng(seed)
    share = rng.lognormal(0, 1.8, workers)
    share /= share.sum()
    kind = rng.choice(3, size=workers, p=[0.7, 0.15, 0.15])
    accuracy = rng.beta(4, 2.5, workers)
    truth = rng.choice(4, size=items, p=[0.04, 0.5, 0.3, 0.16])
    labels = []
    for i in range(items):
        for w in rng.choice(workers, size=int(np.clip(1 + rng.binomial(9, 0.43), 1, 10)), replace=False,
                            p=share).tolist():
            if kind[w] == 1:
                grade = int(rng.integers(0, 4))
            elif kind[w] == 2:
                grade = min(3, int(truth[i]) + int(rng.random() < 0.6))
            else:
                grade = int(truth[i]) if rng.random() < accuracy[w] else min(3, max(0, int(truth[i]) + int(
                    rng.choice([-1, 1, 1]))))
            labels.append((i, w, grade - 1))
    return labels, truth - 1


def test_dawid_skene_defaults_converge_on_heavy_tailed_four_grade_crowd_data():
    for seed in range(2):
        labels, truth = heavy_tailed_crowd(seed)
        result = dawid_skene(labels, categories=[-1, 0, 1, 2])
        assert result.converged and result.iterations < 500 and np.isfinite(result.log_likelihood)
        chosen = np.array([result.labels[i].label for i in range(truth.size)])
        assert (chosen == truth).mean() > 0.8
        stopped = dawid_skene(labels, categories=[-1, 0, 1, 2], max_iter=2)
        assert stopped.converged is False and stopped.iterations == 2


def test_freeze_records_dawid_skene_convergence_and_warns_when_it_stopped(client, judged, lead):
    version = qrels_freeze(campaign=judged, rule=QrelsVersion.Rule.DAWID_SKENE, description="", user=lead)
    info = version.aggregation
    assert info["converged"] is True and info["iterations"] >= 1 and info["log_likelihood"] < 0
    assert version.aggregation_warning == ""
    client.force_login(lead)
    response = client.post(url("campaign-qrels", judged), {"rule": "dawid_skene", "description": "", "ds_max_iter": 1,
                                                             "ds_smoothing": 0.5})
    assert response.status_code == 302
    stopped = QrelsVersion.objects.get(collection=judged.collection, number=version.number + 1)
    assert stopped.aggregation["converged"] is False and stopped.aggregation["smoothing"] == 0.5
    html = client.get(url("campaign-qrels", judged)).content.decode()
    assert "not converged" in html and "without converging" in html and 'class="warn ds-warning"' in html
    api = client.get(reverse("api-campaign-qrels", args=[judged.pk])).json()
    rows = api if isinstance(api, list) else api.get("results", api)
    newest = next(v for v in rows if v["number"] == stopped.number)
    assert newest["aggregation"]["converged"] is False and "without converging" in newest["warning"]
    frozen = client.post(reverse("api-campaign-qrels", args=[judged.pk]),
                         {"rule": "dawid_skene", "ds_options": {"max_iter": 1}}, content_type="application/json")
    assert frozen.status_code == 201 and frozen.json()["aggregation"]["iterations"] == 1
    majority = qrels_freeze(campaign=judged, rule=QrelsVersion.Rule.MAJORITY, description="", user=lead)
    assert majority.aggregation == {} and majority.aggregation_warning == ""
    cache.clear()


def test_final_labels_csv_opens_with_how_dawid_skene_ended_and_says_when_it_did_not_converge(client, judged, lead,
                                                                                            monkeypatch):
    import functools
    import io

    import pandas as pd

    from judging.services import qrels as qrels_service

    client.force_login(lead)
    base = reverse("campaign-final-labels", args=[judged.collection.slug, judged.pk])
    text = b"".join(client.get(base + "?rule=dawid_skene").streaming_content).decode()
    first, header = text.splitlines()[:2]
    report: dict = {}
    labels = qrels_service.final_labels_detail(campaign=judged, rule="dawid_skene", report=report)
    assert first.startswith("# dawid_skene: ") and header == "qid,docno,grade,confidence"
    assert f"rounds={report['iterations']} converged=true log_likelihood={report['log_likelihood']:.6f}" in first
    assert "NOT CONVERGED" not in first
    table = pd.read_csv(io.StringIO(text), skiprows=1, dtype={"qid": str, "docno": str})
    assert len(table) == len(labels) and list(table.columns) == ["qid", "docno", "grade", "confidence"]
    majority = b"".join(client.get(base + "?rule=majority").streaming_content).decode()
    assert majority.startswith("qid,docno,grade,confidence\n")  # no run to report, no comment line
    jsonl = reverse("campaign-final-labels-export", args=[judged.collection.slug, judged.pk, "jsonl"])
    assert not b"".join(client.get(jsonl + "?rule=dawid_skene").streaming_content).startswith(b"#")
    monkeypatch.setattr(qrels_service, "dawid_skene", functools.partial(qrels_service.dawid_skene, max_iter=1))
    stopped = b"".join(client.get(base + "?rule=dawid_skene").streaming_content).decode().splitlines()[0]
    assert "rounds=1 converged=false" in stopped
    assert "NOT CONVERGED: stopped after 1 rounds without converging" in stopped
