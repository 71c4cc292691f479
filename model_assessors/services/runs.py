"""Judge a campaign's pairs with a model: start a run, execute it (in a worker), cancel it.

How a run goes (``run_execute``, called by the ``model_judge_run`` task):

- **What to judge**: the campaign's regular items the judge's assessor has no judgment of, in
  campaign order, cut to the budget (``max_pairs`` minus pairs already answered). Items whose
  document text the collection lacks are left out (nothing to show the model). Every answered
  call writes its judgment in the same transaction, so a run started again after a worker died
  skips every pair already answered: nothing is asked twice. A call that failed after its
  retries writes no judgment, so the next run asks again.
- **Calls** go out from ``concurrency`` threads through one :class:`~model_assessors.client.ChatClient`
  (retries with backoff on 429/5xx/timeouts, one rate limiter), at most 2 × concurrency in
  flight. Only the run's own thread touches the database: it writes each answer as it comes back.
- **Answers**: a parsed label becomes the assessor's judgment; an answer that does not parse
  becomes a skip whose reason says why, with the raw text kept on the call — never a guessed label.
  Model judgments take no human's slot (``Item.judgment_count`` is left alone).
- **Stops**: the token budget (``max_tokens`` over all the judge's calls) or a campaign that is no
  longer active stops the run (``stopped``); a lead's cancel (``cancelled``), a resumed run that
  replaced this one, and a fatal refusal by the endpoint (401, 404, …: ``failed``) stop it too,
  checked every ``concurrency × 4`` answers (the token budget before every call); the calls then
  in flight are still recorded, so a budget is overshot by at most 2 × concurrency calls. Should a replaced run's worker still be alive, both may ask about the
  same last pairs; the unique constraints keep one answer per pair.
"""
from __future__ import annotations

import logging
import os
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Sum
from django.utils import timezone

from judging.models import Assessor, Campaign, Item, Judgment
from model_assessors import prompts
from model_assessors.client import CallOutcome, ChatClient, RateLimiter
from model_assessors.models import ModelCall, ModelJudge, ModelRun, PromptTemplate
from model_assessors.services.uncertainty import priorities_refresh_if_enabled

logger = logging.getLogger(__name__)
BATCH_PER_THREAD = 4
SKIP_PREFIX = "model answer did not parse: "


def run_create(*, judge: ModelJudge, user=None, resume: bool = False) -> ModelRun:
    """Record a queued run of the judge after checking it may run (the task, or a command, executes it).

    A judge runs one pass at a time: with a run still queued or running this refuses
    (``run_live``) unless ``resume`` is set — for a run whose worker died, which is then marked
    failed and replaced (the new run skips every pair already answered).
    Raises ValidationError: run_live, campaign_closed, blocked, no_prompt.
    """
    with transaction.atomic():
        judge = ModelJudge.objects.select_for_update().select_related("campaign", "assessor").get(pk=judge.pk)
        if judge.campaign.status != Campaign.Status.ACTIVE:
            raise ValidationError("The campaign is not active.", code="campaign_closed")
        if judge.assessor.blocked:
            raise ValidationError("This model assessor is blocked; unblock it first.", code="blocked")
        if judge.current_prompt() is None:
            raise ValidationError("The judge has no prompt.", code="no_prompt")
        live = judge.runs.filter(status__in=[ModelRun.Status.QUEUED, ModelRun.Status.RUNNING])
        if live.exists():
            if not resume:
                raise ValidationError("A run of this judge is under way (resume it if its worker stopped).",
                                      code="run_live")
            live.update(status=ModelRun.Status.FAILED, finished_at=timezone.now(),
                        message="replaced by a resumed run (its worker had stopped)")
        return ModelRun.objects.create(judge=judge, created_by=user)


def run_start(*, judge: ModelJudge, user=None, resume: bool = False) -> ModelRun:
    """Create a run (:func:`run_create`) and enqueue its task; return it (already finished with the immediate backend)."""
    from model_assessors.tasks import model_judge_run

    run = run_create(judge=judge, user=user, resume=resume)
    result = model_judge_run.enqueue(run.pk)
    ModelRun.objects.filter(pk=run.pk, task_id="").update(task_id=str(result.id))
    run.refresh_from_db()
    return run


def run_cancel(*, run: ModelRun) -> bool:
    """Ask a live run to stop after its current batch; return False when it had already ended."""
    return bool(ModelRun.objects.filter(pk=run.pk, status__in=[ModelRun.Status.QUEUED, ModelRun.Status.RUNNING])
                .update(status=ModelRun.Status.CANCELLED, finished_at=timezone.now(), message="cancelled by a lead"))


