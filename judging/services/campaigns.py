"""Start campaigns over a pool: items, overlap, order, gold pairs, primary assessors.

How a campaign's work is laid out (all decided once, at creation, from the seed):

- **Order**: the pool's ``judging_order`` or a seeded shuffle. Calibration items come
  first (everyone judges them before anything else), then the regular items, then gold.
- **Overlap**: ``none`` → every item needs 1 judgment; ``replicate`` → r judgments;
  ``fraction`` → a seeded choice of ``round(f·N)`` items needs 2, the rest 1;
  ``calibration`` → a seeded choice of ``calibration_size`` items is judged by *everyone*
  (``is_calibration``), the rest once.
- **Split**: ``shared_queue`` hands out items pair by pair in order; ``by_topic`` gives
  each topic one primary assessor (round-robin over topics in order of first appearance);
  an item's first judgment is reserved for its primary assessor, and further judgments
  (overlap) go to the others.
- **Gold**: pairs of the pool's topics with a label in ``gold_qrels``. ``round(gold_rate·N)``
  of them (seeded, capped by what exists) become gold items, judged by everyone and served
  to each assessor at ``gold_rate`` of their work (see allocation). A gold pair that is
  already in the pool is used as it is (its item is gold, not a regular item, and it never
  enters the final labels — the imported qrels already hold its label). A gold pair that is
  not in the pool (pools leave out already-judged pairs) is added to a frozen companion
  pool named ``<pool> · gold · <campaign>``, so the judged pool itself stays exactly as it
  was frozen.
"""
from __future__ import annotations

import random

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from campaign_core.item_ids import bulk_create_shuffled
from campaign_core.services.audit import audit
from collections_app.models import Document, Membership, Pool, PoolPair, QrelsEntry
from judging.models import Assessor, Campaign, Item, Lease
from judging.plan import MAX_REPLICATION, CampaignPlan


def _check_collection(*, collection, pool, plan: CampaignPlan) -> None:
    """Refuse a pool or gold qrels of another collection (the plan has checked everything else)."""
    errors = []
    if pool.collection_id != collection.pk:
        errors.append(ValidationError("The pool belongs to another collection.", code="bad_pool"))
    if plan.gold.qrels is not None and plan.gold.qrels.collection_id != collection.pk:
        errors.append(ValidationError("The gold qrels belong to another collection.", code="bad_gold"))
    if errors:
        raise ValidationError(errors)


def _check_assessors(collection, users) -> None:
    members = set(
        Membership.objects.filter(collection=collection, user__in=users).values_list("user_id", flat=True)
    )
    outsiders = [u.get_username() for u in users if u.pk not in members]
    if outsiders:
        raise ValidationError(
            f"Not members of the collection: {', '.join(outsiders)}.", code="not_member"
        )


