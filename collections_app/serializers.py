"""API input and output serializers for collections, topics, documents, runs, qrels, pools and jobs."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from collections_app import scales
from collections_app.models import Collection, Document, Job, Membership, Pool, PoolPair, QrelsSet, Run, Topic


class CollectionSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Collection
        fields = ["slug", "name", "description", "guidelines", "scale", "relevant_threshold", "assessors_see_systems",
                  "created_at", "role"]
        read_only_fields = ["slug", "scale", "relevant_threshold", "created_at", "role"]

    def get_role(self, obj: Collection) -> str | None:
        roles = self.context.get("roles") or {}
        return roles.get(obj.pk)


class CollectionCreateSerializer(serializers.Serializer):
    slug = serializers.SlugField(max_length=100)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    scale = serializers.CharField(max_length=2000, default=scales.GRADED, help_text=f"The scale: {scales.SPEC_HELP}.")
    relevant_threshold = serializers.IntegerField(required=False, allow_null=True, default=None)
    cannot_judge = serializers.ListField(child=serializers.IntegerField(), required=False, default=list)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")

    def validate_slug(self, value: str) -> str:
        if Collection.objects.filter(slug=value).exists():
            raise serializers.ValidationError("A collection with this slug exists.", code="slug_taken")
        return value


class MembershipSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")

    class Meta:
        model = Membership
        fields = ["username", "role", "created_at"]


class MembershipInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)

    def validate_username(self, value: str):
        user = get_user_model().objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError("No user with this username.", code="unknown_user")
        return user


class TopicSerializer(serializers.ModelSerializer):
    class Meta:
        model = Topic
        fields = ["qid", "title", "description", "narrative", "metadata"]


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Document
        fields = ["docno", "title", "text", "url", "metadata"]


class RunSerializer(serializers.ModelSerializer):
    class Meta:
        model = Run
        fields = ["tag", "description", "group", "uploaded_at", "source_name", "checksum",
                  "num_topics", "num_lines", "num_unknown_docnos"]


class QrelsSetSerializer(serializers.ModelSerializer):
    class Meta:
        model = QrelsSet
        fields = ["name", "source_name", "checksum", "imported_at", "num_judgments"]


class PoolSerializer(serializers.ModelSerializer):
    runs: serializers.SlugRelatedField[Run] = serializers.SlugRelatedField(many=True, read_only=True, slug_field="tag")
    num_pairs = serializers.IntegerField(read_only=True)

    class Meta:
        model = Pool
        fields = ["name", "strategy", "parameters", "runs", "created_at", "frozen", "num_pairs"]


class PoolPairSerializer(serializers.ModelSerializer):
    qid = serializers.CharField(source="topic.qid")
    judgeable = serializers.SerializerMethodField()

    class Meta:
        model = PoolPair
        fields = ["judging_order", "qid", "docno", "judgeable", "best_rank", "run_ranks", "fused_score"]

    def get_judgeable(self, obj: PoolPair) -> bool:
        return obj.document_id is not None


class JobSerializer(serializers.ModelSerializer):
    collection: serializers.SlugRelatedField[Collection] = serializers.SlugRelatedField(read_only=True,
                                                                                        slug_field="slug")
    file_names = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = ["id", "collection", "kind", "status", "parameters", "file_names", "progress_done",
                  "progress_total", "percent", "result", "errors", "error_code", "created_at",
                  "started_at", "finished_at", "heartbeat_at", "attempts", "history"]

    def get_file_names(self, obj: Job) -> list[str]:
        return [entry["name"] for entry in obj.files]


class FilesUploadSerializer(serializers.Serializer):
    """One file (topics, documents, qrels) with its options."""

    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["trec", "tsv", "jsonl"], required=False)
    name = serializers.CharField(max_length=200, required=False, help_text="Name of the qrels set.")
    allow_off_scale = serializers.BooleanField(
        required=False, help_text="Qrels only: accept grades outside the collection's scale (refused otherwise)."
    )


class RunsUploadSerializer(serializers.Serializer):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)
    replace = serializers.BooleanField(default=False)
    group = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    description = serializers.CharField(required=False, allow_blank=True, default="")


class PoolBuildSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    strategy = serializers.ChoiceField(choices=Pool.Strategy.choices)
    depth = serializers.IntegerField(min_value=1, required=False)
    budget = serializers.IntegerField(min_value=1, required=False)
    fusion = serializers.ChoiceField(choices=["rrf", "combsum", "borda"], default="rrf")
    order = serializers.ChoiceField(choices=["fused", "random"], default="fused")
    seed = serializers.IntegerField(default=0)
    run_tags = serializers.ListField(child=serializers.CharField(), required=False)
    max_runs_per_group = serializers.IntegerField(min_value=1, required=False)
    exclude_judged = serializers.BooleanField(default=True)

    def validate(self, attrs: dict) -> dict:
        if attrs["strategy"] == Pool.Strategy.DEPTH and not attrs.get("depth"):
            raise serializers.ValidationError({"depth": "A depth pool needs a depth."}, code="depth_required")
        if attrs["strategy"] != Pool.Strategy.DEPTH and not attrs.get("budget"):
            raise serializers.ValidationError({"budget": "A budget pool needs a budget."}, code="budget_required")
        return attrs


class PoolDeepenSerializer(serializers.Serializer):
    depth = serializers.IntegerField(min_value=1)
