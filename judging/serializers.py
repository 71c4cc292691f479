"""API input and output serializers for judging. Item payloads never carry gold flags or others' labels."""
from __future__ import annotations

from rest_framework import serializers

from judging.models import Campaign, Judgment, QrelsVersion


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign as the API lists it, with its keyboard keys and guidelines (read-only here: the lead's
    settings page sets them through ``judging.services.guidelines``, which checks keys for clashes)."""

    collection = serializers.CharField(source="collection.slug")
    pool = serializers.CharField(source="pool.name")
    role = serializers.SerializerMethodField()
    keys = serializers.DictField(child=serializers.CharField(), read_only=True,
                                 help_text='Keyboard key per grade, {"<grade>": "<key>"}; grades left out use the '
                                           "scale's key.")
    guidelines = serializers.CharField(read_only=True, help_text="The campaign's guidelines as Markdown (the judging "
                                                                 "page shows them sanitised, no raw HTML).")

    class Meta:
        model = Campaign
        fields = ["id", "name", "collection", "pool", "status", "split", "overlap", "judgments_per_pair",
                  "order", "lease_seconds", "crowd_enabled", "created_at", "role", "keys", "guidelines"]
        read_only_fields = fields

    def get_role(self, obj: Campaign) -> str:
        return (self.context.get("roles") or {}).get(obj.pk, "assessor")


class MyJudgmentSerializer(serializers.ModelSerializer):
    """The requesting assessor's own judgment (never anyone else's)."""

    class Meta:
        model = Judgment
        fields = ["id", "grade", "skipped", "skip_reason", "comment", "active_seconds", "revision_count",
                  "created_at", "updated_at"]


_TIMESTAMP = serializers.DateTimeField()  # DRF's rendering of a datetime (ISO 8601, current time zone, "Z")


def judgment_data(judgment: Judgment) -> dict:
    """Return ``MyJudgmentSerializer(judgment).data`` without building a serializer per call.

    A ModelSerializer builds its fields anew on every instantiation, which cost the submit
    endpoint about a millisecond; the fields here are the serializer's own, rendered the way
    it renders them (a test holds the two equal).
    """
    data = {}
    for name in MyJudgmentSerializer.Meta.fields:
        value = getattr(judgment, name)
        if name in ("created_at", "updated_at"):
            value = _TIMESTAMP.to_representation(value)
        elif name == "active_seconds" and value is not None:
            value = float(value)
        data[name] = value
    return data


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
        "judgment": judgment_data(judgment) if judgment is not None else None,
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
    ds_options = serializers.DictField(
        child=serializers.FloatField(), required=False, default=dict,
        help_text="Dawid–Skene only: smoothing (default 0.01), tol (1e-5), max_iter (500).")

    def validate_ds_options(self, value: dict) -> dict:
        unknown = set(value) - {"smoothing", "tol", "max_iter"}
        if unknown:
            raise serializers.ValidationError(f"Unknown options: {', '.join(sorted(unknown))}.")
        if "max_iter" in value:
            if value["max_iter"] != int(value["max_iter"]) or not 1 <= value["max_iter"] <= 5000:
                raise serializers.ValidationError("max_iter must be a whole number from 1 to 5000.")
            value["max_iter"] = int(value["max_iter"])
        for name in ("smoothing", "tol"):
            if name in value and not 0 < value[name] <= 100:
                raise serializers.ValidationError(f"{name} must be positive.")
        return value


class PrelsQuerySerializer(serializers.Serializer):
    rule = serializers.ChoiceField(choices=QrelsVersion.Rule.choices, required=False,
                                   default=QrelsVersion.Rule.ADJUDICATED,
                                   help_text="Final-label rule for the judged documents (default adjudicated).")


class QrelsVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username")
    warning = serializers.CharField(source="aggregation_warning", read_only=True,
                                    help_text="Non-empty when Dawid–Skene did not converge or its labels collapsed.")

    class Meta:
        model = QrelsVersion
        fields = ["number", "campaign", "rule", "description", "created_at", "created_by", "num_topics",
                  "num_judgments", "num_relevant", "checksum", "aggregation", "warning"]


class ConflictFilterSerializer(serializers.Serializer):
    """Narrow the conflicts list to one topic and/or to pairs every given assessor labelled."""

    topic = serializers.CharField(required=False, allow_blank=True, default="", max_length=100)
    assessor = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False, default=list,
                                     max_length=20)
    gap = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1,
                                   help_text="Only pairs whose labels lie at least this many grades apart.")
    unresolved = serializers.BooleanField(required=False, default=False, help_text="Only pairs not yet adjudicated.")
    page = serializers.IntegerField(required=False, default=1, min_value=1)
    page_size = serializers.IntegerField(required=False, default=500, min_value=1, max_value=500)


CONFLICTS_API_PAGE = 500


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


# --- the lead's dashboard (output only; the data is a plain dict from judging.dashboard.selectors) ---


class DashboardQuerySerializer(serializers.Serializer):
    """Dashboard options: the agreement statistic, binary collapse, and an hourly rate for the cost."""

    stat = serializers.ChoiceField(choices=(), required=False, default="cohen")
    binary = serializers.BooleanField(required=False, default=False)
    cannot_judge = serializers.BooleanField(
        required=False, default=False,
        help_text="Count the scale's \"could not judge\" grades in agreement (left out by default: such a label is "
                  "no opinion on relevance).")
    rate = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0)
    heatmap = serializers.ChoiceField(choices=("judgments", "lowest", "flagged"), required=False, default="judgments",
                                      help_text="Which assessors the matrix shows (at most 40): most labels, lowest "
                                                "agreement with the others, or flagged first.")

    def __init__(self, *args, **kwargs):
        from judging.dashboard.choices import CHOICES

        super().__init__(*args, **kwargs)
        self.fields["stat"].choices = [(c.key, c.label) for c in CHOICES.values()]


class CannotJudgeSerializer(serializers.Serializer):
    grades = serializers.ListField(child=serializers.IntegerField())
    left_out = serializers.BooleanField()


class DashboardStatisticSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.label
    group_label = serializers.CharField(help_text="The statistic used per topic and over time.")
    binary = serializers.BooleanField()
    low_threshold = serializers.FloatField()
    matrix_limited = serializers.BooleanField(help_text="True when the matrix shows only some assessors (see heatmap).")
    max_matrix_raters = serializers.IntegerField()
    items_counted = serializers.CharField(help_text="Which items (or assessor pairs) the group value rests on.")
    low_pair_overlap = serializers.IntegerField(help_text="low_pairs lists pairs sharing at least this many items.")
    cannot_judge = CannotJudgeSerializer(help_text="The scale's \"could not judge\" grades and whether agreement "
                                                   "left them out (?cannot_judge=true counts them).")


class HeatmapChoiceSerializer(serializers.Serializer):
    choice = serializers.CharField()
    explanation = serializers.CharField()
    assessors_with_labels = serializers.IntegerField()


class FreshnessSerializer(serializers.Serializer):
    computed_at = serializers.FloatField(help_text="When the figures were computed (epoch seconds).")
    age_seconds = serializers.FloatField()
    judgments = serializers.IntegerField(help_text="Judgments recorded when the figures were computed.")
    cached = serializers.BooleanField(help_text="Served from the cache (the data has not changed since).")


class TopicProgressSerializer(serializers.Serializer):
    qid = serializers.CharField()
    title = serializers.CharField()
    required = serializers.IntegerField()  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.required
    judged = serializers.IntegerField()
    share = serializers.FloatField()


class DashboardProgressSerializer(serializers.Serializer):
    required = serializers.IntegerField()  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.required
    judged = serializers.IntegerField()
    remaining = serializers.IntegerField()
    share = serializers.FloatField()
    topics = TopicProgressSerializer(many=True)


class ThroughputSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    overall_per_hour = serializers.FloatField(allow_null=True)
    recent_per_hour = serializers.FloatField(allow_null=True)
    recent_hours = serializers.FloatField()


class EstimateSerializer(serializers.Serializer):
    median_seconds = serializers.FloatField(allow_null=True)
    remaining = serializers.IntegerField()
    active_hours = serializers.FloatField(allow_null=True)
    rate = serializers.FloatField(allow_null=True)
    cost = serializers.FloatField(allow_null=True)
    wall_hours = serializers.FloatField(allow_null=True)


class GradeCountSerializer(serializers.Serializer):
    grade = serializers.IntegerField()
    count = serializers.IntegerField()


class AssessorRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    blocked = serializers.BooleanField()
    blocked_reason = serializers.CharField(required=False, help_text="Why (gold accuracy or a lead's reason).")
    blocked_at = serializers.DateTimeField(required=False, allow_null=True)
    judgments = serializers.IntegerField()
    skips = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    distribution = GradeCountSerializer(many=True)
    agreement = serializers.FloatField(allow_null=True)
    gold_answered = serializers.IntegerField()
    gold_correct = serializers.IntegerField()
    gold_accuracy = serializers.FloatField(allow_null=True)
    flags = serializers.ListField(child=serializers.CharField())


class MatrixCellSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="Assessor id.")
    col = serializers.IntegerField(help_text="Assessor id.")
    value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()


class MatrixSerializer(serializers.Serializer):
    raters = serializers.ListField(child=serializers.IntegerField())
    names = serializers.ListField(child=serializers.CharField())
    cells = MatrixCellSerializer(many=True)


class LowPairSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    a_name = serializers.CharField()
    b_name = serializers.CharField()
    value = serializers.FloatField()
    n_items = serializers.IntegerField()


class TopicAgreementSerializer(serializers.Serializer):
    qid = serializers.CharField()
    title = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)
    low = serializers.BooleanField()
    ci_low = serializers.FloatField(allow_null=True, required=False)
    ci_high = serializers.FloatField(allow_null=True, required=False)
    ci_reason = serializers.CharField(allow_null=True, required=False, help_text="Why there is no interval.")


class TimePointSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.label
    value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)


class GroupValueSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True, help_text="95 % bootstrap interval over items (seed 0).")
    ci_high = serializers.FloatField(allow_null=True)
    ci_reason = serializers.CharField(allow_null=True, required=False, help_text="Why there is no interval.")


class OverTimeSerializer(serializers.Serializer):
    unit = serializers.CharField()
    points = TimePointSerializer(many=True)


class DashboardSerializer(serializers.Serializer):
    """Everything the campaign dashboard page shows, as JSON."""

    statistic = DashboardStatisticSerializer()
    progress = DashboardProgressSerializer()
    throughput = ThroughputSerializer()
    estimate = EstimateSerializer()
    assessors = AssessorRowSerializer(many=True)
    matrix = MatrixSerializer()
    low_pairs = LowPairSerializer(many=True)
    overall = GroupValueSerializer(help_text="All assessors together, with the statistic's group form.")
    topics = TopicAgreementSerializer(many=True)
    over_time = OverTimeSerializer()
    heatmap = HeatmapChoiceSerializer()
    freshness = FreshnessSerializer()
    imported = serializers.BooleanField(help_text="An imported campaign: no throughput, time or cost figures.")


class RejudgeSerializer(serializers.Serializer):
    """Send a topic's and/or an assessor pair's disagreed pairs to one more assessor."""

    token = serializers.CharField(max_length=64, help_text="Idempotency key: a replay changes nothing.")
    topic = serializers.CharField(required=False, allow_blank=True, default="", max_length=100)
    assessors = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False, default=list,
                                      max_length=20)


class RejudgeResultSerializer(serializers.Serializer):
    raised = serializers.ListField(child=serializers.IntegerField(), help_text="Item ids now needing one more judgment.")
    skipped = serializers.ListField(child=serializers.IntegerField(), help_text="Item ids no assessor could take.")
    replay = serializers.BooleanField()


class AssessorBlockSerializer(serializers.Serializer):
    """Block an assessor of the campaign (with an optional reason) or unblock them; audited in the admin log."""

    action = serializers.ChoiceField(choices=["block", "unblock"])
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=200,
                                   help_text="Why (block only); kept on the assessor and in the admin log.")


class AssessorQualitySerializer(serializers.Serializer):
    """An assessor's block state after a lead's block or unblock."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    blocked = serializers.BooleanField()
    blocked_reason = serializers.CharField()
    blocked_at = serializers.DateTimeField(allow_null=True)
    gold_check_waived = serializers.BooleanField(help_text="A lead unblocked them: the automatic gold check is off.")
    changed = serializers.BooleanField(help_text="False when the assessor already was in the requested state.")


class CampaignStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["active", "paused", "finished"],
                                     help_text="paused / finished: no pairs are handed out and no judgments taken")


class CampaignStatusResultSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    changed = serializers.BooleanField(help_text="false when the campaign already had this status")


class JudgmentsImportSerializer(serializers.Serializer):
    """A multipart upload: the file of labels, the imported campaign's name, an optional format."""

    campaign = serializers.CharField(max_length=200)
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["csv", "tsv", "jsonl"], required=False, allow_blank=True)

