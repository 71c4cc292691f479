"""Input and output serializers of the evaluation API (also the OpenAPI schema)."""
from __future__ import annotations

from rest_framework import serializers

from evaluation.estimates import ESTIMATE_NAMES
from evaluation.leaderboard import IR_MEASURES_NAMES, MEASURE_NAMES, measure_name
from evaluation.significance import MAX_RUNS

SOURCE_HELP = "set:<id>, version:<number> or campaign:<id>:<rule>; empty for the default (newest frozen version, else newest imported set)."


def _leaderboard_measure(value: str) -> str:
    """Return a chosen measure's leaderboard name (the choices hold only names measure_name knows)."""
    name = measure_name(value)
    if name is None:
        raise serializers.ValidationError(f"Unknown measure {value!r}.", code="bad_measure")
    return name


class SourceQuerySerializer(serializers.Serializer):
    source = serializers.CharField(required=False, allow_blank=True, default="", help_text=SOURCE_HELP)  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.source


class LeaderboardQuerySerializer(SourceQuerySerializer):
    sort = serializers.ChoiceField(
        choices=MEASURE_NAMES + ESTIMATE_NAMES, required=False, allow_blank=True, default="",
        help_text="Measure to sort by; default map, or xinfAP for a sampled campaign's labels. The estimates "
                  "(infAP, xinfAP, infNDCG_cut_10) sort only sources that have them, others fall back to map.")
    order = serializers.ChoiceField(choices=("desc", "asc"), required=False, default="desc")


MEASURE_CHOICES = MEASURE_NAMES + tuple(IR_MEASURES_NAMES)


class SignificanceQuerySerializer(SourceQuerySerializer):
    measure = serializers.ChoiceField(choices=MEASURE_CHOICES, required=False, default="map",
                                      help_text="A leaderboard measure, by its trec_eval or ir_measures name (nDCG@10).")
    runs = serializers.IntegerField(required=False, default=MAX_RUNS, min_value=2, max_value=MAX_RUNS,
                                    help_text="Test the best N runs by the measure.")
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**32 - 1)

    def validate_measure(self, value: str) -> str:
        return _leaderboard_measure(value)


class StabilityQuerySerializer(serializers.Serializer):
    measure = serializers.ChoiceField(choices=MEASURE_CHOICES, required=False, default="map",
                                      help_text="A leaderboard measure, by its trec_eval or ir_measures name (nDCG@10).")
    a = serializers.CharField(required=False, allow_blank=True, default="", help_text="First qrels source. " + SOURCE_HELP)
    b = serializers.CharField(required=False, allow_blank=True, default="", help_text="Second qrels source.")
    campaign = serializers.IntegerField(required=False, allow_null=True, default=None,
                                        help_text="Compare each pair of this campaign's assessors instead.")

    def validate_measure(self, value: str) -> str:
        return _leaderboard_measure(value)

    def validate(self, attrs):
        if attrs["campaign"] is None and not attrs["b"]:
            raise serializers.ValidationError("Give a second source b, or a campaign.", code="bad_source")
        return attrs


class PoolBiasQuerySerializer(SourceQuerySerializer):
    depth = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=10_000,
                                     help_text="Pool depth; default the newest depth pool's, else 100.")
    by = serializers.ChoiceField(choices=("run", "group"), required=False, default="run")


class SourceSerializer(serializers.Serializer):
    token = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.label


class ScoresSerializer(serializers.Serializer):
    map = serializers.FloatField()
    ndcg_cut_10 = serializers.FloatField()
    P_10 = serializers.FloatField()
    Rprec = serializers.FloatField()
    bpref = serializers.FloatField()
    judged_10 = serializers.FloatField()


class RunEstimatesSerializer(serializers.Serializer):
    infAP = serializers.FloatField(help_text="trec_eval's inferred AP (assumes one uniform sample of the pool).")
    xinfAP = serializers.FloatField(help_text="Stratified estimate of AP (Yilmaz, Kanoulas & Aslam 2008): read this for MAP.")
    infNDCG_cut_10 = serializers.FloatField(help_text="Estimated nDCG@10.")
    num_topics = serializers.IntegerField(help_text="Topics with at least one judgment that the run retrieved for.")


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    tag = serializers.CharField()
    num_topics = serializers.IntegerField()
    scores = ScoresSerializer()
    estimates = RunEstimatesSerializer(allow_null=True, help_text="Sampled-pool estimates; null for other sources.")
    curve = serializers.ListField(child=serializers.FloatField(), help_text="Averaged interpolated precision at recall 0.0, 0.1, … 1.0.")


