"""Prels of a campaign on a sampled pool: what the infAP/xinfAP/infNDCG estimators read.

A sampled pool (``Pool.Strategy.SAMPLE``) stores only the pairs its stratified sample drew, but
the estimators need *every pooled* document of a topic (``metrics.sampling``'s format, one line
per pooled document: ``qid docno grade stratum prob``). The pooled-but-not-drawn documents are
recovered by drawing the pool's sample again: ``collections_app.pooling.sampling`` is seeded and
the pool keeps its runs, strata and seed, so the same rankings give the same sample. Every stored
pair is checked against the redraw (``sample_changed`` when a run was replaced or removed since).

Each pooled document's grade:

- drawn and labelled by the campaign (final labels under a rule): that grade; a negative grade
  of the collection's scale is written as 0 (judged, not relevant), because -1 means "unjudged";
- drawn, not labelled yet: ``-1`` (sampled but unjudged);
- drawn, serving as a gold item of the campaign: its known gold grade (final labels leave gold out);
- drawn but left out of the pool because imported qrels already judged it (the pool's
  ``exclude_judged``): the imported grade (the highest when qrels sets disagree), else ``-1``;
- not drawn: ``-1``.

Stratum and inclusion probability come from the redraw and equal the stored pairs' values.
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from django.core.exceptions import ValidationError
from django.db.models import Max

from collections_app.models import Pool, QrelsEntry, RunRanking
from collections_app.pooling.sampling import SampledDoc, stratified_sample
from collections_app.runstore import unpack_docnos
from judging.models import Campaign, Item
from judging.services.qrels import final_labels
from metrics.sampling import UNSAMPLED, Prel, Prels, format_prels


@dataclass(frozen=True)
class CampaignPrels:
    """A campaign's prels and the size of its sample."""

    prels: Prels
    sampled: int  # documents the sample drew (judged or not)

    @property
    def topics(self) -> int:
        return len(self.prels)

    @property
    def pooled(self) -> int:
        return sum(len(docs) for docs in self.prels.values())

    @property
    def judged(self) -> int:
        return sum(1 for docs in self.prels.values() for p in docs.values() if p.judged)

    @property
    def text(self) -> str:
        return format_prels(self.prels)


def require_sampled(pool: Pool) -> None:
    """Raise ValidationError(code="not_sampled") unless the pool is a sampled pool."""
    if pool.strategy != Pool.Strategy.SAMPLE:
        raise ValidationError(
            f"Pool {pool.name!r} is a {pool.get_strategy_display().lower()} pool, not a sampled pool: prels and the "
            "infAP/xinfAP/infNDCG estimates need a pool built with strategy 'sample' (inclusion probabilities).",
            code="not_sampled",
        )


def _pool_rankings(pool: Pool, depth: int) -> dict[str, dict[str, list[str]]]:
    """Return ``{qid: {tag: [docno, ...]}}`` of the pool's runs, cut at ``depth`` (what the build read)."""
    rankings: dict[str, dict[str, list[str]]] = {}
    rows = RunRanking.objects.filter(run__in=pool.runs.all()).values_list("run__tag", "topic__qid", "docnos")
    for tag, qid, blob in rows.iterator(chunk_size=500):
        rankings.setdefault(qid, {})[tag] = unpack_docnos(blob)[:depth]
    return rankings


