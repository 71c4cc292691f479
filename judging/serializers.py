"""API input and output serializers for judging. Item payloads never carry gold flags or others' labels."""
from __future__ import annotations

from rest_framework import serializers

from judging.models import Campaign, Judgment, QrelsVersion


class CampaignSerializer(serializers.ModelSerializer):
    collection = serializers.CharField(source="collection.slug")
    pool = serializers.CharField(source="pool.name")
    role = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = ["id", "name", "collection", "pool", "status", "split", "overlap", "judgments_per_pair",
                  "order", "lease_seconds", "crowd_enabled", "created_at", "role"]

    def get_role(self, obj: Campaign) -> str:
        return (self.context.get("roles") or {}).get(obj.pk, "assessor")


class MyJudgmentSerializer(serializers.ModelSerializer):
    """The requesting assessor's own judgment (never anyone else's)."""

    class Meta:
        model = Judgment
        fields = ["id", "grade", "skipped", "skip_reason", "comment", "active_seconds", "revision_count",
                  "created_at", "updated_at"]


def item_data(item, *, scale: list, judgment: Judgment | None = None) -> dict:
    """Serialize a pair for judging: topic, document, scale and (when revisiting) my own judgment."""
    pair = item.pair
    topic, document = pair.topic, pair.document
    return {
        "item": item.pk,
        "topic": {"qid": topic.qid, "title": topic.title, "description": topic.description,
                  "narrative": topic.narrative},
        "document": {"docno": pair.docno, "title": document.title if document else "",
                     "text": document.text if document else "", "url": document.url if document else ""},
        "scale": scale,
        "judgment": MyJudgmentSerializer(judgment).data if judgment is not None else None,
    }


class SubmitSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    grade = serializers.IntegerField(required=False, allow_null=True, default=None)
    skipped = serializers.BooleanField(required=False, default=False)
    skip_reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=300)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    active_seconds = serializers.FloatField(required=False, default=0.0)
    client_token = serializers.CharField(max_length=64)

    def validate(self, attrs):
        if not attrs["skipped"] and attrs["grade"] is None:
            raise serializers.ValidationError({"grade": ["A grade is required unless the pair is skipped."]},
                                              code="bad_grade")
        return attrs


class AdjudicateSerializer(serializers.Serializer):
    item = serializers.IntegerField()
    grade = serializers.IntegerField()
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class FreezeSerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=QrelsVersion.Rule.choices)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class QrelsVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username")

    class Meta:
        model = QrelsVersion
        fields = ["number", "campaign", "rule", "description", "created_at", "created_by", "num_topics",
                  "num_judgments", "num_relevant", "checksum"]


def conflict_data(row: dict) -> dict:
    """Serialize one conflicts() row for a lead."""
    item, adjudication = row["item"], row["adjudication"]
    return {
        "item": item.pk,
        "qid": item.pair.topic.qid,
        "docno": item.pair.docno,
        "labels": [
            {"assessor_id": x["assessor_id"], "assessor": x["assessor"], "kind": x["kind"], "blocked": x["blocked"],
             "grade": x["grade"], "skipped": x["skipped"], "active_seconds": x["seconds"], "comment": x["comment"],
             "at": x["at"].isoformat()}
            for x in row["labels"]
        ],
        "adjudication": None if adjudication is None else {
            "grade": adjudication.grade, "note": adjudication.note, "decided_at": adjudication.decided_at.isoformat(),
        },
    }
