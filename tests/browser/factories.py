"""Judging data for page and browser tests: a small pool with topics and documents, and campaigns on it."""
from __future__ import annotations

from collections_app.models import Document, Pool, PoolPair, QrelsEntry, QrelsSet, Topic

SCRIPT_DOC = "Before <script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned=2\"> after"


def make_pool(collection, *, topics: int = 2, docs_per_topic: int = 4, name: str = "p1") -> Pool:
    """Create ``topics`` topics with ``docs_per_topic`` documents each, pooled in a fixed order."""
    pool = Pool.objects.create(collection=collection, name=name, strategy=Pool.Strategy.DEPTH)
    order = 0
    for t in range(1, topics + 1):
        topic = Topic.objects.create(
            collection=collection, qid=str(400 + t), title=f"solar energy storage {t}",
            description=f"Find documents about storing solar energy (topic {t}).",
            narrative="Relevant documents describe batteries or other storage for solar power.",
        )
        for d in range(1, docs_per_topic + 1):
            docno = f"D{t}-{d}"
            document = Document.objects.create(
                collection=collection, docno=docno, title=f"Document {docno}",
                text=f"Solar panels and energy storage, part {d}. " * 5,
            )
            order += 1
            PoolPair.objects.create(
                pool=pool, topic=topic, docno=docno, document=document, judging_order=order, best_rank=d,
                run_ranks={"runA": d},
            )
    return pool


def make_gold(collection, pool, *, grade: int = 2) -> QrelsSet:
    """Create a qrels set labelling every pooled pair of the pool with ``grade`` (gold answers)."""
    qrels = QrelsSet.objects.create(collection=collection, name="gold", checksum="0" * 64)
    for pair in pool.pairs.all():
        QrelsEntry.objects.create(qrels_set=qrels, topic=pair.topic, docno=pair.docno, grade=grade)
    qrels.num_judgments = pool.pairs.count()
    qrels.save(update_fields=["num_judgments"])
    return qrels


def make_campaign(collection, *, lead, assessors, pool=None, name: str = "round 1", **options):
    """Start a campaign through the service, as the lead's form does."""
    from judging.plan import CampaignPlan
    from judging.services.campaigns import campaign_create

    pool = pool or make_pool(collection)
    return campaign_create(
        collection=collection, pool=pool, name=name, created_by=lead, assessors=list(assessors),
        plan=CampaignPlan.of(**options),
    )