class SampleSerializer(serializers.Serializer):
    topics = serializers.IntegerField(help_text="Topics of the sampled pool.")
    pooled = serializers.IntegerField(help_text="Pooled documents, drawn by the sample or not.")
    sampled = serializers.IntegerField(help_text="Documents the stratified sample drew.")
    judged = serializers.IntegerField(help_text="Drawn documents with a label: the sample size the estimates rest on.")
    note = serializers.CharField()


class LeaderboardSerializer(serializers.Serializer):
    source = SourceSerializer(allow_null=True)  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.source
    relevance_level = serializers.IntegerField()
    sort = serializers.CharField()
    order = serializers.CharField()
    sample = SampleSerializer(allow_null=True, help_text="Present when the source is a sampled campaign's labels: "
                                                         "the rows then carry estimates.")
    estimates_error = serializers.CharField(help_text="Why a sampled campaign's estimates are missing; empty otherwise.")
    runs = LeaderboardRowSerializer(many=True)


class TopicEstimatesSerializer(serializers.Serializer):
    infAP = serializers.FloatField()
    xinfAP = serializers.FloatField()
    infNDCG_cut_10 = serializers.FloatField()


class TopicScoresSerializer(serializers.Serializer):
    qid = serializers.CharField()
    scores = ScoresSerializer()
    estimates = TopicEstimatesSerializer(allow_null=True, help_text=(
        "The topic's estimates from a sampled campaign's labels; null without a sample or when the "
        "sample holds no judged document the run retrieved for this topic."))


class RunTopicsSerializer(serializers.Serializer):
    source = SourceSerializer(allow_null=True)  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.source
    tag = serializers.CharField()
    topics = TopicScoresSerializer(many=True)


class PairSerializer(serializers.Serializer):
    run_a = serializers.CharField()
    run_b = serializers.CharField()
    mean_difference = serializers.FloatField(help_text="Mean over common topics of run_a minus run_b.")
    p_value = serializers.FloatField()
    p_holm = serializers.FloatField()
    effect_size = serializers.FloatField(allow_null=True, help_text="Cohen's d of the paired differences; null when undefined.")
    significant = serializers.BooleanField()
    n_topics = serializers.IntegerField()


class SignificanceSerializer(serializers.Serializer):
    source = SourceSerializer(allow_null=True)  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.source
    measure = serializers.CharField()
    runs = serializers.ListField(child=serializers.CharField())
    total_runs = serializers.IntegerField()
    seed = serializers.IntegerField()
    n_permutations = serializers.IntegerField()
    alpha = serializers.FloatField()
    pairs = PairSerializer(many=True)


class ComparisonSerializer(serializers.Serializer):
    label_a = serializers.CharField()
    label_b = serializers.CharField()
    tau = serializers.FloatField(allow_null=True)
    tau_ap = serializers.FloatField(allow_null=True)
    scores_a = serializers.DictField(child=serializers.FloatField())
    scores_b = serializers.DictField(child=serializers.FloatField())
    swapped = serializers.ListField(child=serializers.ListField(child=serializers.CharField()),
                                    help_text="[higher under a, lower under a] pairs whose order flips under b.")
    n_items = serializers.IntegerField(allow_null=True)
    n_topics = serializers.IntegerField(allow_null=True)
    note = serializers.CharField()


class StabilitySerializer(serializers.Serializer):
    measure = serializers.CharField()
    comparisons = ComparisonSerializer(many=True)


class BiasRowSerializer(serializers.Serializer):
    tag = serializers.CharField()
    group = serializers.CharField()
    unique_relevant = serializers.IntegerField()
    unique_by_topic = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    full = serializers.DictField(child=serializers.FloatField())
    reduced = serializers.DictField(child=serializers.FloatField())
    difference = serializers.DictField(child=serializers.FloatField())
    rank_full = serializers.IntegerField()
    rank_reduced = serializers.IntegerField()
    rank_change = serializers.IntegerField()


class PoolBiasSerializer(serializers.Serializer):
    source = SourceSerializer(allow_null=True)  # type: ignore[assignment]  # a declared field (DRF pops it), not Field.source
    depth = serializers.IntegerField()
    by = serializers.CharField()
    removed = serializers.CharField(help_text="What happens to unique relevant documents: removed from the qrels (unjudged).")
    runs = BiasRowSerializer(many=True)
