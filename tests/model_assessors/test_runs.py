"""The whole judging path against the fake endpoint: real HTTP, retries, skips, budgets, resuming."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from judging.models import Assessor, Item, Judgment
from judging.services.allocation import item_next
from model_assessors.models import ModelCall, ModelRun
from model_assessors.services.runs import run_cancel, run_execute, run_start
from tests.model_assessors.fake_openai import default_label
from tests.model_assessors.helpers import docnos, model_grades

pytestmark = pytest.mark.django_db


def test_a_run_labels_every_pair_with_the_endpoints_answers_and_records_each_call(make_judge, campaign, fake_llm, lead):
    judge = make_judge(input_price_per_million="2.5", output_price_per_million="10")
    run = run_start(judge=judge, user=lead)
    assert (run.status, run.total, run.done, run.failed) == ("succeeded", 20, 20, 0)
    assert model_grades(judge) == {d: default_label(d) for d in docnos(campaign)}
    calls = list(ModelCall.objects.filter(judge=judge))
    assert len(calls) == 20 and {c.status for c in calls} == {"labelled"}
    call = calls[0]
    assert call.prompt.version == 1 and call.raw_answer.startswith("##final score:")
    assert (call.prompt_tokens, call.completion_tokens, call.attempts, call.http_status) == (100, 5, 1, 200)
    assert call.cost == Decimal("100") * Decimal("2.5") / 10**6 + Decimal("5") * Decimal("10") / 10**6
    # The prompt carried the topic and the document; the model name went with it.
    body = fake_llm.requests[0]["body"]
    assert body["model"] == "fake-model" and body["temperature"] == 0.0 and "logprobs" not in body
    assert "wind turbine noise" in body["messages"][-1]["content"]
    assert Assessor.objects.get(pk=judge.assessor_id).kind == "model"


def test_model_labels_take_no_human_slot(make_judge, campaign, alice):
    run_start(judge=make_judge())
    assert set(Item.objects.filter(campaign=campaign).values_list("judgment_count", flat=True)) == {0}
    alice_row = Assessor.objects.get(campaign=campaign, user=alice)
    assert item_next(assessor=alice_row) is not None


def test_429_500_and_timeouts_are_retried_and_a_pair_failing_every_attempt_is_asked_again_next_run(
        make_judge, fake_llm, lead):
    fake_llm.scripts.update({"T1-D1": [429, 500], "T1-D2": ["timeout"], "T1-D3": [500, 500, 500], "T1-D4": ["malformed"]})
    judge = make_judge(max_attempts=3)
    run = run_start(judge=judge, user=lead)
    assert (run.status, run.done, run.failed) == ("succeeded", 19, 1)
    assert "1 call(s) failed" in run.message
    by_docno = {c.item.pair.docno: c for c in ModelCall.objects.filter(judge=judge).select_related("item__pair")}
    assert (by_docno["T1-D1"].status, by_docno["T1-D1"].attempts) == ("labelled", 3)
    assert (by_docno["T1-D2"].status, by_docno["T1-D2"].attempts) == ("labelled", 2)
    assert (by_docno["T1-D4"].status, by_docno["T1-D4"].attempts) == ("labelled", 2)
    assert by_docno["T1-D3"].status == "failed" and by_docno["T1-D3"].http_status == 500
    assert "T1-D3" not in model_grades(judge)
    assert fake_llm.calls_for("T1-D3") == 3
    again = run_start(judge=judge, user=lead)
    assert (again.total, again.done, again.failed) == (1, 1, 0)
    assert fake_llm.calls_for("T1-D3") == 4 and fake_llm.calls_for("T1-D1") == 3
    assert model_grades(judge)["T1-D3"] == default_label("T1-D3")


def test_an_answer_that_does_not_parse_is_a_skip_with_the_raw_text_never_a_guessed_label(make_judge, fake_llm):
    fake_llm.scripts.update({"T2-D1": ["garbage"], "T2-D2": [("text", "##final score: 9")],
                             "T2-D3": [("text", "final score: 1, no wait, final score: 3")],
                             "T2-D4": [("text", "2")]})
    judge = make_judge()
    run_start(judge=judge)
    grades = model_grades(judge)
    assert grades["T2-D1"] is None and grades["T2-D2"] is None and grades["T2-D3"] is None
    assert grades["T2-D4"] == 2
    skip = Judgment.objects.get(assessor=judge.assessor, item__pair__docno="T2-D1")
    assert skip.skipped and skip.skip_reason == "model answer did not parse: no final score in the answer"
    call = ModelCall.objects.get(judge=judge, item__pair__docno="T2-D1")
    assert call.status == "unparsed" and call.label is None and "hard to say" in call.raw_answer
    assert ModelCall.objects.get(judge=judge, item__pair__docno="T2-D2").error == "score 9 is not on the scale 0, 1, 2, 3"


def test_a_run_resumed_after_its_worker_died_asks_only_the_pairs_not_yet_answered(make_judge, fake_llm, campaign, lead):
    judge = make_judge(max_pairs=7)
    first = run_start(judge=judge, user=lead)
    assert first.done == 7
    # The worker "dies": a run left running, and the budget raised for the rest.
    dead = ModelRun.objects.create(judge=judge, status=ModelRun.Status.RUNNING)
    judge.max_pairs = None
    judge.save()
    with pytest.raises(ValidationError) as refused:
        run_start(judge=judge, user=lead)
    assert refused.value.code == "run_live"
    resumed = run_start(judge=judge, user=lead, resume=True)
    dead.refresh_from_db()
    assert dead.status == "failed" and "replaced" in dead.message
    assert (resumed.status, resumed.total, resumed.done) == ("succeeded", 13, 13)
    assert all(fake_llm.calls_for(d) == 1 for d in docnos(campaign))
    # Executing a finished run's task again (a redelivered task) asks nothing.
    before = len(fake_llm.requests)
    run_execute(run=resumed)
    assert len(fake_llm.requests) == before


def test_the_token_budget_stops_a_run_at_its_next_check(make_judge):
    # 105 tokens a call: the 3rd answer crosses 300, no call is sent after it, and the one call that may
    # still be in flight (one thread, two calls in flight at most) is recorded.
    judge = make_judge(concurrency=1, max_tokens=300)
    run = run_start(judge=judge)
    assert run.status == "stopped" and "token budget" in run.message
    assert 3 <= len(model_grades(judge)) <= 4


def test_a_refused_key_fails_the_run_at_once_instead_of_spending_it_on_every_pair(make_judge, fake_llm, monkeypatch):
    fake_llm.required_key = "sk-secret-value"
    judge = make_judge(api_key_env="QS_TEST_API_KEY", concurrency=1)
    monkeypatch.delenv("QS_TEST_API_KEY", raising=False)
    run = run_start(judge=judge)
    assert run.status == "failed" and "401" in run.message
    assert len(fake_llm.requests) <= 4 and not model_grades(judge)
    assert ModelCall.objects.filter(judge=judge, status="failed").first().attempts == 1
    monkeypatch.setenv("QS_TEST_API_KEY", "sk-secret-value")
    run = run_start(judge=judge)
    assert run.status == "succeeded" and len(model_grades(judge)) == 20
    assert fake_llm.requests[-1]["auth"] == "Bearer sk-secret-value"


def test_log_probabilities_are_asked_for_and_kept_as_label_probabilities(make_judge, fake_llm):
    fake_llm.probabilities["T1-D1"] = {2: 0.7, 1: 0.2, 3: 0.1}
    fake_llm.labels["T1-D1"] = 2
    judge = make_judge(request_logprobs=True)
    run_start(judge=judge)
    assert fake_llm.requests[0]["body"]["logprobs"] is True
    call = ModelCall.objects.get(judge=judge, item__pair__docno="T1-D1")
    assert call.label == 2
    assert {k: round(v, 6) for k, v in call.label_probabilities.items()} == {"1": 0.2, "2": 0.7, "3": 0.1}


def test_a_binary_judge_on_a_graded_scale_records_relevant_as_the_threshold_grade(make_judge, fake_llm, campaign):
    fake_llm.label_for = lambda key: 1 if key.endswith(("D1", "D2")) else 0
    judge = make_judge(prompting="binary")
    run_start(judge=judge)
    threshold = campaign.collection.relevant_threshold
    grades = model_grades(judge)
    assert {grades[d] for d in grades if d.endswith(("D1", "D2"))} == {threshold}
    assert {grades[d] for d in grades if not d.endswith(("D1", "D2"))} == {0}
    assert "##final score: 0 or ##final score: 1" in fake_llm.requests[0]["body"]["messages"][-1]["content"]


def test_a_paused_campaign_refuses_a_run_and_a_cancelled_run_stays_cancelled(make_judge, campaign, lead):
    from judging.services.campaigns import campaign_set_status

    judge = make_judge()
    run = ModelRun.objects.create(judge=judge)
    assert run_cancel(run=run) is True
    assert run_execute(run=run).status == "cancelled"
    assert not model_grades(judge)
    campaign_set_status(campaign=campaign, status="paused", user=lead)
    with pytest.raises(ValidationError) as refused:
        run_start(judge=judge)
    assert refused.value.code == "campaign_closed"


def test_a_run_replaced_by_a_resumed_one_stops_after_its_batch_and_keeps_the_replacements_outcome(
        make_judge, monkeypatch):
    from model_assessors.services import runs as runs_module

    judge = make_judge(concurrency=1)  # checked every 4 answers; up to two calls in flight are still recorded
    old = ModelRun.objects.create(judge=judge)
    real_record = runs_module.call_record

    def record_then_get_replaced(**kwargs):
        call = real_record(**kwargs)
        ModelRun.objects.filter(pk=old.pk).update(status=ModelRun.Status.FAILED, message="replaced")
        return call

    monkeypatch.setattr(runs_module, "call_record", record_then_get_replaced)
    finished = run_execute(run=old)
    assert (finished.status, finished.message) == ("failed", "replaced")
    assert 4 <= len(model_grades(judge)) <= 6


def test_the_command_runs_a_judge_in_process_and_refuses_a_second_live_run(make_judge, campaign):
    from io import StringIO

    from django.core.management import CommandError, call_command

    judge = make_judge("cli", max_pairs=6)
    out = StringIO()
    call_command("model_judge", str(campaign.pk), "cli", stdout=out)
    assert "finished, 6 of 6 pairs answered, 0 failed" in out.getvalue() and len(model_grades(judge)) == 6
    ModelRun.objects.create(judge=judge, status=ModelRun.Status.RUNNING)
    with pytest.raises(CommandError, match="under way"):
        call_command("model_judge", str(campaign.pk), "cli")
    with pytest.raises(CommandError, match="no model judge"):
        call_command("model_judge", str(campaign.pk), "nobody")
