"""Creating preference campaigns (freeze what each item shows and draw its placement), closing and reopening them."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import cast

from django.core.exceptions import ValidationError
from django.db import transaction

from campaign_core.item_ids import bulk_create_shuffled
from campaign_core.plan_rules import raise_problems
from campaign_core.services.audit import audit
from collections_app.models import Collection, Run, RunRanking, Topic
from collections_app.runstore import unpack_docnos
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefLease
from preferences.plan import PrefPlan, sides_problems

GOLD_FROM_RANK = 50


def _check_name(collection: Collection, name: str) -> None:
    """Refuse a blank name or one the collection already uses (the database would refuse it with an IntegrityError)."""
    if not name.strip():
        raise ValidationError("A campaign needs a name.", code="bad_name")
    if PrefCampaign.objects.filter(collection=collection, name=name).exists():
        raise ValidationError(f"A campaign named {name!r} already exists.", code="duplicate_name")


def _plan(plan: PrefPlan | None, options: dict) -> PrefPlan:
    """Return the plan given, or the one the flat options make (scripts and tests pass options)."""
    if plan is not None and options:
        raise TypeError("Pass a plan or options, not both.")
    return plan if plan is not None else PrefPlan.of(**options)


def _check_gold(campaign: PrefCampaign) -> None:
    """A gold accuracy threshold needs gold items to be served (otherwise it would never stop anyone)."""
    if campaign.gold_accuracy_threshold <= 0:
        return
    if campaign.gold_rate <= 0 or not campaign.items.filter(is_gold=True).exists():
        raise ValidationError("A gold accuracy threshold needs gold items and a gold rate above 0.", code="bad_gold")


def left_is_a(seed: int, campaign_name: str, topic_qid: str, slot: int = 0) -> bool:
    """Return whether system A goes on the left, deterministically from seed, campaign, topic.

    A hash (not Python's salted ``hash``) so that the same seed gives the same placement on
    every machine; recorded on the item all the same, results read the stored value.
    """
    digest = hashlib.sha256(f"{seed}\x00{campaign_name}\x00{topic_qid}\x00{slot}".encode()).digest()
    return digest[0] % 2 == 0


def _ranking(run: Run, topic: Topic) -> list[str]:
    row = RunRanking.objects.filter(run=run, topic=topic).first()
    return unpack_docnos(row.docnos) if row else []


def gold_sides(ranking: Sequence[str], depth: int) -> tuple[list[str], list[str]] | None:
    """Return (good, bad) panels for a gold item: the top ``depth`` versus low-ranked documents.

    The bad side takes documents from rank GOLD_FROM_RANK on (or the bottom of a shorter
    ranking) in reverse order; None when the ranking is too short for a full, disjoint worse side.
    """
    good = list(ranking[:depth])
    rest = list(ranking[max(depth, min(GOLD_FROM_RANK, len(ranking) - depth)):])
    bad = list(reversed(rest[-depth:])) if rest else []
    if len(good) < 2 or len(bad) < len(good) or set(good) & set(bad):
        return None
    return good, bad


@transaction.atomic
def side_by_side_create(*, collection: Collection, name: str, run_a: Run, run_b: Run, topics: Iterable[Topic],
                        gold_topics: Iterable[Topic] = (), assessors: Iterable = (), user=None,
                        plan: PrefPlan | None = None, **options) -> PrefCampaign:
    """Create a side-by-side campaign: one item per topic with both top-``depth`` lists frozen.

    Gold items (``gold_topics``) show run A's top list against its own low-ranked documents.
    The options are ``plan`` (valid by construction) or its flat option names.
    """
    plan = _plan(plan, options)
    _check_name(collection, name)
    topics = list(topics)
    raise_problems(sides_problems(kind=PrefCampaign.Kind.SIDE_BY_SIDE, run_a=run_a, run_b=run_b, topics=topics))
    if run_a.collection_id != collection.pk or run_b.collection_id != collection.pk:
        raise ValidationError("Both runs must belong to the collection.")
    depth, judgments_per_item, seed = plan.depth, plan.judgments_per_item, plan.seed
    campaign = PrefCampaign.objects.create(collection=collection, name=name, kind=PrefCampaign.Kind.SIDE_BY_SIDE,
                                           run_a=run_a, run_b=run_b, created_by=user, **plan.campaign_fields())
    items: list[PrefItem] = []
    for topic in topics:
        a, b = _ranking(run_a, topic)[:depth], _ranking(run_b, topic)[:depth]
        if not a and not b:
            continue
        items.append(PrefItem(campaign=campaign, topic=topic, position=len(items) + 1, a_docnos=a, b_docnos=b,
                              left_is_a=left_is_a(seed, name, topic.qid), required_judgments=judgments_per_item))
    for topic in gold_topics:
        sides = gold_sides(_ranking(run_a, topic), depth)
        if sides is None:
            continue
        items.append(PrefItem(campaign=campaign, topic=topic, position=len(items) + 1, a_docnos=sides[0],
                              b_docnos=sides[1], is_gold=True, left_is_a=left_is_a(seed, name, topic.qid, 1),
                              required_judgments=judgments_per_item))
    return _store(campaign, items, assessors=assessors, nothing="Neither run has rankings for the chosen topics.")


@transaction.atomic
def doc_pair_create(*, collection: Collection, name: str, pairs: Iterable[tuple[Topic, str, str]],
                    gold_pairs: Iterable[tuple[Topic, str, str]] = (), assessors: Iterable = (), user=None,
                    plan: PrefPlan | None = None, **options) -> PrefCampaign:
    """Create a document-pair campaign; each pair is (topic, docno A, docno B).

    For gold pairs, A is the document known to be more relevant. The options are ``plan``
    (valid by construction; its depth does not apply, a panel shows one document) or its flat
    option names.
    """
    plan = _plan(plan, options)
    _check_name(collection, name)
    judgments_per_item, seed = plan.judgments_per_item, plan.seed
    campaign = PrefCampaign.objects.create(collection=collection, name=name, kind=PrefCampaign.Kind.DOC_PAIR,
                                           created_by=user, **{**plan.campaign_fields(), "depth": 1})
    known = set(collection.documents.values_list("docno", flat=True))
    items: list[PrefItem] = []
    for gold, source in ((False, pairs), (True, gold_pairs)):
        for topic, doc_a, doc_b in source:
            if doc_a == doc_b or doc_a not in known or doc_b not in known:
                raise ValidationError(f"Bad pair for topic {topic.qid}: {doc_a!r}, {doc_b!r}.")
            items.append(PrefItem(campaign=campaign, topic=topic, position=len(items) + 1, a_docnos=[doc_a],
                                  b_docnos=[doc_b], is_gold=gold, required_judgments=judgments_per_item,
                                  left_is_a=left_is_a(seed, name, f"{topic.qid}\x00{doc_a}\x00{doc_b}")))
    return _store(campaign, items, assessors=assessors, nothing="No pairs given.")


def campaign_start(*, collection: Collection, kind: str, name: str, plan: PrefPlan, user=None, assessors: Iterable = (),
                   run_a: Run | None = None, run_b: Run | None = None, topics: Iterable[Topic] = (),
                   gold_topics: Iterable[Topic] = (), pairs: Iterable[tuple[Topic, str, str]] = (),
                   gold_pairs: Iterable[tuple[Topic, str, str]] = ()) -> PrefCampaign:
    """Create a campaign of ``kind`` from what the lead's form or the API parsed (the other kind's inputs are ignored).

    Raises ValidationError for an unknown kind, or a side-by-side campaign without two runs and a topic.
    """
    topics = list(topics)
    raise_problems(sides_problems(kind=kind, run_a=run_a, run_b=run_b, topics=topics))
    if kind == PrefCampaign.Kind.DOC_PAIR:
        return doc_pair_create(collection=collection, name=name, pairs=pairs, gold_pairs=gold_pairs,
                               assessors=assessors, user=user, plan=plan)
    # sides_problems has refused a side-by-side campaign without both runs
    return side_by_side_create(collection=collection, name=name, run_a=cast(Run, run_a), run_b=cast(Run, run_b),
                               topics=topics, gold_topics=gold_topics, assessors=assessors, user=user, plan=plan)


def _store(campaign: PrefCampaign, items: list[PrefItem], *, assessors: Iterable, nothing: str) -> PrefCampaign:
    """Save the items (refusing a campaign with none, worded by ``nothing``), check gold, add the assessors."""
    bulk_create_shuffled(PrefItem, items, seed=f"{campaign.pk}:{campaign.seed}")  # ids must not single out the gold items
    if not items:
        raise ValidationError(nothing)
    _check_gold(campaign)
    _add_assessors(campaign, assessors)
    return campaign


def _add_assessors(campaign: PrefCampaign, users: Iterable) -> None:
    for user in users:
        PrefAssessor.objects.get_or_create(campaign=campaign, user=user, defaults={"kind": PrefAssessor.Kind.EXPERT})


# --- closing and reopening ----------------------------------------------------------------


@transaction.atomic
def campaign_set_status(*, campaign: PrefCampaign, status: str, user) -> bool:
    """Close a campaign (no more work is handed out or accepted) or reopen it; audited; False if unchanged.

    Closing drops every lease, so nobody holds an item of a closed campaign; judgments stay.
    The change is written to Django's admin log (CHANGE on the campaign, a JSON message
    ``{"kind": "status", "from", "to"}``), as leads' block and unblock decisions are.
    """
    if status not in PrefCampaign.Status.values:
        raise ValidationError(f"Unknown status {status!r}; use {' or '.join(PrefCampaign.Status.values)}.",
                              code="bad_status")
    locked = PrefCampaign.objects.select_for_update().get(pk=campaign.pk)
    if locked.status == status:
        return False
    previous = locked.status
    PrefCampaign.objects.filter(pk=campaign.pk).update(status=status)
    if status == PrefCampaign.Status.CLOSED:
        PrefLease.objects.filter(item__campaign=campaign).delete()
    audit(campaign=campaign, user=user, kind="status", **{"from": previous, "to": status})
    campaign.status = status
    return True