def pending_items(judge: ModelJudge):
    """Return the regular items with a document that the judge's assessor has not judged, in campaign order."""
    judged = Judgment.objects.filter(item=OuterRef("pk"), assessor_id=judge.assessor_id)
    return (Item.objects.filter(campaign_id=judge.campaign_id, is_gold=False, pair__document__isnull=False)
            .exclude(Exists(judged)).order_by("position"))


def tokens_used(judge: ModelJudge) -> int:
    row = judge.calls.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    return (row["p"] or 0) + (row["c"] or 0)


def _messages(prompt: PromptTemplate, item: Item, judge: ModelJudge, scale: tuple[int, ...]) -> list[dict]:
    topic, document = item.pair.topic, item.pair.document
    if document is None:  # pending_items leaves these out: the collection has no text to show
        raise ValueError(f"item {item.pk} has no document to show the model")
    values = {
        "query": topic.title, "description": topic.description, "narrative": topic.narrative,
        "title": document.title, "document": document.text[: judge.max_document_chars],
        "grades": ", ".join(map(str, scale)), "min_grade": str(min(scale)), "max_grade": str(max(scale)),
    }
    messages = [{"role": "system", "content": prompts.render(prompt.system, values)}] if prompt.system.strip() else []
    return messages + [{"role": "user", "content": prompts.render(prompt.user, values)}]


def _cost(judge: ModelJudge, outcome: CallOutcome) -> Decimal:
    million = Decimal(1_000_000)
    return (judge.input_price_per_million * outcome.prompt_tokens
            + judge.output_price_per_million * outcome.completion_tokens) / million


def call_record(*, judge: ModelJudge, run: ModelRun | None, item: Item, prompt: PromptTemplate,
                outcome: CallOutcome) -> ModelCall | None:
    """Write one call and, when it was answered, the assessor's judgment (label or skip), in one transaction.

    Returns None when another run answered the pair first (the constraints keep one answer).
    """
    collection = judge.campaign.collection
    binary = judge.prompting == ModelJudge.Prompting.BINARY
    scale = prompts.answer_scale(binary=binary, scale=collection.grades)
    fields = dict(judge=judge, run=run, item=item, prompt=prompt, raw_answer=outcome.text, error=outcome.error,
                  http_status=outcome.http_status, attempts=outcome.attempts, prompt_tokens=outcome.prompt_tokens,
                  completion_tokens=outcome.completion_tokens, latency_seconds=outcome.latency_seconds,
                  cost=_cost(judge, outcome))
    if not outcome.ok:
        return ModelCall.objects.create(status=ModelCall.Status.FAILED, **fields)
    parsed = prompts.parse_answer(outcome.text, scale=scale)
    probabilities = prompts.label_probabilities(outcome.logprobs, offset=parsed.offset, scale=scale)
    grade = None
    if parsed.label is not None:
        grade = prompts.to_collection_grade(parsed.label, binary=binary, scale=collection.grades,
                                            threshold=collection.relevant_threshold)
    try:
        with transaction.atomic():
            call = ModelCall.objects.create(
                status=ModelCall.Status.LABELLED if grade is not None else ModelCall.Status.UNPARSED,
                label=grade, label_probabilities={str(k): round(v, 6) for k, v in probabilities.items()},
                **{**fields, "error": parsed.problem},
            )
            Judgment.objects.create(
                item=item, assessor_id=judge.assessor_id, grade=grade, skipped=grade is None,
                skip_reason="" if grade is not None else (SKIP_PREFIX + parsed.problem)[:300],
                active_seconds=round(outcome.latency_seconds, 3), client_token=f"model-call-{call.pk}",
            )
    except IntegrityError:
        return None
    return call


def _stop_reason(judge: ModelJudge, run: ModelRun) -> tuple[str, str] | None:
    """Return (status, message) when the run must stop before its next batch, else None."""
    status = ModelRun.objects.filter(pk=run.pk).values_list("status", flat=True).first()
    if status != ModelRun.Status.RUNNING:  # cancelled by a lead, or replaced by a resumed run
        return status or ModelRun.Status.FAILED, ""
    campaign_status = Campaign.objects.filter(pk=judge.campaign_id).values_list("status", flat=True).first()
    if campaign_status != Campaign.Status.ACTIVE:
        return ModelRun.Status.STOPPED, "the campaign is no longer active"
    if Assessor.objects.filter(pk=judge.assessor_id, blocked=True).exists():
        return ModelRun.Status.STOPPED, "the model assessor was blocked"
    if judge.max_tokens is not None and tokens_used(judge) >= judge.max_tokens:
        return ModelRun.Status.STOPPED, f"token budget reached ({judge.max_tokens} tokens)"
    return None


def _finish(run: ModelRun, status: str, message: str) -> None:
    # Only a run still running is concluded here: a lead's cancel, or the replacement by a resumed
    # run, already wrote the outcome and wins over whatever this worker concluded.
    ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.RUNNING).update(
        status=status, message=message, finished_at=timezone.now())


