"""The API's input for starting a relevance campaign: the lead's form, field for field, as a serializer.

Like ``CampaignCreateForm`` it only parses types and looks up the collection's pool, gold qrels
and members by name; every rule about the values is the ``CampaignPlan``'s, and a plan that
breaks one comes back as 400 field errors carrying the plan's own messages and codes. The
collection is resolved (and the caller checked as its lead) by the view before this runs, so
an outsider learns nothing from validation errors.
"""
from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.fields import get_error_detail
from rest_framework.relations import ManyRelatedField, RelatedField

from campaign_core.plan_rules import LEASE_SECONDS, MAX_CROWD_BATCH, MAX_GOLD_RATE
from collections_app.models import Collection, Membership, Pool, QrelsSet
from judging.models import Campaign
from judging.plan import FLAT_NAMES, MAX_JUDGMENTS_PER_PAIR, CampaignPlan


class PlanChoiceField(serializers.ChoiceField):
    """A choice the schema lists, whose value the plan checks (the same message as the form)."""

    def to_internal_value(self, data: Any) -> str:
        return str(data)


class CampaignCreateSerializer(serializers.Serializer):
    """Start a campaign over a pool of a collection you lead (``POST /api/campaigns/``).

    Options left out take the form's defaults; ``assessors`` left out means the collection's
    assessors, as the form ticks them.
    """

    collection = serializers.SlugField(help_text="Slug of the collection (you must lead it).")
    name = serializers.CharField(max_length=200)
    pool = serializers.SlugRelatedField(slug_field="name", queryset=Pool.objects.none(),
                                        help_text="Name of one of the collection's pools; it is frozen.")
    assessors = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False, queryset=get_user_model().objects.none(),
        help_text="Usernames of members who judge as experts; default: the collection's assessors.")
    split = PlanChoiceField(choices=Campaign.Split.choices, required=False)
    overlap = PlanChoiceField(choices=Campaign.Overlap.choices, required=False)
    judgments_per_pair = serializers.IntegerField(
        required=False, help_text=f"r, for overlap 'replicate': 1 to {MAX_JUDGMENTS_PER_PAIR} (default 1).")
    overlap_fraction = serializers.FloatField(required=False,
                                              help_text="For overlap 'fraction': share of pairs judged twice, 0 to 1.")
    calibration_size = serializers.IntegerField(
        required=False, help_text="For overlap 'calibration': pairs judged by everyone, at least 0.")
    order = PlanChoiceField(choices=Campaign.Order.choices, required=False)
    seed = serializers.IntegerField(required=False, help_text="Seed of every random choice (default 0).")
    lease_seconds = serializers.IntegerField(
        required=False, help_text=f"Lease length, {LEASE_SECONDS[0]} to {LEASE_SECONDS[1]} s (default 600).")
    gold_qrels = serializers.SlugRelatedField(slug_field="name", queryset=QrelsSet.objects.none(), required=False,
                                              allow_null=True, help_text="Name of imported qrels whose labels are gold.")
    gold_rate = serializers.FloatField(required=False, help_text=f"Share of gold pairs, 0 to {MAX_GOLD_RATE}.")
    gold_accuracy_threshold = serializers.FloatField(
        required=False, help_text="Crowd workers below this share of correct gold answers are stopped (0: never).")
    crowd_enabled = serializers.BooleanField(required=False, help_text="Open a crowd batch link.")
    crowd_batch_size = serializers.IntegerField(required=False,
                                                help_text=f"Pairs per crowd worker, 1 to {MAX_CROWD_BATCH} (default 20).")
    crowd_instructions = serializers.CharField(required=False, allow_blank=True)
    crowd_completion_code = serializers.CharField(max_length=100, required=False, allow_blank=True,
                                                  help_text="Platform completion code (Prolific study code).")
    crowd_completion_url = serializers.URLField(max_length=2000, required=False, allow_blank=True)

    def __init__(self, *args: Any, collection: Collection | None = None, **kwargs: Any) -> None:
        """Look names up in ``collection`` only (the schema generator builds one without a collection)."""
        super().__init__(*args, **kwargs)
        self.target = collection
        if collection is None:
            return
        cast(RelatedField, self.fields["pool"]).queryset = Pool.objects.filter(collection=collection)
        cast(RelatedField, self.fields["gold_qrels"]).queryset = QrelsSet.objects.filter(collection=collection)
        cast(ManyRelatedField, self.fields["assessors"]).child_relation.queryset = (
            get_user_model().objects.filter(memberships__collection=collection).distinct())

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Build the campaign plan once; its problems become the fields' errors."""
        options = {name: attrs[name] for name in FLAT_NAMES if name in attrs}
        try:
            attrs["plan"] = CampaignPlan.of(**options)
        except DjangoValidationError as error:
            raise serializers.ValidationError(get_error_detail(error)) from None
        if "assessors" not in attrs:
            attrs["assessors"] = get_user_model().objects.filter(
                memberships__collection=self.target, memberships__role=Membership.Role.ASSESSOR)
        # In username order, as the form lists them: by-topic splits deal topics out in this order.
        attrs["assessors"] = sorted(set(attrs["assessors"]), key=lambda user: user.get_username())
        return attrs