def pool_sample(*, pool: Pool) -> tuple[dict[str, dict[str, SampledDoc]], set[tuple[str, str]]]:
    """Draw the sampled pool's sample again: ``({qid: {docno: SampledDoc}}, {(qid, docno) of stored pairs})``.

    Raises ValidationError ``not_sampled`` for another kind of pool, and ``sample_changed`` when
    a stored pair is not drawn again with its stratum and probability (a run of the pool was
    replaced or deleted after the build, so the pooled documents can no longer be known).
    """
    require_sampled(pool)
    params = pool.parameters or {}
    try:
        strata = tuple((int(last), float(rate)) for last, rate in params["strata"])
        seed = params.get("seed", 0)
    except (KeyError, TypeError, ValueError):
        raise ValidationError(f"Pool {pool.name!r} does not record its strata.", code="sample_changed") from None
    rankings = _pool_rankings(pool, strata[-1][0])
    sample = {qid: stratified_sample(topic, strata=strata, seed=seed, topic=qid) for qid, topic in rankings.items()}
    stored = set()
    rows = pool.pairs.filter(inclusion_probability__isnull=False).values_list(
        "topic__qid", "docno", "stratum", "inclusion_probability")
    for qid, docno, stratum, prob in rows.iterator(chunk_size=5000):
        drawn = sample.get(qid, {}).get(docno)
        prob = cast(float, prob)  # the query leaves out pairs without a probability
        if drawn is None or not drawn.sampled or drawn.stratum != stratum or not math.isclose(drawn.prob, prob):
            raise ValidationError(
                f"The runs of pool {pool.name!r} changed after it was built (topic {qid}, document {docno} is no "
                "longer drawn the same way), so its pooled documents are unknown.", code="sample_changed")
        stored.add((qid, docno))
    return sample, stored


def _imported_grades(pool: Pool, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Return the highest imported grade of each wanted (qid, docno) that any qrels set of the collection holds."""
    by_topic: dict[str, list[str]] = defaultdict(list)
    for qid, docno in wanted:
        by_topic[qid].append(docno)
    grades: dict[tuple[str, str], int] = {}
    for qid, docnos in by_topic.items():
        rows = (QrelsEntry.objects.filter(topic__collection_id=pool.collection_id, topic__qid=qid, docno__in=docnos)
                .values("docno").annotate(grade=Max("grade")).values_list("docno", "grade"))
        grades.update({(qid, docno): grade for docno, grade in rows})
    return grades


def prels_from_labels(*, campaign: Campaign, labels: Mapping[tuple[str, str], int]) -> CampaignPrels:
    """Return the prels of a campaign's sampled pool with ``labels`` ({(qid, docno): grade}) as the judgments.

    ``labels`` are a campaign's final labels, live or frozen in a qrels version (see the module
    docstring for every other case). Raises ValidationError ``not_sampled`` or ``sample_changed``.
    """
    pool = campaign.pool
    sample, stored = pool_sample(pool=pool)
    gold = dict(
        ((qid, docno), grade) for qid, docno, grade in Item.objects.filter(
            campaign=campaign, is_gold=True, gold_grade__isnull=False, pair__pool=pool,
        ).values_list("pair__topic__qid", "pair__docno", "gold_grade")
    )
    left_out = {(qid, d) for qid, docs in sample.items() for d, s in docs.items() if s.sampled} - stored
    if left_out and not (pool.parameters or {}).get("exclude_judged", False):
        raise ValidationError(f"Pool {pool.name!r} lacks pairs its sample draws; its runs changed after the build.",
                              code="sample_changed")
    imported = _imported_grades(pool, left_out) if left_out else {}
    prels: Prels = {}
    sampled = 0
    for qid, docs in sample.items():
        topic: dict[str, Prel] = {}
        for docno, drawn in docs.items():
            grade = UNSAMPLED
            if drawn.sampled:
                sampled += 1
                key = (qid, docno)
                known = labels.get(key, gold.get(key, imported.get(key)))
                if known is not None:
                    grade = max(known, 0)
            topic[docno] = Prel(grade, drawn.stratum, drawn.prob)
        if topic:
            prels[qid] = topic
    return CampaignPrels(prels, sampled)


def campaign_prels(*, campaign: Campaign, rule: str) -> CampaignPrels:
    """Return the prels of a campaign on a sampled pool, its live final labels under ``rule`` as judgments.

    Raises ValidationError ``not_sampled`` (checked first, before any labels are computed),
    ``bad_rule`` or ``sample_changed``.
    """
    require_sampled(campaign.pool)
    return prels_from_labels(campaign=campaign, labels=final_labels(campaign=campaign, rule=rule))
