"""Gold stays secret: assessors cannot tell gold pairs apart in pages, the API or item ids; leads can.

The campaign's gold qrels label two pairs outside the judged pool, so a gold companion pool
is created (the case the issue's probe found listed in the pools API with its pairs).
"""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import Pool
from judging.models import Item
from preferences.models import PrefItem
from tests.judging.conftest import build_gold

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def systems_open_to_assessors(collection):
    """Assessors are blind to runs and pools by default; gold must stay secret also once a lead opens them."""
    collection.assessors_see_systems = True
    collection.save(update_fields=["assessors_see_systems"])


@pytest.fixture
def gold_campaign(collection, make_campaign):
    gold = build_gold(collection, [("401", "T1-SECRET", 0), ("402", "T2-SECRET", 2)])
    return make_campaign(gold_qrels=gold, gold_rate=0.1)


@pytest.fixture
def companion(gold_campaign):
    return Pool.objects.get(parameters__gold_for_campaign=gold_campaign.pk)


def _api(name, collection, *args):
    return reverse(name, args=[collection.slug, *args])


def test_the_campaign_has_a_companion_pool_of_its_gold_pairs(gold_campaign, companion, pool):
    assert set(companion.pairs.values_list("docno", flat=True)) == {"T1-SECRET", "T2-SECRET"}
    assert companion.parameters["gold_for_pool"] == pool.pk


@pytest.mark.parametrize("role", ["alice", "lead"])
def test_only_leads_see_gold_companion_pools_and_their_pairs_in_the_api(client, request, collection, companion, pool,
                                                                        role):
    client.force_login(request.getfixturevalue(role))
    listed = client.get(_api("api-pools", collection)).json()
    names = [p["name"] for p in (listed["results"] if isinstance(listed, dict) else listed)]
    detail = client.get(_api("api-pool", collection, companion.name))
    stats = client.get(_api("api-pool-stats", collection, companion.name))
    pairs = client.get(_api("api-pool-pairs", collection, companion.name))
    judged_pairs = client.get(_api("api-pool-pairs", collection, pool.name))
    if role == "lead":
        assert companion.name in names and pool.name in names
        assert detail.status_code == stats.status_code == pairs.status_code == judged_pairs.status_code == 200
        assert "T1-SECRET" in pairs.content.decode()
    else:
        assert companion.name not in names and pool.name in names
        assert detail.status_code == stats.status_code == pairs.status_code == 404
        assert judged_pairs.status_code == 403  # the list would show which pairs are not the pool's own
        for response in (detail, stats, pairs, judged_pairs):
            assert "SECRET" not in response.content.decode()


@pytest.mark.parametrize("role", ["alice", "lead"])
def test_only_leads_see_gold_companion_pools_in_the_pages(client, request, collection, companion, pool, role):
    client.force_login(request.getfixturevalue(role))
    overview = client.get(reverse("collection-detail", args=[collection.slug])).content.decode()
    companion_page = client.get(reverse("pool-detail", args=[collection.slug, companion.name]))
    pool_page = client.get(reverse("pool-detail", args=[collection.slug, pool.name])).content.decode()
    if role == "lead":
        assert "· gold ·" in overview and companion_page.status_code == 200
        assert "T1-SECRET" in companion_page.content.decode() and "T1-D1" in pool_page
    else:
        assert "· gold ·" not in overview and companion_page.status_code == 404
        assert 'id="pairs-hidden"' in pool_page and "T1-D1" not in pool_page


def test_a_pool_without_gold_still_lists_its_pairs_to_assessors(client, collection, make_campaign, pool, alice):
    make_campaign()
    client.force_login(alice)
    assert client.get(_api("api-pool-pairs", collection, pool.name)).status_code == 200
    assert "T1-D1" in client.get(reverse("pool-detail", args=[collection.slug, pool.name])).content.decode()


def test_mallory_the_outsider_sees_no_pool_at_all(client, collection, companion, mallory):
    client.force_login(mallory)
    assert client.get(_api("api-pools", collection)).status_code == 404
    assert client.get(_api("api-pool-pairs", collection, companion.name)).status_code == 404


def test_item_ids_do_not_single_out_gold_items(collection, make_campaign):
    gold = build_gold(collection, [(str(400 + t), f"T{t}-D{d}", 0) for t in range(1, 5) for d in range(1, 6)])
    campaign = make_campaign(gold_qrels=gold, gold_rate=0.25)  # 5 of the 20 pool pairs become gold
    ids = list(Item.objects.filter(campaign=campaign).order_by("pk").values_list("is_gold", flat=True))
    assert sum(ids) == 5
    assert ids[-5:] != [True] * 5  # the gold items are not simply the newest rows
    positions = list(Item.objects.filter(campaign=campaign).order_by("position").values_list("is_gold", flat=True))
    assert positions[-5:] == [True] * 5  # the layout itself is unchanged: gold is served by allocation, not by id


def test_preference_item_ids_do_not_single_out_gold_items(collection, lead):
    from preferences.services.campaigns import doc_pair_create
    from tests.judging.conftest import build_pool

    build_pool(collection)
    topic = collection.topics.get(qid="401")
    pairs = [(topic, f"T1-D{a}", f"T1-D{b}") for a, b in ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))]
    gold = [(topic, "T1-D1", "T1-D5"), (topic, "T1-D2", "T1-D5"), (topic, "T1-D3", "T1-D5")]
    campaign = doc_pair_create(collection=collection, name="p", pairs=pairs, gold_pairs=gold, user=lead, seed=3)
    by_id = list(PrefItem.objects.filter(campaign=campaign).order_by("pk").values_list("is_gold", flat=True))
    assert sum(by_id) == 3 and by_id[-3:] != [True] * 3
