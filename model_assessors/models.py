"""Model assessors: an LLM judge on an OpenAI-compatible endpoint, its prompts, its calls and its runs.

A ``ModelJudge`` configures one judge of a campaign and owns that campaign's ``Assessor`` row of
kind ``model``: its labels are ordinary ``Judgment`` rows of that assessor, so agreement, the
dashboard, conflicts, aggregation and exports see them as anyone else's, and the kind marks
them as model labels. The API key is never stored: the judge names the environment variable
that holds it (``api_key_env``), read by the worker when it calls.

``PromptTemplate`` rows are versions: editing a prompt writes version n + 1 and the judge points
at the newest; a call records the version it used. ``ModelCall`` is one request with its raw
answer, parsed label (or why none), tokens, latency and cost. ``ModelRun`` is one pass of the
background task over the pairs still to judge, with its progress.
"""
from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from judging.models import Assessor, Campaign, Item


class ModelJudge(models.Model):
    """One LLM judge of a campaign: where to call it, how, and how much it may spend."""

    class Prompting(models.TextChoices):
        GRADED = "graded", "Graded (UMBRELA-style, the collection's whole scale)"
        BINARY = "binary", "Binary (relevant or not)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="model_judges")
    assessor = models.OneToOneField(Assessor, on_delete=models.PROTECT, related_name="model_judge")
    name = models.CharField(max_length=100, help_text="Shown as model:<name> among the assessors.")
    base_url = models.URLField(max_length=500, help_text="OpenAI-compatible API root, e.g. https://api.openai.com/v1.")
    model = models.CharField(max_length=200, help_text="The model name sent with each request.")
    api_key_env = models.CharField(
        max_length=100, blank=True,
        help_text="Name of the environment variable holding the API key (empty: no key, e.g. a local server).",
    )
    prompting = models.CharField(max_length=10, choices=Prompting.choices, default=Prompting.GRADED)
    temperature = models.FloatField(default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)])
    max_output_tokens = models.PositiveIntegerField(default=200, help_text="max_tokens of each answer.")
    max_document_chars = models.PositiveIntegerField(default=6000, help_text="Longer document text is cut here.")
    request_logprobs = models.BooleanField(
        default=False, help_text="Ask for log-probabilities (label probabilities for uncertainty ordering)."
    )
    max_pairs = models.PositiveIntegerField(null=True, blank=True, help_text="Budget: pairs answered at most.")
    max_tokens = models.PositiveBigIntegerField(null=True, blank=True, help_text="Budget: total tokens at most.")
    concurrency = models.PositiveSmallIntegerField(default=4, validators=[MinValueValidator(1), MaxValueValidator(64)])
    requests_per_minute = models.PositiveIntegerField(default=60, help_text="0 = no limit.")
    timeout_seconds = models.FloatField(default=60.0, validators=[MinValueValidator(0.01)])
    max_attempts = models.PositiveSmallIntegerField(default=5, validators=[MinValueValidator(1), MaxValueValidator(20)])
    backoff_seconds = models.FloatField(default=1.0, help_text="First retry waits this long, doubling each time.")
    input_price_per_million = models.DecimalField(max_digits=12, decimal_places=4, default=0)
    output_price_per_million = models.DecimalField(max_digits=12, decimal_places=4, default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="modeljudge_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.model})"

    def current_prompt(self) -> PromptTemplate | None:
        """Return the newest version of this judge's prompt (None before the first is written)."""
        return self.prompts.order_by("-version").first()


class PromptTemplate(models.Model):
    """One version of a judge's prompt; never edited: a change writes the next version."""

    judge = models.ForeignKey(ModelJudge, on_delete=models.CASCADE, related_name="prompts")
    version = models.PositiveIntegerField()
    system = models.TextField(blank=True)
    user = models.TextField(help_text="Placeholders: {query} {description} {narrative} {title} {document} {grades}…")
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["judge", "-version"]
        constraints = [models.UniqueConstraint(fields=["judge", "version"], name="prompt_unique_version")]

    def __str__(self) -> str:
        return f"{self.judge.name} prompt v{self.version}"


class ModelRun(models.Model):
    """One pass of the judging task over the pairs the judge has not answered yet."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Finished"
        STOPPED = "stopped", "Stopped (budget reached or campaign closed)"
        CANCELLED = "cancelled", "Cancelled by a lead"
        FAILED = "failed", "Failed"

    judge = models.ForeignKey(ModelJudge, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="Pairs this run set out to judge.")
    done = models.PositiveIntegerField(default=0, help_text="Pairs answered (labels and skips) by this run.")
    failed = models.PositiveIntegerField(default=0, help_text="Pairs whose call failed after every retry.")
    message = models.TextField(blank=True)
    task_id = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.judge.name}: {self.status}"

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class ModelCall(models.Model):
    """One request to the endpoint for one pair: what was asked, what came back, what it cost."""

    class Status(models.TextChoices):
        LABELLED = "labelled", "Labelled"
        UNPARSED = "unparsed", "Answer did not parse (skip)"
        FAILED = "failed", "Failed after retries"

    judge = models.ForeignKey(ModelJudge, on_delete=models.CASCADE, related_name="calls")
    run = models.ForeignKey(ModelRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="calls")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="model_calls")
    prompt = models.ForeignKey(PromptTemplate, on_delete=models.PROTECT, related_name="calls")
    status = models.CharField(max_length=10, choices=Status.choices)
    raw_answer = models.TextField(blank=True)
    label = models.IntegerField(null=True, blank=True)
    label_probabilities = models.JSONField(
        default=dict, blank=True, help_text="{grade: probability} from log-probabilities, when returned."
    )
    error = models.TextField(blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=1)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_seconds = models.FloatField(default=0.0)
    cost = models.DecimalField(max_digits=14, decimal_places=8, default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judge", "created_at", "id"]
        constraints = [
            # An answered pair is never asked again with the same prompt version (resumable runs).
            models.UniqueConstraint(fields=["judge", "item", "prompt"], condition=~Q(status="failed"),
                                    name="modelcall_one_answer"),
            models.CheckConstraint(condition=Q(status="labelled", label__isnull=False) | ~Q(status="labelled"),
                                   name="modelcall_label_when_labelled"),
        ]
        indexes = [models.Index(fields=["judge", "item"])]

    def __str__(self) -> str:
        return f"{self.judge.name} on {self.item_id}: {self.status}"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UncertaintyOrder(models.Model):
    """A campaign whose human work is ordered by model uncertainty; re-applied after each model run."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="uncertainty_order")
    enabled = models.BooleanField(default=False)
    applied_at = models.DateTimeField(null=True, blank=True)
    items_ordered = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"uncertainty order of {self.campaign_id}: {'on' if self.enabled else 'off'}"
