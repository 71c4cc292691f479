"""Judging: campaigns over a pool, the people who judge, work items, leases and judgments.

Identity: every judge in a campaign is an ``Assessor`` row — an expert (a user
account, a member of the collection) or a crowd worker (no account, identified by
platform + worker id, bound to one campaign's batch) or a model (an LLM judge configured
by ``model_assessors``; no account, its name in ``worker_id``). Judgments, leases and
revisions point at ``Assessor``, so allocation and agreement treat both alike.

Invariants the database itself enforces:
- one judgment per (item, assessor): nobody judges a pair twice;
- one live lease per (item, assessor);
- a judgment's ``client_token`` is unique, so a double submit records one judgment.
"""
from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from campaign_core.crowd_models import CrowdSettings
from campaign_core.models import AssessorQualityBase, LeaseBase
from collections_app.models import Collection, Pool, PoolPair, QrelsSet


def _new_token() -> str:
    return secrets.token_urlsafe(18)


class Campaign(CrowdSettings):
    """A judging campaign: who judges which pairs of a pool, how often, and in what order."""

    class Split(models.TextChoices):
        BY_TOPIC = "by_topic", "By topic (one primary assessor per topic)"
        SHARED_QUEUE = "shared_queue", "Pair by pair from a shared queue"

    class Overlap(models.TextChoices):
        NONE = "none", "Each pair judged once"
        REPLICATE = "replicate", "Every pair judged by r assessors"
        FRACTION = "fraction", "A fraction of pairs judged twice"
        CALIBRATION = "calibration", "A calibration set judged by everyone"

    class Order(models.TextChoices):
        POOL = "pool", "The pool's judging order"
        RANDOM = "random", "Random (seeded)"
        # Adaptive orders (collections_app.pooling.adaptive): priorities rewritten per topic
        # after each judgment by judging.services.adaptive.
        RANK = "rank", "Adaptive: depth-k order (every run's rank 1, then rank 2, …)"
        MTF = "mtf", "Adaptive: move-to-front over runs"
        MM_NS = "mm_ns", "Adaptive: bandit over runs (MM-NS, Losada et al.)"
        UCB = "ucb", "Adaptive: bandit over runs (UCB1)"
        THOMPSON = "thompson", "Adaptive: bandit over runs (Thompson sampling)"
        CAL = "cal", "Adaptive: continuous active learning on document text"

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        FINISHED = "finished", "Finished"

    class Origin(models.TextChoices):
        NATIVE = "native", "Judged here"
        # Judgments loaded from a file (judging.services.imported): the assessors are external
        # workers, active time may be unknown, and the pool is the set of pairs observed.
        IMPORTED = "imported", "Imported judgments"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="campaigns")
    pool = models.ForeignKey(Pool, on_delete=models.PROTECT, related_name="campaigns")
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.NATIVE)

    split = models.CharField(max_length=20, choices=Split.choices, default=Split.SHARED_QUEUE)
    overlap = models.CharField(max_length=20, choices=Overlap.choices, default=Overlap.NONE)
    judgments_per_pair = models.PositiveSmallIntegerField(default=1, help_text="r, for 'replicate'.")
    overlap_fraction = models.FloatField(default=0.0, help_text="Share of pairs judged twice, for 'fraction'.")
    calibration_size = models.PositiveIntegerField(default=0, help_text="Pairs judged by everyone, for 'calibration'.")
    order = models.CharField(max_length=20, choices=Order.choices, default=Order.POOL)
    seed = models.IntegerField(default=0)
    adaptive_ready = models.BooleanField(
        default=False, help_text="Adaptive order: items' priorities have been computed once."
    )
    lease_seconds = models.PositiveIntegerField(default=600)

    gold_qrels = models.ForeignKey(
        QrelsSet, null=True, blank=True, on_delete=models.PROTECT, related_name="gold_campaigns",
        help_text="Imported qrels whose labels serve as gold (known-answer) pairs.",
    )
    gold_rate = models.FloatField(default=0.0, help_text="Share of gold pairs mixed into each assessor's work.")

    # Crowd mode: a batch link /crowd/<crowd_token>/ for Prolific or Mechanical Turk (the other
    # crowd settings come from CrowdSettings, shared with preference campaigns).
    crowd_token = models.CharField(max_length=64, unique=True, default=_new_token)
    crowd_instructions = models.TextField(blank=True)
    gold_accuracy_threshold = models.FloatField(
        default=0.0, help_text="Crowd workers whose gold accuracy falls below this are stopped and excluded."
    )
    gold_min_answers = models.PositiveSmallIntegerField(
        default=3, help_text="Gold answers needed before the accuracy threshold is applied."
    )
    keys = models.JSONField(
        default=dict, blank=True,
        help_text="Keyboard key per grade, {\"<grade>\": \"<key>\"}; grades left out use the scale's key.",
    )
    guidelines = models.TextField(
        blank=True, help_text="Markdown guidelines for this campaign, shown beside the topic (sanitised, no raw HTML)."
    )

    class Meta:
        ordering = ["collection", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="campaign_unique_name")]

    def __str__(self) -> str:
        return self.name


