"""Final labels, adjudication, TREC qrels text, frozen qrels versions and judgment exports.

Final labels of a campaign cover its regular items (gold items are left out: the imported
qrels already hold their label) and ignore skips and blocked crowd workers' labels (kept in
the database and in the judgments export for audit). Rules:

- ``primary``: the primary assessor's label (split by topic); when the item has no primary,
  or the primary has no label for it, the earliest label (by time recorded, then id).
- ``majority``: the most frequent grade; **a tie goes to the lowest tied grade** — the
  conservative choice (unjudged documents count as not relevant, so doubt leans that way),
  the same rule as :func:`aggregation.majority_vote`'s default. (crowd-kit's
  MajorityVote breaks ties differently: it keeps the tied label met first in its input.)
- ``adjudicated``: the lead's adjudicated grade where one is set, else the majority label.
- ``gold_weighted``: a vote weighted by each assessor's smoothed accuracy on the campaign's
  gold items (log-odds weights, :func:`aggregation.gold_weighted_vote`); assessors
  with no gold answers get the mean weight. Ties go to the lowest grade.
- ``dawid_skene``: Dawid–Skene EM over every assessor's confusion matrix
  (:func:`aggregation.dawid_skene`); gold items' labels take part in the EM (they
  say how each assessor errs) but only regular items get a final label. How the EM ended
  (rounds, converged or stopped at the limit, final log-likelihood, tolerance, smoothing,
  collapse warning) is reported through ``report`` and kept on the frozen version
  (``QrelsVersion.aggregation``), so a run that did not converge is never silent.
- ``hybrid``: humans override the model. Where a lead adjudicated, that label; else where
  humans (every assessor who is not a model) labelled the pair, their majority; else the
  model assessors' majority. Confidence is the chosen grade's share among the votes used.

Blocked assessors never vote under any rule (their labels are excluded before aggregation,
so they shape no weight and no confusion matrix either). :func:`final_labels_detail` gives
each pair's confidence (the chosen grade's vote share, weighted share or posterior).

Qrels text is ``qid 0 docno grade\\n`` per line, sorted by qid then docno. Qids sort
numerically when every qid of the labels is a plain non-negative integer (so 2 < 10, as TREC
topic numbers read), otherwise as strings; docnos always sort as strings (code-point order).
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Hashable
from typing import cast

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from aggregation import dawid_skene, gold_weighted_vote, majority_grade
from collections_app.models import Collection
from judging.models import Adjudication, Assessor, Campaign, Item, Judgment, QrelsVersion
from metrics import qrels_to_text

RULES = tuple(QrelsVersion.Rule.values)


def _labels_by_item(campaign: Campaign):
    """Return {item id: (qid, docno, primary assessor id)} and {item id: [(assessor id, grade)] in time order}."""
    items = {
        pk: (qid, docno, primary)
        for pk, qid, docno, primary in Item.objects.filter(campaign=campaign, is_gold=False).values_list(
            "pk", "pair__topic__qid", "pair__docno", "primary_assessor_id"
        )
    }
    grades: dict[int, list[tuple[int, int]]] = defaultdict(list)
    rows = (
        Judgment.objects.filter(item__campaign=campaign, item__is_gold=False, skipped=False, assessor__blocked=False)
        .order_by("created_at", "pk")
        .values_list("item_id", "assessor_id", "grade")
    )
    for item_id, assessor_id, grade in rows:
        grades[item_id].append((assessor_id, cast(int, grade)))  # not skipped, so graded (a check constraint)
    return items, grades


def final_labels(*, campaign: Campaign, rule: str, report: dict | None = None,
                 ds_options: dict | None = None) -> dict[tuple[str, str], int]:
    """Return the final label of every labelled regular item as {(qid, docno): grade} under a rule."""
    detail = final_labels_detail(campaign=campaign, rule=rule, report=report, ds_options=ds_options)
    return {key: grade for key, (grade, _) in detail.items()}


DS_OPTION_NAMES = ("smoothing", "tol", "max_iter")


def dawid_skene_report(result) -> dict:
    """Return how a Dawid–Skene run ended, as stored on a frozen version and shown to the lead."""
    return {"method": "dawid_skene", "iterations": result.iterations, "converged": bool(result.converged),
            "log_likelihood": result.log_likelihood, "tolerance": result.tolerance, "smoothing": result.smoothing,
            "collapsed": bool(result.collapsed), "collapse_reason": result.collapse_reason}


def final_labels_detail(*, campaign: Campaign, rule: str, report: dict | None = None,
                        ds_options: dict | None = None) -> dict[tuple[str, str], tuple[int, float]]:
    """Return {(qid, docno): (grade, confidence)} for every labelled regular item under a rule.

    Confidence is the chosen grade's share of the votes (majority, primary: the share of
    labels equal to the chosen one), of the weighted votes (gold_weighted) or its posterior
    probability (dawid_skene); 1.0 for an adjudicated label (the lead decided).
    """
    if rule not in RULES:
        raise ValidationError(f"Unknown rule {rule!r}; use one of {', '.join(RULES)}.", code="bad_rule")
    items, grades = _labels_by_item(campaign)
    if rule in (QrelsVersion.Rule.GOLD_WEIGHTED, QrelsVersion.Rule.DAWID_SKENE):
        return _aggregated_labels(campaign, rule, items, grades, report=report, ds_options=ds_options)
    if rule == QrelsVersion.Rule.HYBRID:
        return _hybrid_labels(campaign, items, grades)
    adjudicated = {}
    if rule == QrelsVersion.Rule.ADJUDICATED:
        adjudicated = dict(Adjudication.objects.filter(campaign=campaign).values_list("item_id", "grade"))
    labels: dict[tuple[str, str], tuple[int, float]] = {}
    for item_id, (qid, docno, primary) in items.items():
        given = grades.get(item_id, [])
        if item_id in adjudicated:
            labels[(qid, docno)] = (adjudicated[item_id], 1.0)
            continue
        if not given:
            continue
        values = [g for _, g in given]
        if rule == QrelsVersion.Rule.PRIMARY:
            own = [g for a, g in given if a == primary]
            grade = own[0] if own else given[0][1]
        else:
            grade = majority_grade(values)
        labels[(qid, docno)] = (grade, values.count(grade) / len(values))
    return labels


def _hybrid_labels(campaign: Campaign, items: dict, grades: dict) -> dict[tuple[str, str], tuple[int, float]]:
    """Return the adjudicated label, else the humans' majority, else the model assessors' majority, per item."""
    models = set(Assessor.objects.filter(campaign=campaign, kind=Assessor.Kind.MODEL).values_list("pk", flat=True))
    adjudicated = dict(Adjudication.objects.filter(campaign=campaign).values_list("item_id", "grade"))
    labels: dict[tuple[str, str], tuple[int, float]] = {}
    for item_id, (qid, docno, _) in items.items():
        if item_id in adjudicated:
            labels[(qid, docno)] = (adjudicated[item_id], 1.0)
            continue
        given = grades.get(item_id, [])
        votes = [g for a, g in given if a not in models] or [g for a, g in given if a in models]
        if votes:
            grade = majority_grade(votes)
            labels[(qid, docno)] = (grade, votes.count(grade) / len(votes))
    return labels


def _aggregated_labels(campaign: Campaign, rule: str, items: dict, grades: dict, *, report: dict | None = None,
                       ds_options: dict | None = None) -> dict[tuple[str, str], tuple[int, float]]:
    """Run a crowd aggregator over the campaign's labels (regular and gold items, blocked assessors left out).

    For Dawid–Skene, ``ds_options`` (DS_OPTION_NAMES) tune the EM and ``report`` (a dict) is
    filled with :func:`dawid_skene_report`.
    """
    triples = [(item_id, assessor_id, grade) for item_id, given in grades.items() for assessor_id, grade in given]
    gold_rows = (
        Judgment.objects.filter(item__campaign=campaign, item__is_gold=True, item__gold_grade__isnull=False,
                                skipped=False, assessor__blocked=False)
        .order_by("created_at", "pk")
        .values_list("item_id", "assessor_id", "grade", "item__gold_grade")
    )
    gold: dict[Hashable, int] = {}
    scale = list(campaign.collection.grades)
    for item_id, assessor_id, grade, gold_grade in gold_rows:
        gold[item_id] = cast(int, gold_grade)  # the query leaves out gold items without a grade
        if grade in scale:
            triples.append((item_id, assessor_id, grade))
    if not triples:
        return {}
    if rule == QrelsVersion.Rule.GOLD_WEIGHTED:
        result = gold_weighted_vote(triples, gold=gold, categories=scale)
    else:
        options = {k: v for k, v in (ds_options or {}).items() if k in DS_OPTION_NAMES and v is not None}
        result = dawid_skene(triples, categories=scale, **options)
        if report is not None:
            report.update(dawid_skene_report(result))
    labels: dict[tuple[str, str], tuple[int, float]] = {}
    for item_id, (qid, docno, _) in items.items():
        outcome = result.labels.get(item_id)
        if outcome is not None and outcome.label is not None:
            labels[(qid, docno)] = (outcome.label, round(outcome.confidence, 6))
    return labels


def qid_key(all_numeric: bool):
    """Return a sort key for ((qid, docno), value) items: numeric qids as numbers, then docno."""
    def key(item):
        (qid, docno), _ = item
        return (int(qid) if all_numeric else 0, qid, docno)

    return key


def qrels_text(labels: dict[tuple[str, str], int]) -> str:
    """Return labels as TREC qrels text (``metrics.qrels_to_text``: ``qid 0 docno grade``, sorted by qid then docno).

    >>> qrels_text({("10", "d2"): 1, ("2", "d9"): 0, ("2", "d10"): 2})
    '2 0 d10 2\\n2 0 d9 0\\n10 0 d2 1\\n'
    """
    return qrels_to_text(labels)


def adjudicate(*, item: Item, grade: int, note: str, user) -> Adjudication:
    """Set the lead's final label for an item (replacing an earlier one); used by the adjudicated rule."""
    collection = item.campaign.collection
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in collection.grades:
        raise ValidationError(f"Grade must be one of {collection.grades}.", code="bad_grade")
    if item.is_gold:
        raise ValidationError("Gold pairs keep their known label.", code="gold_item")
    adjudication, _ = Adjudication.objects.update_or_create(
        item=item, defaults={"campaign_id": item.campaign_id, "grade": grade, "note": note or "", "decided_by": user}
    )
    return adjudication


