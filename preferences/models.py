"""Preference campaigns: side-by-side panels of two rankings, and document-pair preferences.

One model family serves both kinds. An item freezes what is shown: the two sides' docnos
(``a_docnos`` for system A, ``b_docnos`` for system B) and where A was placed
(``left_is_a``, drawn per topic from the campaign seed). Assessors answer in panel terms
(left / same / right); the system-relative outcome is derived on save so that results never
have to re-derive the placement. Allocation mirrors judging: ``required_judgments`` (r),
leases with expiry, SKIP LOCKED claims, one judgment per (item, assessor), revisions kept.
"""
from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from campaign_core.crowd_models import CrowdSettings
from campaign_core.models import AssessorQualityBase, LeaseBase
from collections_app.models import Collection, Run, Topic


def _new_token() -> str:
    return secrets.token_urlsafe(24)


class PrefCampaign(CrowdSettings):
    """A preference campaign over two runs (side by side) or over document pairs."""

    class Kind(models.TextChoices):
        SIDE_BY_SIDE = "sbs", "Side-by-side panels"
        DOC_PAIR = "pair", "Document pairs"

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        CLOSED = "closed", "Closed"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="pref_campaigns")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    run_a = models.ForeignKey(Run, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    run_b = models.ForeignKey(Run, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    depth = models.PositiveSmallIntegerField(default=10, help_text="Results shown per panel.")
    judgments_per_item = models.PositiveSmallIntegerField(default=1, help_text="r: judgments wanted per item.")
    lease_seconds = models.PositiveIntegerField(default=600)
    seed = models.IntegerField(default=0)
    gold_rate = models.FloatField(default=0.0, help_text="Share of gold items mixed into each assessor's work.")
    crowd_token = models.CharField(max_length=64, unique=True, default=_new_token)
    crowd_batch_size = models.PositiveIntegerField(default=10)  # the other crowd settings: CrowdSettings
    gold_accuracy_threshold = models.FloatField(
        default=0.0, help_text="Crowd workers whose gold accuracy falls below this are stopped and excluded."
    )
    gold_min_answers = models.PositiveSmallIntegerField(
        default=3, help_text="Gold answers needed before the accuracy threshold is applied."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="prefcampaign_unique_name")]

    def __str__(self) -> str:
        return self.name


class PrefAssessor(AssessorQualityBase):
    """Someone judging in a preference campaign: an expert account or a crowd worker (session)."""

    class Kind(models.TextChoices):
        EXPERT = "expert", "Expert"
        CROWD = "crowd", "Crowd worker"

    campaign = models.ForeignKey(PrefCampaign, on_delete=models.CASCADE, related_name="assessors")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="pref_assessor_roles")
    platform = models.CharField(max_length=20, blank=True, default="")
    worker_id = models.CharField(max_length=200, blank=True, default="")
    platform_data = models.JSONField(default=dict, blank=True)
    session_key = models.CharField(max_length=64, default=_new_token, unique=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=100, blank=True)
    completion_code_shown_at = models.DateTimeField(
        null=True, blank=True, help_text="When the worker's completion page showed the code (it is shown once).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], condition=Q(user__isnull=False),
                                    name="prefassessor_unique_user"),
            models.UniqueConstraint(fields=["campaign", "platform", "worker_id"], condition=~Q(worker_id=""),
                                    name="prefassessor_unique_worker"),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.worker_id or self.session_key[:6]} in {self.campaign_id}"

    @property
    def label(self) -> str:
        """Return how the lead's pages name the assessor: username, platform:worker id, or link #id."""
        if self.user is not None:
            return self.user.get_username()
        if self.worker_id:
            return f"{self.platform}:{self.worker_id}"
        return f"link #{self.pk}"


class PrefItem(models.Model):
    """What one comparison shows: the frozen sides of systems A and B and their placement."""

    campaign = models.ForeignKey(PrefCampaign, on_delete=models.CASCADE, related_name="items")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()
    a_docnos = models.JSONField(default=list)
    b_docnos = models.JSONField(default=list)
    left_is_a = models.BooleanField(help_text="Placement drawn from the campaign seed and the topic.")
    is_gold = models.BooleanField(default=False, help_text="Gold: side A is clearly better (B degraded).")
    required_judgments = models.PositiveSmallIntegerField(default=1)
    judgment_count = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "position"], name="prefitem_unique_position")]
        indexes = [models.Index(fields=["campaign", "judgment_count", "position"])]

    def __str__(self) -> str:
        return f"{self.campaign_id}#{self.position}"


class PrefLease(LeaseBase):
    """A claim on an item by one assessor until ``expires_at``."""

    item = models.ForeignKey(PrefItem, on_delete=models.CASCADE, related_name="leases")
    assessor = models.ForeignKey(PrefAssessor, on_delete=models.CASCADE, related_name="leases")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "assessor"], name="preflease_unique_assessor")]

    def __str__(self) -> str:
        return f"lease {self.item_id}/{self.assessor_id}"


class PrefJudgment(models.Model):
    """One assessor's answer on one item, in panel terms (``choice``) and system terms (``outcome``).

    choice: -1 left better, 0 about the same, +1 right better. outcome: +1 A better, 0 tie,
    -1 B better — derived from choice and the item's placement when saved.
    """

    item = models.ForeignKey(PrefItem, on_delete=models.PROTECT, related_name="judgments")
    assessor = models.ForeignKey(PrefAssessor, on_delete=models.PROTECT, related_name="judgments")
    choice = models.SmallIntegerField()
    outcome = models.SmallIntegerField()
    strength = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Optional 1 (slight) – 3 (much).")
    comment = models.TextField(blank=True)
    active_seconds = models.FloatField(default=0.0)
    client_token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    revision_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "assessor"], name="prefjudgment_unique_assessor"),
            models.CheckConstraint(condition=Q(choice__in=[-1, 0, 1]), name="prefjudgment_choice_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}/{self.assessor_id}: {self.choice}"


class PrefRevision(models.Model):
    """A change of answer, kept for audit."""

    judgment = models.ForeignKey(PrefJudgment, on_delete=models.CASCADE, related_name="revisions")
    changed_at = models.DateTimeField(auto_now_add=True)
    old_choice = models.SmallIntegerField()
    new_choice = models.SmallIntegerField()
    client_token = models.CharField(max_length=64, unique=True)
    active_seconds = models.FloatField(default=0.0)

    def __str__(self) -> str:
        return f"{self.judgment_id}: {self.old_choice} -> {self.new_choice}"
