"""Read-side entry points shared by the pages, the API and the command: one call per screen."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache
from django.core.exceptions import ValidationError

from collections_app.models import Collection, Pool, QrelsSet, Run
from evaluation.estimates import SampleEstimates, estimate_runs, estimation_topics
from evaluation.leaderboard import (
    CURVE_NAMES,
    IR_MEASURES_NAMES,
    NAME_TO_REQUEST,
    Row,
    leaderboard_rows,
    measure_name,
    per_topic,
    score_runs,
    sort_measure,
)
from evaluation.pool_bias import BiasRow, pool_bias
from evaluation.runs import collection_rankings, collection_runs
from evaluation.significance import MAX_RUNS, Matrix, significance_matrix
from evaluation.sources import QrelsCache, QrelsSource, parse_source, source_fingerprint
from evaluation.stability import Comparison, stability_between, stability_by_assessors
from judging.models import Campaign
from judging.services.prels import CampaignPrels
from metrics import EvaluationResult


@dataclass
class Board:
    """A scored collection: the source used, every run's result and the sorted rows."""

    source: QrelsSource | None
    results: list[EvaluationResult] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    cache: QrelsCache | None = None
    key: str | None = None  # cache key of the scores; None for live labels
    sort: str = "map"  # the measure the rows are sorted by
    estimates: SampleEstimates | None = None  # a sampled campaign's infAP/xinfAP/infNDCG@10 estimates
    estimates_error: str = ""  # why a sampled campaign's estimates could not be computed

    def result(self, tag: str) -> EvaluationResult:
        for r in self.results:
            if r.tag == tag:
                return r
        raise ValidationError(f"No run {tag!r} in this collection.", code="bad_run")

    def curves(self, tags: Sequence[str]) -> list[tuple[str, list[float]]]:
        """Return the averaged 11-point curve of each chosen run (unknown tags ignored)."""
        chosen = set(tags)
        return [(r.tag, [float(r.aggregate.get(n, 0.0)) for n in CURVE_NAMES]) for r in self.results if r.tag in chosen]


CACHE_SECONDS = 24 * 3600


def _runs_fingerprint(collection: Collection, tags: Sequence[str] | None) -> str:
    """Return a digest of the runs' ids, tags and file checksums (a replaced run gets a new checksum)."""
    rows = Run.objects.filter(collection=collection)
    if tags is not None:
        rows = rows.filter(tag__in=list(tags))
    listing = repr(sorted(rows.values_list("pk", "tag", "checksum")))
    return hashlib.sha256(listing.encode()).hexdigest()


def _scores_key(collection: Collection, chosen: QrelsSource, tags: Sequence[str] | None) -> str | None:
    """Return the cache key of scores of these runs against this source, None for live (uncacheable) labels."""
    fingerprint = source_fingerprint(collection, chosen)
    if fingerprint is None:
        return None
    digest = hashlib.sha256(f"{fingerprint}|{collection.relevant_threshold}|"
                            f"{_runs_fingerprint(collection, tags)}".encode()).hexdigest()
    return f"evaluation:board:{collection.pk}:{digest}"


def board(collection: Collection, *, source: str | None = None, sort: str | None = None, descending: bool = True,
          tags: Sequence[str] | None = None, estimates: bool = True) -> Board:
    """Score the collection's runs (all, or ``tags``) against a source (the default one when empty).

    Scores against a frozen version or an imported set are cached (Django's cache) under the
    qrels checksum, the runs' checksums and the relevance threshold, so re-sorting or drawing
    other curves does not score 100 runs again; live campaign labels are always scored afresh.
    When the source holds a sampled campaign's labels (and ``estimates``), the rows also carry
    infAP, xinfAP and infNDCG@10 estimated from the sample, and the default sort is xinfAP.
    Raises ValidationError(code="bad_source") for a source the collection does not have.
    """
    chosen = parse_source(collection, source)
    if chosen is None:
        return Board(None, sort=sort_measure(sort, estimated=False))
    qrels_cache = QrelsCache(collection)
    key = _scores_key(collection, chosen, tags)
    results = cache.get(key) if key is not None else None
    if results is None:
        runs = collection_runs(collection, tags=tags)
        results = score_runs(qrels_cache.qrels(chosen), runs, relevance_level=collection.relevant_threshold)
        if key is not None:
            cache.set(key, results, CACHE_SECONDS)
    sampled, error = None, ""
    if estimates and chosen.sampled_campaign is not None:
        sampled, error = _sample_estimates(collection, chosen, qrels_cache, tags=tags, cacheable=key is not None)
    sort = sort_measure(sort, estimated=sampled is not None)
    rows = leaderboard_rows(results, sort=sort, descending=descending,
                            estimates=sampled.runs if sampled is not None else None)
    return Board(chosen, results, rows, qrels_cache, key, sort=sort, estimates=sampled, estimates_error=error)