@transaction.atomic
def qrels_freeze(*, campaign: Campaign, rule: str, description: str, user,
                 ds_options: dict | None = None) -> QrelsVersion:
    """Freeze the campaign's final labels under a rule as the collection's next qrels version.

    ``ds_options`` (smoothing, tol, max_iter) tune the Dawid–Skene rule; how its EM ended is
    kept in ``aggregation``.

    The collection row is locked so two leads freezing at once get consecutive numbers.
    The version stores its exact text and SHA-256; nothing ever updates it afterwards.
    """
    report: dict = {}
    labels = final_labels(campaign=campaign, rule=rule, report=report, ds_options=ds_options)
    content = qrels_text(labels)
    collection = Collection.objects.select_for_update().get(pk=campaign.collection_id)
    last = QrelsVersion.objects.filter(collection=collection).aggregate(n=Max("number"))["n"] or 0
    return QrelsVersion.objects.create(
        collection=collection, campaign=campaign, number=last + 1, rule=rule, description=description or "",
        created_by=user, num_topics=len({qid for qid, _ in labels}), num_judgments=len(labels),
        num_relevant=sum(1 for g in labels.values() if collection.is_relevant(g)),
        checksum=hashlib.sha256(content.encode("utf-8")).hexdigest(), content=content, aggregation=report,
    )
