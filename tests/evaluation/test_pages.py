"""Evaluation pages: who may see what, escaping of untrusted run tags and topic titles, bounded queries."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from collections_app.services.imports import runs_import
from tests.evaluation.conftest import write_run

pytestmark = pytest.mark.django_db

EVIL = "<script>alert(1)<script>"  # no "/": the identifier rule refuses it in run tags


def urls(slug, tag="bm25"):
    return {
        "leaderboard": reverse("evaluation-leaderboard", kwargs={"slug": slug}),
        "topics": reverse("evaluation-run-topics", kwargs={"slug": slug, "tag": tag}),
        "significance": reverse("evaluation-significance", kwargs={"slug": slug}) + "?runs=4",
        "stability": reverse("evaluation-stability", kwargs={"slug": slug}),
        "pool_bias": reverse("evaluation-pool-bias", kwargs={"slug": slug}),
    }


MEMBER_PAGES = ("leaderboard", "topics", "significance")
LEAD_PAGES = ("stability", "pool_bias")


def test_lead_sees_every_page(client, scored, lead):
    client.force_login(lead)
    for name, url in urls(scored.slug).items():
        assert client.get(url).status_code == 200, name


def test_assessor_is_blind_to_every_evaluation_page_by_default(client, scored, alice):
    client.force_login(alice)
    for name, url in urls(scored.slug).items():
        response = client.get(url)
        assert response.status_code == 403, name
        assert "(blind judging)" in response.content.decode() or name in LEAD_PAGES, name


def test_assessor_sees_member_pages_only_once_the_lead_opens_systems(client, scored, alice):
    scored.assessors_see_systems = True
    scored.save()
    client.force_login(alice)
    for name, url in urls(scored.slug).items():
        assert client.get(url).status_code == (200 if name in MEMBER_PAGES else 403), name


def test_outsider_gets_404_and_anonymous_goes_to_login(client, scored, mallory):
    client.force_login(mallory)
    for name, url in urls(scored.slug).items():
        assert client.get(url).status_code == 404, name
    client.logout()
    for name, url in urls(scored.slug).items():
        response = client.get(url)
        assert response.status_code == 302 and "login" in response["Location"], name


def test_unknown_source_and_run_are_404(client, scored, lead):
    client.force_login(lead)
    assert client.get(urls(scored.slug)["leaderboard"] + "?source=set:999999").status_code == 404
    assert client.get(urls(scored.slug, tag="nope")["topics"]).status_code == 404


def test_run_tags_and_topic_titles_are_escaped(client, scored, lead, tmp_path):
    runs_import(collection=scored, sources=[write_run(tmp_path / "evil.run", EVIL, {"401": ["d1"], "403": ["f3"]})])
    client.force_login(lead)
    for name, url in urls(scored.slug, tag=EVIL).items():
        body = client.get(url).content.decode()
        assert EVIL not in body, name
        assert "<script>alert(" not in body, name
    topics = client.get(urls(scored.slug, tag=EVIL)["topics"]).content.decode()
    assert "&lt;script&gt;alert(&#x27;topic&#x27;)&lt;/script&gt;" in topics
    assert "&lt;script&gt;alert(1)&lt;script&gt;" in client.get(urls(scored.slug)["leaderboard"]).content.decode()


def test_significance_and_pool_bias_pages_show_results(client, scored, lead):
    client.force_login(lead)
    body = client.get(urls(scored.slug)["significance"]).content.decode()
    assert body.count("p=") == 12  # 4 runs: 12 off-diagonal cells
    body = client.get(urls(scored.slug)["pool_bias"] + "?by=group&depth=100").content.decode()
    assert body.count('data-run="') == 4
    token = f"set:{scored.qrels_sets.get().pk}"
    body = client.get(urls(scored.slug)["stability"] + f"?a={token}&b={token}").content.decode()
    assert 'class="tau">1.0000<' in body and "No pair swaps" in body


def test_leaderboard_queries_do_not_grow_with_runs(client, scored, lead, tmp_path):
    client.force_login(lead)
    url = urls(scored.slug)["leaderboard"]
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    for i in range(6):
        runs_import(collection=scored, sources=[write_run(tmp_path / f"x{i}.run", f"extra{i}", {"401": ["d1", "d2"]})])
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(many) == len(few) <= 20


def test_pages_render_without_qrels_or_runs(client, collection, lead):
    client.force_login(lead)
    pages = urls(collection.slug)
    assert 'id="no-qrels"' in client.get(pages["leaderboard"]).content.decode()
    for name in ("significance", "stability", "pool_bias"):
        assert client.get(pages[name]).status_code == 200, name
    assert client.get(pages["topics"]).status_code == 404  # no such run


def test_stability_starts_with_qrels_a_and_b_on_different_versions(client, scored, lead, tmp_path):
    import re

    from collections_app.services.imports import qrels_import
    from tests.evaluation.conftest import QRELS, write_qrels

    qrels_import(collection=scored, source=write_qrels(tmp_path / "second.qrels", QRELS), name="second", user=lead)
    client.force_login(lead)
    html = client.get(urls(scored.slug)["stability"]).content.decode()
    selected = {name: re.search(rf'<select name="{name}">.*?<option value="([^"]+)" selected', html, re.S).group(1)
                for name in ("a", "b")}
    assert selected["a"] != selected["b"]
