"""Run the budget planner on a collection: load its runs and a qrels set, replay, return the report."""
from __future__ import annotations

from django.core.exceptions import ValidationError

from collections_app.models import Collection, QrelsSet

from . import engine
from .load import document_texts, planner_inputs

NEEDS_TEXT = {"cal"}


def planner_run(*, collection: Collection, qrels_set_name: str, strategies: list[str] | None = None,
                depths=engine.DEFAULT_DEPTHS, budgets=engine.DEFAULT_BUDGETS,
                sample_rates=engine.DEFAULT_SAMPLE_RATES, max_depth: int = 100, seed: int = 0,
                progress=None) -> engine.Report:
    """Return the planner report for ``collection``'s runs against its qrels set ``qrels_set_name``.

    The collection's relevance threshold decides what counts as relevant. Raises
    ValidationError (code ``no_qrels``, ``no_overlap`` or ``invalid``) on unusable input.
    """
    qrels_set = QrelsSet.objects.filter(collection=collection, name=qrels_set_name).first()
    if qrels_set is None:
        raise ValidationError(f"No qrels set named {qrels_set_name!r}.", code="no_qrels")
    rankings, qrels, queries = planner_inputs(collection, qrels_set, max_depth=max_depth)
    if not any(q in rankings for q in qrels):
        raise ValidationError("No topic of the qrels set has run rankings.", code="no_overlap")
    chosen = list(strategies) if strategies else list(engine.available_strategies())
    texts = None
    if NEEDS_TEXT & set(chosen):
        pooled = {d for topic in rankings.values() for r in topic.values() for d in r[:max_depth]}
        texts = document_texts(collection, pooled)
    try:
        return engine.simulate(rankings, qrels, strategies=chosen, depths=depths, budgets=budgets,
                               sample_rates=sample_rates, max_depth=max_depth,
                               level=collection.relevant_threshold, seed=seed, queries=queries, texts=texts,
                               progress=progress)
    except ValueError as exc:
        raise ValidationError(str(exc), code="invalid") from exc
