"""The leads' model-assessor pages and API: they work, they refuse others, they never show a key, they escape answers."""
from __future__ import annotations

import pytest
from django.urls import reverse

from judging.models import Assessor
from model_assessors.models import ModelJudge, ModelRun
from model_assessors.services.runs import run_start
from tests.conftest import PASSWORD
from tests.model_assessors.helpers import human_judges

pytestmark = pytest.mark.django_db


def _login(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def _urls(campaign, judge, run):
    slug = campaign.collection.slug
    return [
        reverse("model-judges", args=[slug, campaign.pk]),
        reverse("model-calibration", args=[slug, campaign.pk]),
        reverse("model-judge", args=[slug, campaign.pk, judge.pk]),
        reverse("model-run-progress", args=[slug, campaign.pk, run.pk]),
    ]


def test_a_lead_adds_a_judge_runs_it_and_reads_its_calls_and_calibration(client, campaign, lead, alice, fake_llm,
                                                                          monkeypatch):
    monkeypatch.setenv("QS_FAKE_API_KEY", "sk-never-shown-0123")
    fake_llm.required_key = "sk-never-shown-0123"
    _login(client, lead)
    slug = campaign.collection.slug
    response = client.post(reverse("model-judges", args=[slug, campaign.pk]), {
        "name": "local-llm", "base_url": fake_llm.base_url, "model": "fake-model", "api_key_env": "QS_FAKE_API_KEY",
        "prompting": "graded", "temperature": "0", "max_output_tokens": "50", "max_document_chars": "2000",
        "concurrency": "2", "requests_per_minute": "0", "timeout_seconds": "5", "max_attempts": "2",
        "backoff_seconds": "0", "input_price_per_million": "1", "output_price_per_million": "2",
    })
    judge = ModelJudge.objects.get(campaign=campaign, name="local-llm")
    assert response.status_code == 302 and response.url.endswith(f"/models/{judge.pk}/")
    page = client.get(response.url).content.decode()
    assert "##final score" in page and "QS_FAKE_API_KEY" in page and "sk-never-shown" not in page
    started = client.post(reverse("model-run-start", args=[slug, campaign.pk, judge.pk]))
    assert started.status_code == 302
    run = ModelRun.objects.get(judge=judge)
    assert (run.status, run.done) == ("succeeded", 20)
    progress = client.get(reverse("model-run-progress", args=[slug, campaign.pk, run.pk])).json()
    assert progress == {**progress, "status": "succeeded", "done": 20, "total": 20, "percent": 100.0, "live": False}
    human_judges(campaign, alice, {"T1-D1": 1, "T1-D2": 3})
    calibration = client.get(reverse("model-calibration", args=[slug, campaign.pk])).content.decode()
    assert "Per human assessor" in calibration and "alice" in calibration and "Budget planner" in calibration
    overview = client.get(reverse("campaign-detail", args=[slug, campaign.pk])).content.decode()
    assert reverse("model-judges", args=[slug, campaign.pk]) in overview and "model:local-llm" in overview
    # Model labels flow into the lead's other pages like anyone else's.
    assert client.get(reverse("campaign-dashboard", args=[slug, campaign.pk])).status_code == 200
    assert client.get(reverse("campaign-conflicts", args=[slug, campaign.pk])).status_code == 200
    streamed = client.get(reverse("campaign-judgments-export", args=[slug, campaign.pk, "csv"])).streaming_content
    export = b"".join(streamed).decode()
    assert export.count(",model,") == 20


def test_a_key_pasted_where_its_variable_name_belongs_is_refused_and_nothing_is_created(client, campaign, lead, fake_llm):
    _login(client, lead)
    response = client.post(reverse("model-judges", args=[campaign.collection.slug, campaign.pk]), {
        "name": "oops", "base_url": fake_llm.base_url, "model": "m", "api_key_env": "sk-proj-abc123",
        "prompting": "graded", "temperature": "0", "max_output_tokens": "50", "max_document_chars": "2000",
        "concurrency": "2", "requests_per_minute": "0", "timeout_seconds": "5", "max_attempts": "2",
        "backoff_seconds": "0", "input_price_per_million": "0", "output_price_per_million": "0",
    })
    assert response.status_code == 200 and "never the key itself" in response.content.decode()
    assert not ModelJudge.objects.exists() and not Assessor.objects.filter(kind="model").exists()


def test_a_prompt_edit_writes_a_new_version_and_a_bad_placeholder_writes_none(client, campaign, lead, make_judge):
    judge = make_judge()
    _login(client, lead)
    url = reverse("model-judge", args=[campaign.collection.slug, campaign.pk, judge.pk])
    bad = client.post(url, {"form": "prompt", "system": "", "user": "Judge {doc} for {query}"})
    assert "unknown placeholder {doc}" in bad.content.decode() and judge.prompts.count() == 1
    good = client.post(url, {"form": "prompt", "system": "Be strict.", "user": "Q: {query}\n{document}\nfinal score?",
                             "note": "shorter"})
    assert good.status_code == 302
    assert list(judge.prompts.values_list("version", flat=True)) == [2, 1]
    assert judge.current_prompt().system == "Be strict."


def test_raw_answers_are_shown_as_text_never_as_html(client, campaign, lead, make_judge, fake_llm):
    fake_llm.scripts["T1-D1"] = [("text", "<script>alert('x')</script> final score: 1")]
    judge = make_judge()
    run_start(judge=judge)
    _login(client, lead)
    page = client.get(reverse("model-judge", args=[campaign.collection.slug, campaign.pk, judge.pk])).content.decode()
    assert "<script>alert('x')" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page


def test_assessors_get_403_outsiders_404_and_another_campaigns_judge_404(client, campaign, lead, alice, mallory,
                                                                          make_judge, collection, pool):
    from judging.services.campaigns import campaign_create

    judge = make_judge()
    run = run_start(judge=judge)
    for url in _urls(campaign, judge, run):
        assert _login(client, alice).get(url).status_code == 403
        assert _login(client, mallory).get(url).status_code == 404
    other = campaign_create(collection=collection, pool=pool, name="other", created_by=lead, assessors=[])
    _login(client, lead)
    assert client.get(reverse("model-judge", args=[collection.slug, other.pk, judge.pk])).status_code == 404
    assert client.get(reverse("model-run-progress", args=[collection.slug, other.pk, run.pk])).status_code == 404
    assert client.post(reverse("model-run-start", args=[collection.slug, other.pk, judge.pk])).status_code == 404
    before = ModelRun.objects.count()
    _login(client, alice).post(reverse("model-run-start", args=[collection.slug, campaign.pk, judge.pk]))
    _login(client, alice).post(reverse("model-order", args=[collection.slug, campaign.pk]))
    assert ModelRun.objects.count() == before


def test_the_api_adds_a_judge_starts_a_run_and_summarises_the_calibration(client, campaign, lead, alice, mallory,
                                                                           fake_llm):
    _login(client, lead)
    base = f"/api/campaigns/{campaign.pk}/model-judges/"
    created = client.post(base, {"name": "api-judge", "base_url": fake_llm.base_url, "model": "fake-model",
                                 "concurrency": 2, "requests_per_minute": 0, "backoff_seconds": 0},
                          content_type="application/json")
    assert created.status_code == 201, created.content
    judge_id = created.json()["id"]
    assert created.json()["prompt_version"] == 1 and "api_key" not in created.json()
    started = client.post(f"{base}{judge_id}/runs/", {}, content_type="application/json")
    assert started.status_code == 202 and started.json()["status"] == "succeeded"
    run_id = started.json()["id"]
    assert client.get(f"/api/campaigns/{campaign.pk}/model-runs/{run_id}/").json()["done"] == 20
    human_judges(campaign, alice, {"T1-D1": 0, "T1-D2": 3, "T1-D3": 0})
    summary = client.get(f"{base}{judge_id}/calibration/").json()
    assert summary["against_reference"]["n_items"] == 3 and sum(map(sum, summary["confusion"])) == 3
    refused = client.post(base, {"name": "x", "base_url": "ftp://nowhere", "model": "m"}, content_type="application/json")
    assert refused.status_code == 400
    assert _login(client, alice).get(base).status_code == 403
    assert _login(client, mallory).get(base).status_code == 404
    assert _login(client, mallory).post(f"{base}{judge_id}/runs/", {}, content_type="application/json").status_code == 404


def test_the_judges_page_queries_do_not_grow_with_judges_and_runs(client, campaign, lead, make_judge,
                                                                   django_assert_max_num_queries):
    run_start(judge=make_judge("one", max_pairs=3))
    _login(client, lead)
    url = reverse("model-judges", args=[campaign.collection.slug, campaign.pk])
    with django_assert_max_num_queries(16) as few:
        assert client.get(url).status_code == 200
    for name in ("two", "three", "four"):
        judge = make_judge(name, max_pairs=2)
        run_start(judge=judge)
        run_start(judge=judge)
    with django_assert_max_num_queries(16) as many:
        assert client.get(url).status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)