def _gold_pairs(*, campaign: Campaign, pool: Pool, pairs: list[PoolPair], count: int, rng) -> list[tuple[PoolPair, int]]:
    """Choose ``count`` gold pairs (pair, known grade), creating companion-pool pairs when needed."""
    by_key = {(p.topic_id, p.docno): p for p in pairs}
    topic_ids = {p.topic_id for p in pairs}
    entries = list(
        QrelsEntry.objects.filter(qrels_set=campaign.gold_qrels, topic_id__in=topic_ids)
        .order_by("topic_id", "docno", "id")
        .values_list("topic_id", "docno", "grade")
    )
    seen: dict[tuple[int, str], int] = {}
    for topic_id, docno, grade in entries:
        seen.setdefault((topic_id, docno), grade)  # the first line wins if the qrels repeat a pair
    keys = sorted(seen)
    chosen = rng.sample(keys, min(count, len(keys)))
    missing = [key for key in chosen if key not in by_key]
    if missing:
        companion = Pool.objects.create(
            collection=campaign.collection,
            name=f"{pool.name} · gold · {campaign.name}"[:200],
            # A companion only holds gold pairs: never mark it sampled (it has no strata to redraw).
            strategy=Pool.Strategy.DEPTH if pool.strategy == Pool.Strategy.SAMPLE else pool.strategy,
            # Marked so that pages and the API show gold companions, and the judged pool's pair list, to leads only.
            parameters={"gold_for_campaign": campaign.pk, "gold_for_pool": pool.pk, "gold_qrels": campaign.gold_qrels_id},
            created_by=campaign.created_by,
            frozen=True,
        )
        documents = dict(
            Document.objects.filter(collection=campaign.collection, docno__in=[d for _, d in missing])
            .values_list("docno", "pk")
        )
        created = PoolPair.objects.bulk_create(
            PoolPair(pool=companion, topic_id=t, docno=d, document_id=documents.get(d), judging_order=i,
                     best_rank=1, run_ranks={})
            for i, (t, d) in enumerate(missing, start=1)
        )
        if not all(p.pk for p in created):  # backends without RETURNING: read them back
            created = list(PoolPair.objects.filter(pool=companion))
        by_key.update({(p.topic_id, p.docno): p for p in created})
    return [(by_key[key], seen[key]) for key in chosen]


@transaction.atomic
def campaign_create(*, collection, pool, name: str, created_by, assessors: list,
                    plan: CampaignPlan | None = None) -> Campaign:
    """Start a campaign over a pool: freeze the pool and lay out every item of work once, as ``plan`` says.

    Everything that decides who judges what is fixed here (and seeded), so a campaign is
    reproducible and allocation only has to read it. The plan is valid by construction
    (``judging.plan``); this raises ValidationError for a pool or gold qrels of another
    collection, assessors who are not members, a missing or taken name, or an empty pool.
    """
    plan = plan or CampaignPlan()
    _check_collection(collection=collection, pool=pool, plan=plan)
    users = list(dict.fromkeys(assessors))
    _check_assessors(collection, users)
    if not name.strip():
        raise ValidationError("A campaign needs a name.", code="bad_name")
    if Campaign.objects.filter(collection=collection, name=name).exists():
        raise ValidationError(f"A campaign named {name!r} already exists.", code="duplicate_name")
    pairs = list(PoolPair.objects.filter(pool=pool).order_by("judging_order", "id"))
    if not pairs:
        raise ValidationError("The pool has no pairs to judge.", code="empty_pool")

    Pool.objects.filter(pk=pool.pk).update(frozen=True)
    pool.frozen = True
    campaign = Campaign.objects.create(collection=collection, pool=pool, name=name, created_by=created_by,
                                       **plan.campaign_fields())
    rows = [Assessor(campaign=campaign, kind=Assessor.Kind.EXPERT, user=u) for u in users]
    Assessor.objects.bulk_create(rows)
    experts = list(Assessor.objects.filter(campaign=campaign).order_by("id"))
    everyone = max(1, len(experts))

    rng = random.Random(plan.order.seed)
    gold: list[tuple[PoolPair, int]] = []
    if plan.gold.qrels is not None and plan.gold.rate > 0:
        gold = _gold_pairs(campaign=campaign, pool=pool, pairs=pairs, count=round(plan.gold.rate * len(pairs)),
                           rng=rng)
    gold_ids = {p.pk for p, _ in gold}
    regular = [p for p in pairs if p.pk not in gold_ids]
    if plan.order.order == Campaign.Order.RANDOM:
        rng.shuffle(regular)

    calibration: set[int] = set()
    twice: set[int] = set()
    if campaign.overlap == Campaign.Overlap.CALIBRATION:
        calibration = {p.pk for p in rng.sample(regular, min(campaign.calibration_size, len(regular)))}
    elif campaign.overlap == Campaign.Overlap.FRACTION:
        twice = {p.pk for p in rng.sample(regular, round(campaign.overlap_fraction * len(regular)))}
    ordered = [p for p in regular if p.pk in calibration] + [p for p in regular if p.pk not in calibration]

    primary: dict[int, Assessor] = {}
    if plan.work.split == Campaign.Split.BY_TOPIC and experts:
        topics = list(dict.fromkeys(p.topic_id for p in ordered))
        for index, topic_id in enumerate(topics):
            primary[topic_id] = experts[index % len(experts)]
        for assessor in experts:
            assessor.topics.set([t for t, a in primary.items() if a.pk == assessor.pk])

    items = []
    for position, pair in enumerate(ordered, start=1):
        if pair.pk in calibration:
            required = everyone
        elif pair.pk in twice:
            required = 2
        else:
            required = campaign.judgments_per_pair
        items.append(Item(
            campaign=campaign, pair=pair, position=position, required_judgments=required,
            is_calibration=pair.pk in calibration,
            primary_assessor=None if pair.pk in calibration else primary.get(pair.topic_id),
        ))
    start = len(items)
    for offset, (pair, grade) in enumerate(gold, start=1):
        items.append(Item(campaign=campaign, pair=pair, position=start + offset, required_judgments=everyone,
                          is_gold=True, gold_grade=grade))
    bulk_create_shuffled(Item, items, seed=f"{campaign.pk}:{campaign.seed}")  # ids must not single out the gold items
    return campaign


