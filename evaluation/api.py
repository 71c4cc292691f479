"""Evaluation API: validate the query → call a selector → serialize.

Leaderboard, per-topic scores and significance: leads, and assessors only where a lead has opened
the collection's systems to them (``Collection.assessors_see_systems``; blind by default).
Stability and pool bias: leads only (they show individual assessors' labels and pooling blind spots).
Outsiders get 404, anonymous requests 401/403 (DRF's IsAuthenticated).
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collections_app.access import collection_for_user
from evaluation import serializers
from evaluation.estimates import ESTIMATE_NAMES
from evaluation.leaderboard import CURVE_NAMES, MEASURE_NAMES
from evaluation.selectors import board, pool_bias_report, run_topics, significance, stability


def _source(source) -> dict | None:
    return None if source is None else {"token": source.token, "label": source.label}


def _query(serializer_class, request: Request) -> dict:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data


SAMPLE_NOTE = ("Estimated from a stratified sample of the pool: each judged document weighted by 1/its inclusion "
               "probability. xinfAP estimates MAP, infNDCG_cut_10 estimates nDCG@10, infAP is trec_eval's (uniform "
               "sample assumed). The plain scores count undrawn and unjudged pooled documents as not relevant.")


def _estimates(row) -> dict | None:
    if row.estimate_topics is None:
        return None
    return {**{n: row.scores.get(n, 0.0) for n in ESTIMATE_NAMES}, "num_topics": row.estimate_topics}


class Leaderboard(APIView):
    """Every run's MAP, nDCG@10, P@10, R-prec, bpref, judged@10 and 11-point curve, sorted.

    For a sampled campaign's labels each run also gets infAP, xinfAP and infNDCG@10 estimated
    from the sample, and ``sample`` gives the sample's size.
    """

    @extend_schema(parameters=[serializers.LeaderboardQuerySerializer], responses=serializers.LeaderboardSerializer)
    def get(self, request: Request, slug: str) -> Response:
        collection = collection_for_user(request.user, slug, systems=True)
        q = _query(serializers.LeaderboardQuerySerializer, request)
        scored = board(collection, source=q["source"] or None, sort=q["sort"] or None, descending=q["order"] == "desc")
        rows = [{"rank": r.rank, "tag": r.tag, "num_topics": r.num_topics,
                 "scores": {n: r.scores.get(n, 0.0) for n in MEASURE_NAMES}, "estimates": _estimates(r),
                 "curve": [r.scores.get(n, 0.0) for n in CURVE_NAMES]} for r in scored.rows]
        sample = scored.estimates
        return Response(serializers.LeaderboardSerializer({
            "source": _source(scored.source), "relevance_level": collection.relevant_threshold, "sort": scored.sort,
            "order": q["order"], "runs": rows, "estimates_error": scored.estimates_error,
            "sample": None if sample is None else {"topics": sample.topics, "pooled": sample.pooled,
                                                   "sampled": sample.sampled, "judged": sample.judged,
                                                   "note": SAMPLE_NOTE}}).data)


class RunTopics(APIView):
    """One run's per-topic scores."""

    @extend_schema(parameters=[serializers.SourceQuerySerializer], responses=serializers.RunTopicsSerializer)
    def get(self, request: Request, slug: str, tag: str) -> Response:
        collection = collection_for_user(request.user, slug, systems=True)
        q = _query(serializers.SourceQuerySerializer, request)
        source, topics = run_topics(collection, tag, source=q["source"] or None)
        return Response(serializers.RunTopicsSerializer({"source": _source(source), "tag": tag, "topics": topics}).data)


class Significance(APIView):
    """Pairwise seeded randomization tests, Holm-corrected, between the best runs for one measure."""

    @extend_schema(parameters=[serializers.SignificanceQuerySerializer], responses=serializers.SignificanceSerializer)
    def get(self, request: Request, slug: str) -> Response:
        collection = collection_for_user(request.user, slug, systems=True)
        q = _query(serializers.SignificanceQuerySerializer, request)
        source, matrix = significance(collection, source=q["source"] or None, measure=q["measure"],
                                      max_runs=q["runs"], seed=q["seed"])
        data = {"source": _source(source), "measure": q["measure"], "runs": [], "total_runs": 0, "seed": q["seed"],
                "n_permutations": 0, "alpha": 0.05, "pairs": []}
        if matrix is not None:
            data.update(runs=matrix.runs, total_runs=matrix.total_runs, n_permutations=matrix.n_permutations,
                        alpha=matrix.alpha, pairs=[vars(c) for c in matrix.cells])
        return Response(serializers.SignificanceSerializer(data).data)


class Stability(APIView):
    """Kendall's tau and tau_AP between system rankings under two qrels, or between a campaign's assessors (leads)."""

    @extend_schema(parameters=[serializers.StabilityQuerySerializer], responses=serializers.StabilitySerializer)
    def get(self, request: Request, slug: str) -> Response:
        collection = collection_for_user(request.user, slug, lead_only=True, systems=True)
        q = _query(serializers.StabilityQuerySerializer, request)
        comparisons = stability(collection, source_a=q["a"] or None, source_b=q["b"] or None,
                                campaign_id=q["campaign"], measure=q["measure"])
        return Response(serializers.StabilitySerializer({"measure": q["measure"],
                                                         "comparisons": [vars(c) for c in comparisons]}).data)


class PoolBias(APIView):
    """Leave-one-run-out or leave-one-group-out: unique relevant documents and scores without them (leads)."""

    @extend_schema(parameters=[serializers.PoolBiasQuerySerializer], responses=serializers.PoolBiasSerializer)
    def get(self, request: Request, slug: str) -> Response:
        collection = collection_for_user(request.user, slug, lead_only=True, systems=True)
        q = _query(serializers.PoolBiasQuerySerializer, request)
        source, depth, rows = pool_bias_report(collection, source=q["source"] or None, depth=q["depth"],
                                               by_group=q["by"] == "group")
        runs = [{**vars(r), "difference": r.difference, "rank_change": r.rank_change} for r in rows]
        return Response(serializers.PoolBiasSerializer({
            "source": _source(source), "depth": depth, "by": q["by"], "removed": "unjudged", "runs": runs}).data)
