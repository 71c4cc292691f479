"""Sampled pool: built by the service, the build_pool command and the pool_build page."""
import io
from collections import Counter

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from collections_app.models import Pool
from collections_app.pooling.sampling import stratified_sample
from collections_app.services.pools import pool_build

from .conftest import generated_case, store_case


@pytest.fixture
def big(collection):
    rankings, qrels = generated_case(1, topics=3, runs=4, docs=80)
    store_case(collection, rankings, qrels)
    return collection, rankings


@pytest.mark.django_db
def test_sampled_pool_records_strata_and_exact_inclusion_probabilities(big):
    collection, rankings = big
    pool = pool_build(collection=collection, name="s", strategy="sample", strata="5:1,20:0.5,50:0.25", seed=3,
                      exclude_judged=False)
    assert pool.parameters["strata"] == [[5, 1.0], [20, 0.5], [50, 0.25]]
    pairs = list(pool.pairs.values_list("topic__qid", "docno", "stratum", "inclusion_probability", "best_rank"))
    for qid in rankings:
        expected = stratified_sample(rankings[qid], strata=((5, 1.0), (20, 0.5), (50, 0.25)), seed=3, topic=qid)
        got = {d: (s, p) for q, d, s, p, _ in pairs if q == qid}
        assert got == {d: (s.stratum, s.prob) for d, s in expected.items() if s.sampled}
    for _q, _d, stratum, prob, best in pairs:
        first, last = map(int, stratum.split("-"))
        assert first <= best <= last
        assert stratum != "1-5" or prob == 1.0
    # n/N per band: the sampled count equals prob * band size.
    per_band = Counter((q, s) for q, _d, s, _p, _b in pairs)
    for (qid, stratum), n in per_band.items():
        prob = next(p for q, _d, s, p, _b in pairs if q == qid and s == stratum)
        band = sum(1 for s in stratified_sample(rankings[qid], strata=((5, 1.0), (20, 0.5), (50, 0.25)),
                                                seed=3, topic=qid).values() if s.stratum == stratum)
        assert n == pytest.approx(prob * band)


@pytest.mark.django_db
def test_same_seed_same_sample_and_other_pools_have_no_probabilities(big):
    collection, _ = big
    a = pool_build(collection=collection, name="a", strategy="sample", seed=9, exclude_judged=False)
    b = pool_build(collection=collection, name="b", strategy="sample", seed=9, exclude_judged=False)
    rows = ("topic__qid", "docno", "judging_order", "inclusion_probability")
    assert list(a.pairs.values_list(*rows)) == list(b.pairs.values_list(*rows))
    depth = pool_build(collection=collection, name="d", strategy="depth", depth=5, exclude_judged=False)
    assert set(depth.pairs.values_list("stratum", "inclusion_probability")) == {("", None)}


@pytest.mark.django_db
@pytest.mark.parametrize("strata", ["10:0", "10:1,5:1", "x"])
def test_bad_strata_are_refused(big, strata):
    with pytest.raises(ValidationError) as err:
        pool_build(collection=big[0], name="s", strategy="sample", strata=strata)
    assert err.value.code == "bad_strata"


@pytest.mark.django_db
def test_build_pool_command_builds_a_sampled_pool(big):
    out = io.StringIO()
    call_command("build_pool", "demo", "--name", "s", "--strategy", "sample", "--strata", "10:1,40:0.2",
                 "--include-judged", stdout=out)
    pool = Pool.objects.get(name="s")
    assert pool.strategy == "sample" and "(sample)" in out.getvalue()
    assert pool.pairs.filter(inclusion_probability__lt=1).exists()
    with pytest.raises(CommandError, match="rate"):
        call_command("build_pool", "demo", "--name", "t", "--strategy", "sample", "--strata", "10:2",
                     stdout=io.StringIO())


@pytest.mark.django_db
def test_pool_build_page_starts_a_sampled_pool(client, lead, alice, big):
    url = reverse("pool-build", kwargs={"slug": "demo"})
    form = {"name": "s", "strategy": "sample", "strata": "10:1,40:0.25", "fusion": "rrf", "order": "fused",
            "seed": "1"}
    client.force_login(alice)
    assert client.post(url, form).status_code == 403
    client.force_login(lead)
    assert client.post(url, {**form, "strata": "10:5"}).status_code == 200
    assert not Pool.objects.filter(name="s").exists()
    assert client.post(url, form).status_code == 302
    pool = Pool.objects.get(name="s")
    assert pool.parameters["strata"] == [[10, 1.0], [40, 0.25]]
