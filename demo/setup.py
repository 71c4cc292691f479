"""Load the demo collection through the real importers, idempotently.

Files are written to a temporary directory in the formats users upload (TREC topics,
JSONL documents, TREC runs and qrels) and imported with the same services the commands
and pages use, so the demo exercises the real path. Every step is skipped when its data
is already there, so running it twice changes nothing.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from collections_app.models import Collection, Membership
from collections_app.services import imports
from collections_app.services.collections import collection_create, membership_set
from collections_app.services.pools import pool_build
from demo import corpus as demo_corpus
from demo import retrieval
from judging.models import Campaign
from judging.plan import CampaignPlan
from judging.services.campaigns import campaign_create
from preferences.models import PrefCampaign
from preferences.services.campaigns import side_by_side_create

SLUG = "demo"
POOL_NAME = "depth-10"
QRELS_NAME = "prior-round"
PRIOR_ROUND_TOPICS = 3
ACCOUNTS = (("lead", "lead-demo-pass", Membership.Role.LEAD),
            ("alice", "alice-demo-pass", Membership.Role.ASSESSOR),
            ("bob", "bob-demo-pass", Membership.Role.ASSESSOR))


@dataclass
class DemoReport:
    collection: Collection
    steps: list[str] = field(default_factory=list)
    accounts: tuple = ACCOUNTS


CAMPAIGN_NAME = "Demo judging"
PREFERENCE_NAME = "Demo side by side: bm25-td vs tfidf-t"
PREFERENCE_RUNS = ("bm25-td", "tfidf-t")


def demo_setup(*, seed: int = 42, num_documents: int = 1200, num_topics: int = 10, depth: int = 100,
               stdout=None) -> DemoReport:
    """Create (or complete) the demo collection and its accounts; return what was done."""
    users = {}
    User = get_user_model()
    for username, password, _role in ACCOUNTS:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_user(username=username, password=password, email=f"{username}@example.org")
        users[username] = user
    collection = Collection.objects.filter(slug=SLUG).first()
    report = DemoReport(collection=collection)  # type: ignore[arg-type]
    if collection is None:
        collection = collection_create(slug=SLUG, name="Demo collection", scale="graded",
                                       description="Synthetic documents on six themes, with runs from TF-IDF, BM25 and query-likelihood variants.",
                                       guidelines=_GUIDELINES, created_by=users["lead"])
        report.steps.append("created collection demo")
    report.collection = collection
    for username, _password, role in ACCOUNTS:
        if not Membership.objects.filter(collection=collection, user=users[username]).exists():
            membership_set(collection=collection, user=users[username], role=role)
    if not _complete(collection):
        data = demo_corpus.generate(seed=seed, num_documents=num_documents, num_topics=num_topics)
        with tempfile.TemporaryDirectory(prefix="qrelsmith-demo-") as tmp:
            _load(collection=collection, data=data, tmp=Path(tmp), depth=depth, seed=seed,
                  lead=users["lead"], report=report)
    _ensure_campaign(collection=collection, users=users, report=report)
    _ensure_preference_campaign(collection=collection, users=users, report=report)
    return report


def _ensure_campaign(*, collection: Collection, users: dict, report: DemoReport) -> None:
    """Start a judging campaign on the demo pool so the demo assessors can judge at once.

    A fifth of the pairs are judged by both assessors (for agreement), and the
    prior round's labels serve as gold pairs, with a crowd link enabled.
    """
    if Campaign.objects.filter(collection=collection, name=CAMPAIGN_NAME).exists():
        return
    campaign = campaign_create(
        collection=collection, pool=collection.pools.get(name=POOL_NAME), name=CAMPAIGN_NAME,
        created_by=users["lead"], assessors=[users["alice"], users["bob"]],
        plan=CampaignPlan.of(overlap="fraction", overlap_fraction=0.2, seed=0,
                             gold_qrels=collection.qrels_sets.get(name=QRELS_NAME), gold_rate=0.1,
                             crowd_enabled=True, crowd_batch_size=10),
    )
    report.steps.append(f"campaign {campaign.name}: {campaign.items.count()} items for alice and bob")


def _ensure_preference_campaign(*, collection: Collection, users: dict, report: DemoReport) -> None:
    """Start a side-by-side study of two demo runs over every topic, judged by alice and bob."""
    if PrefCampaign.objects.filter(collection=collection, name=PREFERENCE_NAME).exists():
        return
    run_a, run_b = (collection.runs.get(tag=tag) for tag in PREFERENCE_RUNS)
    campaign = side_by_side_create(
        collection=collection, name=PREFERENCE_NAME, run_a=run_a, run_b=run_b,
        topics=collection.topics.order_by("qid"), judgments_per_item=2, seed=0,
        assessors=[users["alice"], users["bob"]], user=users["lead"],
    )
    report.steps.append(f"preference campaign {campaign.name}: {campaign.items.count()} topics for alice and bob")


def _load(*, collection, data, tmp: Path, depth: int, seed: int, lead, report: DemoReport) -> None:
    if not collection.topics.exists():
        path = tmp / "topics.txt"
        path.write_text("".join(_trec_topic(topic) for topic in data.topics), encoding="utf-8")
        report.steps.append(imports.topics_import(collection=collection, source=path).line())
    if not collection.documents.exists():
        path = tmp / "documents.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for doc in data.documents:
                out.write(json.dumps(doc) + "\n")
        report.steps.append(imports.documents_import(collection=collection, source=path).line())
    existing = set(collection.runs.values_list("tag", flat=True))
    for variant in retrieval.VARIANTS:
        if variant.tag in existing:
            continue
        path = tmp / f"{variant.tag}.run"
        rows = retrieval.run_variant(variant, data.documents, data.topics, depth=depth, seed=seed)
        with path.open("w", encoding="utf-8") as out:
            rank = 0
            last_qid = None
            for qid, docno, score in rows:
                rank = rank + 1 if qid == last_qid else 1
                last_qid = qid
                out.write(f"{qid} Q0 {docno} {rank} {score:.6f} {variant.tag}\n")
        # A run's group and description apply to every file of one import, so each variant is its own.
        summary = imports.runs_import(collection=collection, sources=[path], group=variant.group,
                                      description=variant.description, user=lead)
        report.steps.append(f"{variant.tag}: {summary.line()}")
    if not collection.qrels_sets.filter(name=QRELS_NAME).exists():
        path = tmp / "prior-round.qrels"
        with path.open("w", encoding="utf-8") as out:
            for topic in data.topics[:PRIOR_ROUND_TOPICS]:
                for docno, grade in _prior_judgments(data, topic["qid"]):
                    out.write(f"{topic['qid']} 0 {docno} {grade}\n")
        report.steps.append(imports.qrels_import(collection=collection, source=path, name=QRELS_NAME, user=lead).line())
    if not collection.pools.filter(name=POOL_NAME).exists():
        with transaction.atomic():
            pool = pool_build(collection=collection, name=POOL_NAME, strategy="depth", depth=10, user=lead)
        report.steps.append(f"pool {pool.name}: {pool.pairs.count()} pairs")


def _complete(collection: Collection) -> bool:
    """Return True if every demo step has been done, so nothing needs generating."""
    tags = set(collection.runs.values_list("tag", flat=True))
    return (
        collection.topics.exists()
        and collection.documents.exists()
        and all(variant.tag in tags for variant in retrieval.VARIANTS)
        and collection.qrels_sets.filter(name=QRELS_NAME).exists()
        and collection.pools.filter(name=POOL_NAME).exists()
    )


def _prior_judgments(data, qid: str) -> list[tuple[str, int]]:
    """Judge a deterministic slice of the documents for a topic: some relevant, some not."""
    gold = data.gold[qid]
    relevant = sorted(gold)[:15]
    nonrelevant = [doc["docno"] for doc in data.documents if doc["docno"] not in gold][:10]
    return [(docno, gold[docno]) for docno in relevant] + [(docno, 0) for docno in nonrelevant]


def _trec_topic(topic: dict) -> str:
    return (f"<top>\n<num> Number: {topic['qid']}\n<title> {topic['title']}\n\n"
            f"<desc> Description:\n{topic['description']}\n\n<narr> Narrative:\n{topic['narrative']}\n</top>\n\n")


_GUIDELINES = """Judge each document against the topic's description and narrative.
3 = the document is mainly about exactly what the topic asks for;
2 = clearly about it, with other matters too; 1 = related (same theme, passing mention);
0 = not relevant. Judge the document itself, not what it might link to."""