class Assessor(AssessorQualityBase):
    """Someone who judges in one campaign: an expert with an account, or a crowd worker."""

    class Kind(models.TextChoices):
        EXPERT = "expert", "Expert"
        CROWD = "crowd", "Crowd worker"
        MODEL = "model", "Model (LLM judge)"
        IMPORTED = "imported", "External worker (imported labels)"

    class Platform(models.TextChoices):
        NONE = "", "None"
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Mechanical Turk"
        LINK = "link", "Plain link"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assessors")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="assessor_roles"
    )
    platform = models.CharField(max_length=20, choices=Platform.choices, blank=True, default="")
    worker_id = models.CharField(max_length=200, blank=True, default="")
    platform_data = models.JSONField(default=dict, blank=True, help_text="STUDY_ID, SESSION_ID, assignmentId, hitId…")
    session_key = models.CharField(max_length=64, default=_new_token, unique=True)
    topics = models.ManyToManyField(
        "collections_app.Topic", blank=True, related_name="primary_assessors",
        help_text="Topics this assessor owns when the campaign is split by topic.",
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=100, blank=True)
    completion_code_shown_at = models.DateTimeField(
        null=True, blank=True, help_text="When the worker's completion page showed the code (it is shown once).")

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=Q(user__isnull=False), name="assessor_unique_user"
            ),
            models.UniqueConstraint(
                fields=["campaign", "platform", "worker_id"], condition=Q(kind="crowd"), name="assessor_unique_worker"
            ),
            models.UniqueConstraint(
                fields=["campaign", "worker_id"], condition=Q(kind="imported"), name="assessor_unique_imported"
            ),
            # Experts are accounts; every other kind (crowd, imported, ...) is a worker id without one.
            models.CheckConstraint(
                condition=(Q(kind="expert", user__isnull=False) | (~Q(kind="expert") & Q(user__isnull=True))),
                name="assessor_kind_matches_identity",
            ),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """Return how the lead's pages name the assessor (see :func:`assessor_label`)."""
        return assessor_label(kind=self.kind, username=self.user.get_username() if self.user is not None else None,
                              platform=self.platform, worker_id=self.worker_id)


def assessor_label(*, kind: str, username: str | None, platform: str, worker_id: str) -> str:
    """Return how the lead's pages name an assessor: username, ``model:<worker id>`` or ``<platform or kind>:<worker id>``.

    A plain function of the columns so that pages which load assessors as ``values_list``
    rows (the dashboard) name them exactly as :attr:`Assessor.label` does, without a model
    instance or a query per row.
    """
    if username:
        return username
    if kind == Assessor.Kind.MODEL:
        return f"model:{worker_id}"
    return f"{platform or kind}:{worker_id}"


class Item(models.Model):
    """A unit of work in a campaign: one pool pair (or a gold pair) and how many judgments it needs."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    pair = models.ForeignKey(PoolPair, on_delete=models.PROTECT, related_name="items")
    position = models.PositiveIntegerField(help_text="Place in the campaign's order, from 1.")
    priority = models.BigIntegerField(
        default=0, help_text="Adaptive order: items are handed out by priority (ascending), then position."
    )
    required_judgments = models.PositiveSmallIntegerField(default=1)
    judgment_count = models.PositiveSmallIntegerField(
        default=0, help_text="Judgments recorded so far (kept in step under the item's row lock)."
    )
    is_gold = models.BooleanField(default=False)
    gold_grade = models.IntegerField(null=True, blank=True)
    is_calibration = models.BooleanField(default=False, help_text="Judged by every assessor of the campaign.")
    primary_assessor = models.ForeignKey(
        Assessor, null=True, blank=True, on_delete=models.SET_NULL, related_name="primary_items"
    )

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "pair"], name="item_unique_pair"),
            models.UniqueConstraint(fields=["campaign", "position"], name="item_unique_position"),
            models.CheckConstraint(condition=Q(judgment_count__gte=0), name="item_count_nonnegative"),
        ]
        indexes = [
            models.Index(fields=["campaign", "judgment_count", "position"]),
            models.Index(fields=["campaign", "priority", "position"], name="item_campaign_priority"),
        ]

    def __str__(self) -> str:
        return f"item {self.position} of {self.campaign_id}"


class Lease(LeaseBase):
    """A time-limited claim of an item by an assessor; expired leases return the item to the queue."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="leases")
    assessor = models.ForeignKey(Assessor, on_delete=models.CASCADE, related_name="leases")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "assessor"], name="lease_unique_assessor")]

    def __str__(self) -> str:
        return f"lease {self.item_id} → {self.assessor_id} until {self.expires_at:%H:%M:%S}"