def _sample_estimates(collection: Collection, chosen: QrelsSource, qrels_cache: QrelsCache, *,
                      tags: Sequence[str] | None, cacheable: bool) -> tuple[SampleEstimates | None, str]:
    """Return a sampled campaign's estimates of every run (or ``tags``), or None and the reason they are missing.

    Frozen labels' estimates are cached like their scores; the key also covers every run (the
    pool's runs decide which documents were pooled) and the imported qrels (they fill in drawn
    documents the pool left out because they were already judged).
    """
    key = None
    if cacheable:
        imported = repr(sorted(QrelsSet.objects.filter(collection=collection).values_list("pk", "checksum")))
        digest = hashlib.sha256(f"{sorted(tags) if tags is not None else None}|{imported}".encode()).hexdigest()
        key = f"{_scores_key(collection, chosen, None)}:estimates:{digest}"
        hit = cache.get(key)
        if hit is not None:
            return hit, ""
    try:
        prels = qrels_cache.prels(chosen)
    except ValidationError as exc:
        return None, exc.messages[0]
    if prels is None:  # the source holds no sampled campaign's labels (callers check first)
        return None, "these labels do not come from a sampled campaign"
    result = estimates_from_prels(collection, prels, tags=tags)
    if key is not None:
        cache.set(key, result, CACHE_SECONDS)
    return result, ""


def estimates_from_prels(collection: Collection, prels: CampaignPrels, *,
                         tags: Sequence[str] | None = None) -> SampleEstimates:
    """Return the estimates of the collection's runs (all, or ``tags``) from a sampled campaign's prels."""
    rankings = collection_rankings(collection, tags=tags, qids=estimation_topics(prels.prels))
    return SampleEstimates(topics=prels.topics, pooled=prels.pooled, sampled=prels.sampled, judged=prels.judged,
                           runs=estimate_runs(rankings, prels.prels, level=collection.relevant_threshold))


def run_topics(collection: Collection, tag: str, *, source: str | None = None) -> tuple[QrelsSource | None, list[dict]]:
    """Return the source and one run's per-topic scores (ValidationError code="bad_run" if no such run).

    When the source holds a sampled campaign's labels, each topic row also carries that topic's
    infAP, xinfAP and infNDCG@10 estimates under "estimates" (None on a topic the sample left
    without a judged document the run retrieved), so a lead can see where the estimate and the
    plain measure part ways; without a sample "estimates" is None throughout.
    """
    scored = board(collection, source=source, tags=[tag])
    if scored.source is None:
        if not collection.runs.filter(tag=tag).exists():
            raise ValidationError(f"No run {tag!r} in this collection.", code="bad_run")
        return None, []
    rows = per_topic(scored.result(tag))
    estimate = scored.estimates.runs.get(tag) if scored.estimates is not None else None
    for row in rows:
        row["estimates"] = estimate.per_topic.get(row["qid"]) if estimate is not None else None
    return scored.source, rows


def known_measure(measure: str) -> str:
    """Return the leaderboard name of a measure given by that name or its ir_measures name (ValidationError code="bad_measure" otherwise)."""
    name = measure_name(measure)
    if name is None:
        raise ValidationError(f"Unknown measure {measure!r}; use one of {', '.join(NAME_TO_REQUEST)} "
                              f"(or {', '.join(IR_MEASURES_NAMES)}).", code="bad_measure")
    return name


def measure_request(measure: str) -> str:
    """Return the metrics request of a leaderboard measure name or its ir_measures name (ValidationError code="bad_measure" otherwise)."""
    return NAME_TO_REQUEST[known_measure(measure)]


