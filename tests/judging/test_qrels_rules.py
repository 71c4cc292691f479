"""Freeze rules backed by crowd aggregation: gold-weighted vote and Dawid–Skene, with confidences."""
from __future__ import annotations

import pytest

from aggregation import dawid_skene, gold_weighted_vote
from collections_app.models import Membership
from judging.models import Assessor, Item, QrelsVersion
from judging.services.exports import final_labels_csv
from judging.services.judgments import judgment_submit
from judging.services.qrels import final_labels, final_labels_detail, qrels_freeze
from tests.conftest import make_user
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(collection, make_campaign, alice, bob):
    """Alice, bob and carol judge every pair; items at positions 1–4 (topic 401) become gold."""
    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3)
    Item.objects.filter(campaign=campaign, position__in=[1, 2, 3, 4]).update(is_gold=True, gold_grade=2)
    return campaign, [expert(campaign, u) for u in (alice, bob, carol)]


def label(assessor, position, grade):
    item = Item.objects.get(campaign=assessor.campaign, position=position)
    judgment_submit(assessor=assessor, item=item, grade=grade, skipped=False,
                    client_token=f"{assessor.pk}-{position}-{grade}")
    return item


def test_gold_weighted_follows_the_assessor_who_gets_gold_right(trio):
    campaign, (a, b, c) = trio
    for position in (1, 2, 3, 4):  # alice always right on gold, bob and carol always wrong
        label(a, position, 2)
        label(b, position, 0)
        label(c, position, 1)
    label(a, 6, 3)
    label(b, 6, 0)
    label(c, 6, 0)
    assert final_labels(campaign=campaign, rule="majority") == {("402", "T2-D1"): 0}
    detail = final_labels_detail(campaign=campaign, rule="gold_weighted")
    assert list(detail) == [("402", "T2-D1")]  # gold items never get a final label
    grade, confidence = detail[("402", "T2-D1")]
    assert grade == 3
    # alice: 4/4 gold → a = 5/6, weight log(3·5) ; bob, carol: 0/4 → a = 1/6, weight max(0, log(3/5)) = 0
    assert confidence == pytest.approx(1.0)


def test_gold_weighted_matches_the_aggregator_on_the_same_votes(trio):
    campaign, (a, b, c) = trio
    grades = {a: [2, 2, 1, 2, 3, 1, 0, 2], b: [2, 0, 2, 2, 1, 1, 0, 3], c: [1, 2, 2, 2, 3, 0, 0, 3]}
    triples = []
    for assessor, row in grades.items():
        for position, grade in zip([1, 2, 3, 4, 6, 7, 8, 9], row):
            item = label(assessor, position, grade)
            triples.append((item.pk, assessor.pk, grade))
    gold = {pk: 2 for pk in Item.objects.filter(campaign=campaign, is_gold=True).values_list("pk", flat=True)}
    expected = gold_weighted_vote(triples, gold=gold, categories=[0, 1, 2, 3])
    detail = final_labels_detail(campaign=campaign, rule="gold_weighted")
    items = {i.pk: (i.pair.topic.qid, i.pair.docno) for i in Item.objects.filter(campaign=campaign).select_related("pair__topic")}
    want = {items[pk]: (r.label, pytest.approx(r.confidence, abs=1e-6)) for pk, r in expected.labels.items() if pk not in gold}
    assert detail == want and len(detail) == 4


def test_dawid_skene_matches_the_aggregator_and_excludes_blocked_assessors(trio):
    campaign, (a, b, c) = trio
    grades = {a: [2, 2, 1, 2, 3, 1, 0, 2], b: [2, 0, 2, 2, 1, 1, 0, 3], c: [0, 0, 0, 0, 0, 0, 0, 0]}
    triples = []
    for assessor, row in grades.items():
        for position, grade in zip([1, 2, 3, 4, 6, 7, 8, 9], row):
            item = label(assessor, position, grade)
            if assessor is not c:
                triples.append((item.pk, assessor.pk, grade))
    Assessor.objects.filter(pk=c.pk).update(blocked=True)
    expected = dawid_skene(triples, categories=[0, 1, 2, 3])
    gold = set(Item.objects.filter(campaign=campaign, is_gold=True).values_list("pk", flat=True))
    items = {i.pk: (i.pair.topic.qid, i.pair.docno) for i in Item.objects.filter(campaign=campaign).select_related("pair__topic")}
    want = {items[pk]: (r.label, pytest.approx(r.confidence, abs=1e-6)) for pk, r in expected.labels.items() if pk not in gold}
    assert final_labels_detail(campaign=campaign, rule="dawid_skene") == want
    # With carol's constant 0 excluded, position 9 (a:2, b:3) cannot come out as 0.
    assert final_labels(campaign=campaign, rule="dawid_skene")[("402", "T2-D4")] in (2, 3)


def test_confidence_of_the_simple_rules_is_the_vote_share(trio):
    campaign, (a, b, c) = trio
    label(a, 6, 1)
    label(b, 6, 1)
    label(c, 6, 3)
    assert final_labels_detail(campaign=campaign, rule="majority") == {("402", "T2-D1"): (1, pytest.approx(2 / 3))}
    assert final_labels_csv(campaign=campaign, rule="majority") == "qid,docno,grade,confidence\n402,T2-D1,1,0.6667\n"


def test_no_labels_gives_empty_qrels_under_aggregation_rules(trio, lead):
    campaign, _ = trio
    assert final_labels(campaign=campaign, rule="dawid_skene") == {}
    version = qrels_freeze(campaign=campaign, rule="gold_weighted", description="", user=lead)
    assert version.content == "" and version.rule == QrelsVersion.Rule.GOLD_WEIGHTED


def test_freeze_under_dawid_skene_writes_trec_lines(trio, lead):
    campaign, (a, b, c) = trio
    for assessor, grade in ((a, 3), (b, 3), (c, 0)):
        label(assessor, 6, grade)
    version = qrels_freeze(campaign=campaign, rule="dawid_skene", description="EM", user=lead)
    assert version.content == "402 0 T2-D1 3\n"
    assert version.num_relevant == 1


def test_final_labels_csv_download_is_lead_only(client, trio, lead, alice, mallory):
    from django.urls import reverse

    campaign, (a, b, c) = trio
    for assessor, grade in ((a, 3), (b, 3), (c, 0)):
        label(assessor, 6, grade)
    target = reverse("campaign-final-labels", args=[campaign.collection.slug, campaign.pk])
    assert client.get(target + "?rule=majority").status_code == 302
    client.force_login(alice)
    assert client.get(target + "?rule=majority").status_code == 403
    client.force_login(mallory)
    assert client.get(target + "?rule=majority").status_code == 404
    client.force_login(lead)
    response = client.get(target + "?rule=dawid_skene")
    body = b"".join(response.streaming_content).decode()  # streamed: memory stays flat on big campaigns
    lines = body.splitlines()  # a Dawid–Skene CSV opens with how the run ended (docs/formats.md)
    assert response.status_code == 200 and lines[0].startswith("# dawid_skene: ")
    assert lines[1] == "qid,docno,grade,confidence" and lines[2].startswith("402,T2-D1,3,")
    assert client.get(target + "?rule=vibes").status_code == 404
    page = client.get(reverse("campaign-qrels", args=[campaign.collection.slug, campaign.pk])).content.decode()
    assert 'value="dawid_skene"' in page and 'value="gold_weighted"' in page
