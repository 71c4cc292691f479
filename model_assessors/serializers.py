"""Serializers of the model-assessor API: judges in and out, runs out. No API key ever goes either way."""
from __future__ import annotations

from rest_framework import serializers

from model_assessors.forms import CONFIG_FIELDS
from model_assessors.models import ModelJudge


class JudgeSerializer(serializers.ModelSerializer):
    """A judge's configuration (the key's variable name, never the key) and its current prompt version."""

    assessor = serializers.IntegerField(source="assessor_id", read_only=True)
    prompt_version = serializers.SerializerMethodField()

    class Meta:
        model = ModelJudge
        fields = ("id", "name", "assessor", "prompt_version", "created_at") + CONFIG_FIELDS
        read_only_fields = ("id", "assessor", "prompt_version", "created_at")

    def get_prompt_version(self, judge: ModelJudge) -> int | None:
        prompt = judge.current_prompt()
        return prompt.version if prompt else None


class RunStartSerializer(serializers.Serializer):
    resume = serializers.BooleanField(default=False)