def significance(collection: Collection, *, source: str | None = None, measure: str = "map", max_runs: int = MAX_RUNS,
                 seed: int = 0, n_permutations: int = 10_000) -> tuple[QrelsSource | None, Matrix | None]:
    """Return the source and the pairwise significance matrix of the collection's best ``max_runs`` runs."""
    measure = known_measure(measure)
    scored = board(collection, source=source, estimates=False)
    if scored.source is None:
        return None, None
    key = None if scored.key is None else f"{scored.key}:significance:{measure}:{max_runs}:{seed}:{n_permutations}"
    matrix = cache.get(key) if key else None
    if matrix is None:  # seeded, so the same inputs always give the same matrix: safe to cache with the scores
        _require_topics_for_significance(scored.results, measure)
        try:
            matrix = significance_matrix(scored.results, measure, max_runs=max_runs, seed=seed,
                                         n_permutations=n_permutations)
        except ValueError as exc:  # two runs share fewer than 2 scored topics
            raise ValidationError(f"Significance cannot be tested yet: {exc}.", code="too_few_topics") from None
        if key:
            cache.set(key, matrix, CACHE_SECONDS)
    return scored.source, matrix


def _require_topics_for_significance(results, measure: str) -> None:
    """Refuse, with an explanation, a paired test on fewer than 2 topics (e.g. right after a first freeze)."""
    topics = {qid for result in results for qid, values in result.per_topic.items() if measure in values}
    if len(results) >= 2 and len(topics) < 2:
        raise ValidationError(
            f"Significance needs per-topic scores on at least 2 topics; these qrels cover {len(topics)}. "
            "Judge or freeze more topics, or choose other qrels.", code="too_few_topics")


def stability(collection: Collection, *, source_a: str | None = None, source_b: str | None = None,
              campaign_id: int | None = None, measure: str = "map") -> list[Comparison]:
    """Compare system rankings under two sources, or under each pair of a campaign's assessors.

    With ``campaign_id`` the assessors' labels on the items both judged are compared; otherwise
    ``source_a`` (default: the default source) against ``source_b`` (required).
    """
    measure = known_measure(measure)
    request = NAME_TO_REQUEST[measure]
    runs = collection_runs(collection)
    level = collection.relevant_threshold
    if campaign_id is not None:
        try:
            campaign = Campaign.objects.get(collection=collection, pk=campaign_id)
        except Campaign.DoesNotExist:
            raise ValidationError("No such campaign in this collection.", code="bad_campaign") from None
        return stability_by_assessors(campaign, runs, measure=measure, request=request, relevance_level=level)
    a, b = parse_source(collection, source_a), parse_source(collection, source_b) if source_b else None
    if a is None or b is None:
        raise ValidationError("Choose two qrels sources (or a campaign).", code="bad_source")
    cache = QrelsCache(collection)
    return [stability_between(cache.qrels(a), cache.qrels(b), runs, measure=measure, request=request,
                              relevance_level=level, label_a=a.label, label_b=b.label)]


def default_depth(collection: Collection) -> int:
    """Return the depth of the collection's newest depth pool, else 100 (TREC's usual pool depth)."""
    for parameters in Pool.objects.filter(collection=collection).order_by("-created_at", "-pk").values_list(
            "parameters", flat=True):
        depth = (parameters or {}).get("depth")
        if isinstance(depth, int) and depth > 0:
            return depth
    return 100


def run_groups(collection: Collection) -> dict[str, str]:
    """Return tag → group: the run's group field, else its tag up to the first '.', '-' or '_'."""
    out = {}
    for tag, group in Run.objects.filter(collection=collection).values_list("tag", "group"):
        out[tag] = group or re.split(r"[.\-_]", tag, maxsplit=1)[0]
    return out


def pool_bias_report(collection: Collection, *, source: str | None = None, depth: int | None = None,
                     by_group: bool = False) -> tuple[QrelsSource | None, int, list[BiasRow]]:
    """Return the source, the depth used and the leave-one-run-out (or -group-out) rows."""
    depth = depth or default_depth(collection)
    chosen = parse_source(collection, source)
    if chosen is None:
        return None, depth, []
    groups = run_groups(collection) if by_group else None
    key = _scores_key(collection, chosen, None)
    if key is not None:  # groups are part of the key: a run's group field can change without a new file
        key += ":pool-bias:" + hashlib.sha256(f"{depth}|{sorted((groups or {}).items())}".encode()).hexdigest()
        rows = cache.get(key)
        if rows is not None:
            return chosen, depth, rows
    qrels_dict = QrelsCache(collection).as_dict(chosen)
    rows = pool_bias(qrels_dict, collection_runs(collection), relevance_level=collection.relevant_threshold,
                     depth=depth, groups=groups)
    if key is not None:
        cache.set(key, rows, CACHE_SECONDS)
    return chosen, depth, rows