class Judgment(models.Model):
    """One assessor's label for one item (or a skip with a reason), with active time."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="judgments")
    assessor = models.ForeignKey(Assessor, on_delete=models.PROTECT, related_name="judgments")
    grade = models.IntegerField(null=True, blank=True, help_text="Null when skipped.")
    skipped = models.BooleanField(default=False)
    skip_reason = models.CharField(max_length=300, blank=True)
    comment = models.TextField(blank=True)
    active_seconds = models.FloatField(
        null=True, blank=True, default=0.0,
        help_text="Time on the pair measured in the browser; null when unknown (imported labels without timings).",
    )
    client_token = models.CharField(max_length=64, unique=True, help_text="Idempotency key sent by the client.")
    # A default rather than auto_now_add, so imported judgments keep the time the file gives them.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    revision_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["item", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["item", "assessor"], name="judgment_unique_assessor"),
            models.CheckConstraint(
                condition=Q(skipped=True, grade__isnull=True) | Q(skipped=False, grade__isnull=False),
                name="judgment_grade_or_skip",
            ),
        ]
        indexes = [models.Index(fields=["assessor", "created_at"])]

    def __str__(self) -> str:
        return f"{self.assessor_id} → {self.grade if not self.skipped else 'skip'} on {self.item_id}"


class JudgmentRevision(models.Model):
    """History of a judgment: who changed it, when, and from what to what. Never deleted."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="revisions")
    changed_by = models.ForeignKey(Assessor, on_delete=models.PROTECT, related_name="+")
    changed_at = models.DateTimeField(default=timezone.now, editable=False)
    old_grade = models.IntegerField(null=True, blank=True)
    new_grade = models.IntegerField(null=True, blank=True)
    old_skipped = models.BooleanField(default=False)
    new_skipped = models.BooleanField(default=False)
    client_token = models.CharField(max_length=64, unique=True, help_text="Idempotency key of the revising submit.")
    active_seconds = models.FloatField(null=True, blank=True, default=0.0)

    class Meta:
        ordering = ["judgment", "changed_at"]

    def __str__(self) -> str:
        return f"{self.old_grade} → {self.new_grade} by {self.changed_by_id} at {self.changed_at:%Y-%m-%d %H:%M}"


class Adjudication(models.Model):
    """A lead's final label for a disagreed pair, with a note."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="adjudications")
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="adjudication")
    grade = models.IntegerField()
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"adjudicated {self.grade} on {self.item_id}"


class QrelsVersion(models.Model):
    """A frozen set of final labels: never changes once written; downloadable and comparable later."""

    class Rule(models.TextChoices):
        PRIMARY = "primary", "Single / primary assessor"
        MAJORITY = "majority", "Majority vote"
        ADJUDICATED = "adjudicated", "Adjudicated (lead's label, else majority)"
        GOLD_WEIGHTED = "gold_weighted", "Gold-accuracy-weighted vote"
        DAWID_SKENE = "dawid_skene", "Dawid–Skene (EM over assessors' confusion matrices)"
        HYBRID = "hybrid", "Hybrid (humans' label where they judged, else the model's)"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="qrels_versions")
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="qrels_versions")
    number = models.PositiveIntegerField(help_text="1, 2, 3… per collection.")
    rule = models.CharField(max_length=30, choices=Rule.choices)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    num_topics = models.PositiveIntegerField(default=0)
    num_judgments = models.PositiveIntegerField(default=0)
    num_relevant = models.PositiveIntegerField(default=0)
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the TREC qrels text.")
    content = models.TextField(help_text="The qrels in TREC format (qid 0 docno grade), exactly as downloaded.")
    aggregation = models.JSONField(
        default=dict, blank=True,
        help_text="How an aggregating rule ended (Dawid–Skene: iterations, converged, log_likelihood, tolerance, "
                  "smoothing, collapsed).",
    )

    class Meta:
        ordering = ["collection", "-number"]
        constraints = [models.UniqueConstraint(fields=["collection", "number"], name="qrelsversion_unique_number")]

    def __str__(self) -> str:
        return f"{self.collection.slug} qrels v{self.number}"

    @property
    def aggregation_warning(self) -> str:
        """Say what a lead must know about how an aggregating rule ended ("" when nothing)."""
        info = self.aggregation or {}
        notes = []
        if info.get("converged") is False:
            notes.append(f"Dawid–Skene stopped after {info.get('iterations')} rounds without converging "
                         f"(tolerance {info.get('tolerance')}); its labels may still change with more rounds")
        if info.get("collapsed"):
            notes.append(f"labels collapsed: {info.get('collapse_reason')}")
        return "; ".join(notes)