def _judge_items(judge, run, prompt, items, scale, client, pool) -> tuple[str, str] | None:
    """Keep up to 2 × concurrency calls in flight, record each answer as it comes; return why it stopped early.

    A sliding window rather than fixed batches: with heavy-tailed latencies a batch would wait for
    its slowest call. The token budget is checked before every call; the other stop conditions
    (they need queries) before the first call and after every ``concurrency × BATCH_PER_THREAD``
    answers. Calls already in flight when a run stops are still recorded (they are paid for), so a
    budget is overshot by at most the calls in flight.
    """
    window, check_every = 2 * judge.concurrency, judge.concurrency * BATCH_PER_THREAD
    upcoming = iter(items)
    in_flight: dict[Future[CallOutcome], Item] = {}
    outcome_of_run, since_check = None, check_every
    tokens = tokens_used(judge)  # kept up to date here, so the token budget is checked before every call
    while True:
        if outcome_of_run is None and since_check >= check_every:
            since_check, outcome_of_run = 0, _stop_reason(judge, run)
        if outcome_of_run is None and judge.max_tokens is not None and tokens >= judge.max_tokens:
            outcome_of_run = (ModelRun.Status.STOPPED, f"token budget reached ({judge.max_tokens} tokens)")
        while outcome_of_run is None and len(in_flight) < window:
            item = next(upcoming, None)
            if item is None:
                break
            future = pool.submit(client.complete, _messages(prompt, item, judge, scale), temperature=judge.temperature,
                                 max_tokens=judge.max_output_tokens, logprobs=judge.request_logprobs)
            in_flight[future] = item
        if not in_flight:
            return outcome_of_run
        finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        for future in finished:
            item = in_flight.pop(future)
            outcome = future.result()
            call_record(judge=judge, run=run, item=item, prompt=prompt, outcome=outcome)
            tokens += outcome.prompt_tokens + outcome.completion_tokens
            counter = "failed" if not outcome.ok else "done"
            ModelRun.objects.filter(pk=run.pk).update(**{counter: F(counter) + 1})
            since_check += 1
            if outcome.fatal and outcome_of_run is None:
                outcome_of_run = (ModelRun.Status.FAILED, f"the endpoint refused the request: {outcome.error}")


def run_execute(*, run: ModelRun, sleep=None) -> ModelRun:
    """Judge the pending pairs of the run's judge; record every call; keep the run's progress and outcome."""
    judge = ModelJudge.objects.select_related("campaign__collection", "assessor").get(pk=run.judge_id)
    claimed = ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.QUEUED).update(
        status=ModelRun.Status.RUNNING, started_at=timezone.now())
    if not claimed and not ModelRun.objects.filter(pk=run.pk, status=ModelRun.Status.RUNNING).exists():
        run.refresh_from_db()
        return run  # cancelled or replaced before a worker took it
    prompt = judge.current_prompt()
    answered = Judgment.objects.filter(assessor_id=judge.assessor_id).count()
    items = pending_items(judge).select_related("pair__topic", "pair__document")
    if judge.max_pairs is not None:
        items = items[: max(0, judge.max_pairs - answered)]
    items = list(items)
    ModelRun.objects.filter(pk=run.pk).update(total=len(items), done=0, failed=0)
    binary = judge.prompting == ModelJudge.Prompting.BINARY
    scale = prompts.answer_scale(binary=binary, scale=judge.campaign.collection.grades)
    client = ChatClient(
        base_url=judge.base_url, model=judge.model, api_key=os.environ.get(judge.api_key_env, "") if judge.api_key_env else "",
        timeout=judge.timeout_seconds, max_attempts=judge.max_attempts, backoff=judge.backoff_seconds,
        limiter=RateLimiter(judge.requests_per_minute), **({"sleep": sleep} if sleep else {}),
    )
    status: str = ModelRun.Status.SUCCEEDED
    message = ""
    try:
        with client, ThreadPoolExecutor(max_workers=judge.concurrency, thread_name_prefix="model-judge") as pool:
            status, message = _judge_items(judge, run, prompt, items, scale, client, pool) or (status, message)
    except Exception as exc:  # noqa: BLE001 - the run row must say it ended, whatever happened
        logger.exception("Model run %s failed", run.pk)
        status, message = ModelRun.Status.FAILED, f"internal error ({type(exc).__name__}); see the worker's log"
    if status == ModelRun.Status.SUCCEEDED:
        failed = ModelRun.objects.filter(pk=run.pk).values_list("failed", flat=True).get()
        message = f"{failed} call(s) failed after retries; run again to retry them" if failed else ""
    _finish(run, status, message)
    if ModelRun.objects.filter(pk=run.pk).values_list("done", flat=True).get():
        priorities_refresh_if_enabled(campaign=judge.campaign)  # new model labels reorder the humans' work
    run.refresh_from_db()
    return run
