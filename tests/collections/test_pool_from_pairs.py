"""Pools from pairs (import_pool, the lead's page) and build_pool saying what it left out."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from collections_app.importers.errors import ImportFailed
from collections_app.models import Pool, PoolPair
from collections_app.services.imports import qrels_import
from collections_app.services.pools import pool_from_pairs
from tests.collections.import_helpers import add_topics, write
from tests.collections.test_pool_factories import add_run, bare_collection, ranked
from tests.conftest import PASSWORD


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def pairs_of(pool):
    return list(pool.pairs.order_by("judging_order").values_list("topic__qid", "docno"))


@pytest.fixture
def topics(collection):
    add_topics(collection, "1", "2", "10")
    return collection


def test_pairs_file_keeps_file_order(topics, tmp_path):
    pool = pool_from_pairs(collection=topics, name="p", source=write(tmp_path, "p.txt", "10 z\n# note\n\n1 b\n1 a\n"))
    assert pool.strategy == Pool.Strategy.PAIRS and pairs_of(pool) == [("10", "z"), ("1", "b"), ("1", "a")]
    assert pool.parameters["source_name"] == "p.txt"


def test_order_column_sets_the_judging_order(topics, tmp_path):
    pool = pool_from_pairs(collection=topics, name="p", source=write(tmp_path, "p.tsv", "1\ta\t3\n1\tb\t1\n2\tc\t2\n"))
    assert pairs_of(pool) == [("1", "b"), ("2", "c"), ("1", "a")]


def test_qrels_lines_are_accepted_and_labels_ignored(topics, tmp_path):
    pool = pool_from_pairs(collection=topics, name="p", source=write(tmp_path, "q.qrels", "1 0 a 2\n2 0 b 0\n"))
    assert pairs_of(pool) == [("1", "a"), ("2", "b")]


@pytest.mark.parametrize("text, message", [
    ("1 a\n9 b\n", "p.txt:2: unknown topic '9'"),
    ("1 a\n1 a\n", "p.txt:2: pair 1 a appears again (first on line 1)"),
    ("1 a\n1 b 2\n", "p.txt:2: 3 columns where line 1 has 2"),
    ("1 a x\n", "p.txt:1: order 'x' is not an integer"),
    ("1\n", "p.txt:1: expected 2 to 4 columns"),
    ("", "the file lists no pairs"),
])
def test_bad_pair_files_create_nothing(topics, tmp_path, text, message):
    with pytest.raises(ImportFailed) as error:
        pool_from_pairs(collection=topics, name="p", source=write(tmp_path, "p.txt", text))
    assert message in str(error.value)
    assert not Pool.objects.exists() and not PoolPair.objects.exists()


def test_pool_from_a_qrels_set_for_rejudging(topics, tmp_path):
    qrels_import(collection=topics, source=write(tmp_path, "r1.qrels", "10 0 x 1\n2 0 b 0\n2 0 a 1\n"), name="r1")
    out = run("import_pool", topics.slug, "--from-qrels", "r1", "--name", "again")
    assert out.strip() == "pool again: 3 pairs over 2 topics (listed pairs)"
    assert pairs_of(Pool.objects.get(name="again")) == [("2", "a"), ("2", "b"), ("10", "x")]


def test_import_pool_command_reads_a_file_and_reports_problems(topics, tmp_path):
    assert "2 pairs over 1 topics" in run("import_pool", topics.slug, str(write(tmp_path, "p.txt", "1 a\n1 b\n")),
                                          "--name", "p")
    with pytest.raises(CommandError, match="p2.txt:1: unknown topic"):
        run("import_pool", topics.slug, str(write(tmp_path, "p2.txt", "7 a\n")), "--name", "p2")
    with pytest.raises(CommandError, match="already exists"):
        run("import_pool", topics.slug, str(write(tmp_path, "p3.txt", "1 a\n")), "--name", "p")


def test_lead_page_makes_a_pool_from_a_qrels_set_and_others_cannot(client, topics, tmp_path, alice):
    qrels = qrels_import(collection=topics, source=write(tmp_path, "r1.qrels", "1 0 a 1\n"), name="r1")
    assert qrels.created == 1
    url = reverse("pool-from-pairs", args=[topics.slug])
    client.login(username="alice", password=PASSWORD)
    assert client.get(url).status_code == 403
    client.login(username="lead", password=PASSWORD)
    set_id = topics.qrels_sets.get().pk
    response = client.post(url, {"name": "again", "qrels_set": set_id})
    assert response.status_code == 302
    assert pairs_of(Pool.objects.get(name="again")) == [("1", "a")]
    assert client.get(response.url).status_code == 200
    bad = client.post(url, {"name": "f", "file": SimpleUploadedFile("p.txt", b"1 a\n5 b\n")})
    assert "p.txt:2: unknown topic" in bad.content.decode()
    assert not Pool.objects.filter(name="f").exists()


def test_build_pool_says_how_many_judged_pairs_it_left_out(db, tmp_path):
    collection = bare_collection("cmd")
    add_run(collection, "a", {"1": ranked("d1", "d2", "d3")})
    add_run(collection, "b", {"1": ranked("d3", "d4", "d1")})
    qrels_import(collection=collection, source=write(tmp_path, "old.qrels", "1 0 d1 1\n1 0 d4 0\n"), name="old")
    out = run("build_pool", "cmd", "--depth", "2", "--name", "p")
    assert out.splitlines() == ["pool p: 2 pairs over 1 topics from 2 runs (depth)",
                                "left out 2 pairs that imported qrels already judge (--include-judged keeps them)"]
    out = run("build_pool", "cmd", "--strategy", "budget", "--budget", "2", "--name", "b")
    assert "left out 1 pairs" in out  # round-robin budget 2 would take d1 (judged) and d3
    assert "left out" not in run("build_pool", "cmd", "--depth", "2", "--name", "all", "--include-judged")
