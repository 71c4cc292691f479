"""The API's input for starting a preference campaign: the lead's form, field for field, as a serializer.

Like ``CampaignForm`` it parses types and looks names up in the collection (runs by tag, topics
by qid, assessors by username); what is judged is checked by ``sides_problems`` and the options
by the ``PrefPlan``, whose problems come back as 400 field errors with the form's messages.
Document pairs are lists of three strings, ``[qid, docno A, docno B]``, the form's lines split.
"""
from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.fields import get_error_detail
from rest_framework.relations import ManyRelatedField, RelatedField

from campaign_core.plan_rules import LEASE_SECONDS, MAX_CROWD_BATCH, MAX_GOLD_RATE, raise_problems
from collections_app.models import Collection, Run, Topic
from preferences import plan
from preferences.models import PrefCampaign


def _pairs(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.ListField(child=serializers.CharField()), required=False,
                                 help_text=help_text)


class PrefCampaignCreateSerializer(serializers.Serializer):
    """Start a side-by-side (``sbs``) or document-pair (``pair``) campaign; options left out take the form's defaults."""

    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=PrefCampaign.Kind.choices)
    run_a = serializers.SlugRelatedField(slug_field="tag", queryset=Run.objects.none(), required=False,
                                         allow_null=True, help_text="Side by side: tag of system A's run.")
    run_b = serializers.SlugRelatedField(slug_field="tag", queryset=Run.objects.none(), required=False,
                                         allow_null=True, help_text="Side by side: tag of system B's run.")
    topics = serializers.SlugRelatedField(slug_field="qid", many=True, required=False, queryset=Topic.objects.none(),
                                          help_text="Side by side: qids of the topics to compare.")
    gold_topics = serializers.SlugRelatedField(slug_field="qid", many=True, required=False,
                                               queryset=Topic.objects.none(),
                                               help_text="Side by side: qids also shown as gold items.")
    pairs = _pairs("Document pairs: [qid, docno A, docno B] each.")
    gold_pairs = _pairs("Document pairs: gold pairs, [qid, better docno, worse docno] each.")
    depth = serializers.IntegerField(required=False,
                                     help_text=f"Results per panel, 1 to {plan.MAX_DEPTH} (default 10).")
    judgments_per_item = serializers.IntegerField(
        required=False, help_text=f"Judgments wanted per item, 1 to {plan.MAX_JUDGMENTS_PER_ITEM} (default 1).")
    seed = serializers.IntegerField(required=False, help_text="Seed of the left/right placement (default 0).")
    gold_rate = serializers.FloatField(required=False, help_text=f"Share of gold items, 0 to {MAX_GOLD_RATE}.")
    gold_accuracy_threshold = serializers.FloatField(
        required=False, help_text="Crowd workers below this share of correct gold answers are stopped (0: never).")
    gold_min_answers = serializers.IntegerField(
        required=False,
        help_text=f"Gold answers before the threshold applies, 1 to {plan.MAX_GOLD_MIN_ANSWERS} (default 3).")
    lease_seconds = serializers.IntegerField(
        required=False, help_text=f"Lease length, {LEASE_SECONDS[0]} to {LEASE_SECONDS[1]} s (default 600).")
    crowd_enabled = serializers.BooleanField(required=False, help_text="Open a crowd link.")
    crowd_batch_size = serializers.IntegerField(
        required=False, help_text=f"Items per crowd worker, gold included, 1 to {MAX_CROWD_BATCH} (default 10).")
    crowd_completion_code = serializers.CharField(max_length=100, required=False, allow_blank=True,
                                                  help_text="Platform completion code (Prolific study code).")
    crowd_completion_url = serializers.URLField(max_length=2000, required=False, allow_blank=True)
    assessors = serializers.SlugRelatedField(slug_field="username", many=True, required=False,
                                             queryset=get_user_model().objects.none(),
                                             help_text="Usernames of members who judge as experts (default: none).")

    def __init__(self, *args: Any, collection: Collection | None = None, **kwargs: Any) -> None:
        """Look names up in ``collection`` only (the schema generator builds one without a collection)."""
        super().__init__(*args, **kwargs)
        self.target = collection
        if collection is None:
            return
        for name in ("run_a", "run_b"):
            cast(RelatedField, self.fields[name]).queryset = Run.objects.filter(collection=collection)
        for name in ("topics", "gold_topics"):
            cast(ManyRelatedField, self.fields[name]).child_relation.queryset = collection.topics.all()
        cast(ManyRelatedField, self.fields["assessors"]).child_relation.queryset = (
            get_user_model().objects.filter(memberships__collection=collection).distinct())

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Check what is judged, parse the pairs and build the plan; every problem lands on its field."""
        problems: dict[str, list] = {}
        try:
            raise_problems(plan.sides_problems(kind=attrs["kind"], run_a=attrs.get("run_a"), run_b=attrs.get("run_b"),
                                          topics=attrs.get("topics") or []))
        except DjangoValidationError as error:
            problems.update(get_error_detail(error))
        if attrs["kind"] == PrefCampaign.Kind.DOC_PAIR and self.target is not None:
            topics = {t.qid: t for t in self.target.topics.all()}
            for option, label in (("pairs", "Pairs"), ("gold_pairs", "Gold pairs")):
                try:
                    attrs[option] = plan.pairs_from_rows(attrs.get(option, []), topics, option=option, label=label)
                except DjangoValidationError as error:
                    problems.update(get_error_detail(error))
        try:
            attrs["plan"] = plan.PrefPlan.of(**{name: attrs.pop(name) for name in plan.OPTIONS if name in attrs})
        except DjangoValidationError as error:
            problems.update(get_error_detail(error))
        if problems:
            raise serializers.ValidationError(problems)
        return attrs
