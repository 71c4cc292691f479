"""Shapes of the preference API's responses, so the OpenAPI schema documents them."""
from __future__ import annotations

from rest_framework import serializers


class CampaignSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text="sbs (side by side) or pair (document pairs)")
    status = serializers.CharField()
    items = serializers.IntegerField(help_text="items to judge, gold included")


class StatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["active", "closed"],
                                     help_text="closed: no more work is handed out or accepted; active: reopen")


class StatusResultSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    changed = serializers.BooleanField(help_text="false when the campaign already had this status")


class TallySerializer(serializers.Serializer):
    """Wins of system A (or of the first document), ties and losses, with the sign test."""

    wins = serializers.IntegerField()
    ties = serializers.IntegerField()
    losses = serializers.IntegerField()
    n = serializers.IntegerField(help_text="wins + ties + losses")
    p_value = serializers.FloatField(allow_null=True, help_text="two-sided sign test, ties ignored")
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / (wins + losses)")
    ci_low = serializers.FloatField(allow_null=True, help_text="95% Wilson interval of the win rate")
    ci_high = serializers.FloatField(allow_null=True)


class AgreementSerializer(serializers.Serializer):
    statistic = serializers.CharField()
    value = serializers.FloatField(allow_null=True, help_text="nominal α on outcomes; null when undefined")
    n_items = serializers.IntegerField(help_text="items judged at least twice")
    raw_agreement = serializers.FloatField(allow_null=True, help_text="observed agreement between pairs of judgments")
    ci_low = serializers.FloatField(allow_null=True, help_text="95% bootstrap interval over items")
    ci_high = serializers.FloatField(allow_null=True)
    undefined_reason = serializers.CharField(allow_null=True)


class GoldSerializer(serializers.Serializer):
    correct = serializers.IntegerField()
    answered = serializers.IntegerField()


class ExcludedSerializer(serializers.Serializer):
    judgments = serializers.IntegerField(help_text="regular judgments by blocked assessors, left out of every figure")
    gold = serializers.IntegerField(help_text="gold answers by blocked assessors, left out of the gold totals")
    assessors = serializers.IntegerField(help_text="blocked assessors who had judged")


class AssessorSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    judgments = serializers.IntegerField(help_text="gold included")
    gold_correct = serializers.IntegerField()
    gold_answered = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True, help_text="median active seconds per judgment")
    blocked = serializers.BooleanField()
    blocked_reason = serializers.CharField(allow_blank=True)


class ResultsSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    system_a = serializers.CharField()
    system_b = serializers.CharField()
    overall = TallySerializer(help_text="every judgment of every assessor")
    topic_votes = TallySerializer(help_text="one vote per topic: the majority of its judgments")
    per_topic = serializers.DictField(child=TallySerializer())
    position_bias = TallySerializer(help_text="wins of the left panel, whatever system it showed")
    agreement = AgreementSerializer(allow_null=True)
    gold = GoldSerializer(help_text="gold answers of assessors who are not blocked")
    excluded = ExcludedSerializer()
    assessors = AssessorSerializer(many=True)
