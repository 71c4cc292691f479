"""The demo collection: a deterministic synthetic corpus, disagreeing runs, an idempotent setup."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from collections_app.models import Collection, Pool, QrelsSet, Run
from demo import corpus, retrieval
from judging.models import Campaign, Item
from preferences.models import PrefCampaign


def test_the_corpus_is_the_same_for_the_same_seed_and_differs_for_another():
    first = corpus.generate(seed=7, num_documents=200)
    assert first == corpus.generate(seed=7, num_documents=200)
    assert first.documents != corpus.generate(seed=8, num_documents=200).documents
    assert len(first.topics) == 10 and len({topic["qid"] for topic in first.topics}) == 10
    assert all(topic["title"] and topic["description"] and topic["narrative"] for topic in first.topics)


def test_every_topic_has_relevant_and_nonrelevant_documents():
    data = corpus.generate(num_documents=400)
    for topic in data.topics:
        grades = data.gold[topic["qid"]]
        assert 0 < len(grades) < len(data.documents) / 2
        assert set(grades.values()) <= {1, 2, 3}


def test_the_variants_produce_genuinely_different_rankings():
    data = corpus.generate(num_documents=300)
    tops = {}
    for variant in retrieval.VARIANTS:
        rows = retrieval.run_variant(variant, data.documents, data.topics, depth=20)
        assert len(rows) == 20 * len(data.topics)
        tops[variant.tag] = tuple(docno for _, docno, _ in rows)
    assert 10 <= len(retrieval.VARIANTS) <= 20
    assert len(set(tops.values())) == len(tops)


def test_rankings_are_sorted_by_score_and_beat_the_noisy_run_on_average():
    data = corpus.generate(num_documents=400)

    def precision_at_10(variant):
        rows = retrieval.run_variant(variant, data.documents, data.topics, depth=10)
        return sum(data.gold[qid].get(docno, 0) > 0 for qid, docno, _ in rows) / len(rows)

    rows = retrieval.run_variant(retrieval.VARIANTS[4], data.documents, data.topics[:1], depth=50)
    scores = [score for _, _, score in rows]
    assert scores == sorted(scores, reverse=True)
    models = [precision_at_10(v) for v in retrieval.VARIANTS if v.model != "noise"]
    assert sum(models) / len(models) > 0.3


@pytest.mark.django_db
def test_demo_setup_loads_runs_a_pool_and_qrels_and_is_idempotent(capsys):
    call_command("demo_setup", "--documents", "300")
    first = capsys.readouterr().out
    demo = Collection.objects.get(slug="demo")
    assert 10 <= Run.objects.filter(collection=demo).count() <= 20
    pool = Pool.objects.get(collection=demo, name="depth-10")
    assert pool.pairs.count() > 0 and pool.runs.count() == Run.objects.count()
    assert QrelsSet.objects.get(collection=demo).num_judgments > 0
    assert demo.documents.count() == 300 and demo.topics.count() == 10
    assert {m.user.username: m.role for m in demo.memberships.select_related("user")} == {
        "lead": "lead", "alice": "assessor", "bob": "assessor"}
    assert "lead / lead-demo-pass" in first
    campaign = Campaign.objects.get(collection=demo)
    pool.refresh_from_db()
    assert pool.frozen and campaign.pool_id == pool.pk
    assert set(campaign.assessors.values_list("user__username", flat=True)) == {"alice", "bob"}
    assert campaign.items.filter(is_gold=True).exists() and campaign.items.filter(required_judgments=2).exists()
    study = PrefCampaign.objects.get(collection=demo)
    assert study.kind == "sbs" and (study.run_a.tag, study.run_b.tag) == ("bm25-td", "tfidf-t")
    assert study.items.count() == 10 and set(study.assessors.values_list("user__username", flat=True)) == {"alice", "bob"}

    snapshot = (Run.objects.count(), Pool.objects.count(), pool.pairs.count(), demo.documents.count(),
                Campaign.objects.count(), Item.objects.count(), PrefCampaign.objects.count())
    call_command("demo_setup", "--documents", "300")
    second = capsys.readouterr().out
    assert (Run.objects.count(), Pool.objects.count(), pool.pairs.count(), demo.documents.count(),
            Campaign.objects.count(), Item.objects.count(), PrefCampaign.objects.count()) == snapshot
    assert "nothing changed" in second
    assert second.split("Accounts")[1] == first.split("Accounts")[1]


@pytest.mark.django_db
def test_demo_accounts_log_in_with_the_printed_passwords(client):
    call_command("demo_setup", "--documents", "200")
    assert client.login(username="lead", password="lead-demo-pass")
    assert client.get("/c/demo/").status_code == 200