@transaction.atomic
def campaign_set_status(*, campaign: Campaign, status: str, user=None) -> Campaign:
    """Pause, resume or finish a campaign; a non-active campaign hands out no work and refuses submits.

    Pausing or finishing drops every lease (nobody holds a pair of a campaign that is not
    running; judgments stay). With ``user`` (a lead's action) a change is written to Django's
    admin log as ``{"kind": "status", "from", "to"}`` on the campaign, like rejudge requests
    and blocks; setting the status a campaign already has changes and logs nothing.
    """
    if status not in Campaign.Status.values:
        raise ValidationError(f"Unknown status {status!r}; use {', '.join(Campaign.Status.values)}.",
                              code="bad_status")
    previous = Campaign.objects.select_for_update().values_list("status", flat=True).get(pk=campaign.pk)
    campaign.status = status
    if previous == status:
        return campaign
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    if status != Campaign.Status.ACTIVE:
        Lease.objects.filter(item__campaign=campaign).delete()
    if user is not None:
        audit(campaign=campaign, user=user, kind="status", **{"from": previous, "to": status})
    return campaign


@transaction.atomic
def campaign_add_assessor(*, campaign: Campaign, user) -> Assessor:
    """Add a member of the collection as an expert assessor; calibration and gold items expect them too."""
    _check_assessors(campaign.collection, [user])
    assessor, created = Assessor.objects.get_or_create(
        campaign=campaign, user=user, defaults={"kind": Assessor.Kind.EXPERT}
    )
    if created and Assessor.objects.filter(campaign=campaign, kind=Assessor.Kind.EXPERT).count() > 1:
        Item.objects.filter(campaign=campaign).filter(is_calibration=True).update(
            required_judgments=F("required_judgments") + 1
        )
        Item.objects.filter(campaign=campaign, is_gold=True).update(required_judgments=F("required_judgments") + 1)
    return assessor


@transaction.atomic
def items_send_to_more_assessors(*, campaign: Campaign, item_ids: list[int], extra: int = 1) -> int:
    """Raise the judgments required of some items (e.g. skipped or disputed ones); return how many changed."""
    if not 1 <= extra <= MAX_REPLICATION:
        raise ValidationError("Extra judgments must be between 1 and 50.", code="bad_overlap")
    return (
        Item.objects.filter(campaign=campaign, pk__in=item_ids, is_gold=False, is_calibration=False)
        .filter(required_judgments__lte=MAX_REPLICATION - extra)
        .update(required_judgments=F("required_judgments") + extra)
    )
