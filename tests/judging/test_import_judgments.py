"""Imported per-assessor judgments: file formats, revisions, all-or-nothing errors, and that the
imported labels feed agreement, aggregation, adjudication, freeze and export like native ones."""
from __future__ import annotations

import json
import random

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from aggregation import dawid_skene
from agreement import agreement
from collections_app.importers.errors import ImportFailed
from collections_app.models import Pool, PoolPair
from judging.dashboard.choices import CHOICES
from judging.dashboard.selectors import campaign_dashboard
from judging.models import Assessor, Campaign, Item, Judgment, JudgmentRevision
from judging.services.exports import judgments_export
from judging.services.imported import judgments_import
from judging.services.qrels import adjudicate, final_labels, qrels_freeze
from tests.collections.import_helpers import add_topics, write

HEADER = "qid,docno,assessor,label,timestamp,seconds,comment,gold\n"


@pytest.fixture
def topics(collection):
    add_topics(collection, "401", "402")
    return collection


def counts():
    return (Campaign.objects.count(), Pool.objects.count(), PoolPair.objects.count(), Assessor.objects.count(),
            Item.objects.count(), Judgment.objects.count(), JudgmentRevision.objects.count())


def test_csv_import_creates_an_imported_campaign_with_workers_items_and_judgments(topics, tmp_path, lead):
    path = write(tmp_path, "crowd.csv", HEADER + (
        "401,d1,w1,1,2024-05-01T10:00:00Z,4.5,looks fine,\n"
        "401,d1,w2,0,2024-05-01T10:01:00Z,,,\n"
        "402,d7,w1,2,,3,,\n"))
    summary = judgments_import(collection=topics, source=path, campaign_name="round 1", user=lead)
    assert (summary.created, summary.lines) == (3, 3)
    campaign = Campaign.objects.get(name="round 1")
    assert campaign.origin == Campaign.Origin.IMPORTED
    assert campaign.status == Campaign.Status.FINISHED
    assert campaign.pool.strategy == Pool.Strategy.PAIRS and campaign.pool.frozen
    assert list(campaign.pool.pairs.order_by("judging_order").values_list("topic__qid", "docno")) == [
        ("401", "d1"), ("402", "d7")]
    workers = {a.worker_id: a for a in campaign.assessors.all()}
    assert set(workers) == {"w1", "w2"}
    assert all(a.kind == Assessor.Kind.IMPORTED and a.user_id is None for a in workers.values())
    items = {i.pair.docno: i for i in campaign.items.select_related("pair")}
    assert (items["d1"].required_judgments, items["d1"].judgment_count) == (2, 2)
    assert (items["d7"].required_judgments, items["d7"].judgment_count) == (1, 1)
    first = Judgment.objects.get(item=items["d1"], assessor=workers["w1"])
    assert (first.grade, first.active_seconds, first.comment) == (1, 4.5, "looks fine")
    assert first.created_at.isoformat() == "2024-05-01T10:00:00+00:00"
    # Unknown time stays unknown.
    assert Judgment.objects.get(item=items["d1"], assessor=workers["w2"]).active_seconds is None


@pytest.mark.parametrize("name, text", [
    ("labels.tsv", "qid\tdocno\tassessor\tlabel\n401\td1\tw1\t3\n"),
    ("labels.jsonl", json.dumps({"qid": 401, "docno": "d1", "assessor": "w1", "label": 3}) + "\n"),
])
def test_tsv_and_jsonl_are_read_like_csv(topics, tmp_path, name, text):
    judgments_import(collection=topics, source=write(tmp_path, name, text), campaign_name="c")
    judgment = Judgment.objects.get()
    assert (judgment.item.pair.topic.qid, judgment.item.pair.docno, judgment.grade) == ("401", "d1", 3)
    assert judgment.assessor.worker_id == "w1"


def test_repeated_rows_become_revisions_with_the_last_one_final(topics, tmp_path):
    path = write(tmp_path, "r.csv", "qid,docno,assessor,label,timestamp,seconds\n"
                 "401,d1,w1,0,2024-01-01T00:00:00,2\n"
                 "401,d1,w1,2,2024-01-01T00:05:00,3\n"
                 "401,d1,w1,1,2024-01-01T00:09:00,1\n")
    judgments_import(collection=topics, source=path, campaign_name="c")
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.revision_count, judgment.active_seconds) == (1, 2, 6.0)
    history = list(judgment.revisions.order_by("changed_at").values_list("old_grade", "new_grade"))
    assert history == [(0, 2), (2, 1)]
    assert judgment.item.judgment_count == 1 == judgment.item.required_judgments


@pytest.mark.parametrize("text, message", [
    ("qid,docno,assessor\n401,d1,w1\n", "lacks the required column label"),
    ("qid,docno,assessor,label,mood\n401,d1,w1,1,happy\n", "unknown column 'mood'"),
    (HEADER + "401,d1,w1,7,,,,\n", "label 7 is not on the collection's scale"),
    (HEADER + "999,d1,w1,1,,,,\n", "unknown topic '999'"),
    (HEADER + "401,d1,w1,1,,,,\n401,d1,w1,1,,,,\n", "repeats line 3"),
    (HEADER + "401,d1,w1,1,yesterday,,,\n", "is not ISO 8601"),
    (HEADER + "401,d1,w1,1,,-3,,\n", "finite number >= 0"),
    (HEADER + "401,d1,w1,1,,,,5\n", "gold 5 is not on the collection's scale"),
    (HEADER + "401,d1,w1,1,,,,1\n401,d1,w2,1,,,,2\n", "gold label 2 differs from 1 on line 3"),
    (HEADER + "401,d1,w1,1,,,\n", "expected 8 columns"),
    ("", "the file is empty"),
])
def test_bad_files_are_refused_with_file_and_line_and_change_nothing(topics, tmp_path, text, message):
    # One good row first: all-or-nothing means it is not written either.
    if text.startswith(HEADER):
        text = HEADER + "402,ok,w9,1,,,,\n" + text[len(HEADER):]
    path = write(tmp_path, "bad.csv", text)
    before = counts()
    with pytest.raises(ImportFailed) as error:
        judgments_import(collection=topics, source=path, campaign_name="c")
    assert message in str(error.value)
    assert "bad.csv:" in str(error.value)
    assert counts() == before


def test_error_names_the_line(topics, tmp_path):
    path = write(tmp_path, "x.csv", "qid,docno,assessor,label\n401,d1,w1,1\n401,d2,w1,9\n")
    with pytest.raises(ImportFailed) as error:
        judgments_import(collection=topics, source=path, campaign_name="c")
    assert str(error.value).startswith("x.csv:3: label 9")
    assert not Judgment.objects.exists()


def test_a_second_import_adds_new_pairs_and_workers_but_refuses_a_pair_judged_before(topics, tmp_path):
    judgments_import(collection=topics, source=write(tmp_path, "a.csv", "qid,docno,assessor,label\n401,d1,w1,1\n"),
                     campaign_name="c")
    judgments_import(collection=topics, source=write(tmp_path, "b.csv",
                                                     "qid,docno,assessor,label\n401,d1,w2,0\n402,d5,w1,1\n"),
                     campaign_name="c")
    campaign = Campaign.objects.get(name="c")
    assert campaign.assessors.count() == 2 and campaign.pool.pairs.count() == 2
    item = campaign.items.get(pair__docno="d1")
    assert (item.required_judgments, item.judgment_count) == (2, 2)
    before = counts()
    with pytest.raises(ImportFailed) as error:
        judgments_import(collection=topics, source=write(tmp_path, "a.csv", "qid,docno,assessor,label\n401,d1,w1,1\n"),
                         campaign_name="c")
    assert error.value.code == "duplicate_judgment"
    assert counts() == before


def test_importing_into_a_native_campaign_is_refused(topics, tmp_path, make_campaign):
    native = make_campaign()
    before = counts()
    with pytest.raises(ImportFailed) as error:
        judgments_import(collection=topics, source=write(tmp_path, "a.csv", "qid,docno,assessor,label\n401,d1,w1,1\n"),
                         campaign_name=native.name)
    assert error.value.code == "native_campaign"
    assert counts() == before


def test_gold_column_makes_gold_items_left_out_of_final_labels(topics, tmp_path):
    path = write(tmp_path, "g.csv", "qid,docno,assessor,label,gold\n401,d1,w1,1,1\n401,d2,w1,2,\n")
    judgments_import(collection=topics, source=path, campaign_name="c")
    campaign = Campaign.objects.get()
    assert campaign.items.get(pair__docno="d1").is_gold
    assert campaign.items.get(pair__docno="d1").gold_grade == 1
    assert final_labels(campaign=campaign, rule="majority") == {("401", "d2"): 2}


def _random_triples(seed: int, *, items: int = 60, workers: int = 7):
    rng = random.Random(seed)
    truth = {f"d{i}": rng.choice([0, 1, 2, 3]) for i in range(items)}
    rows = []
    for docno, label in truth.items():
        for worker in rng.sample([f"w{w}" for w in range(workers)], rng.randint(1, 4)):
            given = label if rng.random() < 0.7 else rng.choice([0, 1, 2, 3])
            rows.append((docno, worker, given))
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_imported_agreement_and_dawid_skene_equal_the_pure_functions_on_the_same_triples(topics, tmp_path, seed):
    rows = _random_triples(seed)
    text = "qid,docno,assessor,label\n" + "".join(f"401,{d},{w},{g}\n" for d, w, g in rows)
    judgments_import(collection=topics, source=write(tmp_path, "m.csv", text), campaign_name="multi")
    campaign = Campaign.objects.get()
    triples = [(d, w, g) for d, w, g in rows]
    scale = topics.grades

    expected = dawid_skene(triples, categories=scale)
    labels = final_labels(campaign=campaign, rule="dawid_skene")
    assert labels == {("401", d): outcome.label for d, outcome in expected.labels.items()}

    stat = CHOICES["alpha_nominal"]
    shown = campaign_dashboard(campaign=campaign, stat=stat)["overall"]["value"]
    pure = agreement(triples, statistic="krippendorff", level="nominal", categories=scale, ci=None).value
    assert shown == pytest.approx(pure)


def test_imported_labels_flow_into_adjudication_freeze_and_export(topics, tmp_path, lead):
    path = write(tmp_path, "f.csv", "qid,docno,assessor,label\n401,d1,w1,0\n401,d1,w2,3\n402,d2,w1,1\n")
    judgments_import(collection=topics, source=path, campaign_name="c")
    campaign = Campaign.objects.get()
    item = campaign.items.get(pair__docno="d1")
    adjudicate(item=item, grade=2, note="tie", user=lead)
    version = qrels_freeze(campaign=campaign, rule="adjudicated", description="", user=lead)
    assert version.content == "401 0 d1 2\n402 0 d2 1\n"
    exported = [json.loads(line) for line in judgments_export(campaign=campaign, fmt="jsonl").splitlines()]
    assert {row["kind"] for row in exported} == {"imported"}
    assert {row["active_seconds"] for row in exported} == {None}


def test_command_imports_and_reports_errors_without_traceback(topics, tmp_path, capsys):
    good = write(tmp_path, "ok.csv", "qid,docno,assessor,label\n401,d1,w1,1\n")
    call_command("import_judgments", topics.slug, str(good), "--campaign", "cli")
    assert "judgments: 1 created" in capsys.readouterr().out
    bad = write(tmp_path, "bad.csv", "qid,docno,who,label\n401,d1,w1,1\n")
    with pytest.raises(CommandError, match="bad.csv:1: unknown column 'who'"):
        call_command("import_judgments", topics.slug, str(bad), "--campaign", "cli")


def test_revisions_keep_the_rows_times_and_unknown_docnos_are_a_warning(topics, tmp_path):
    path = write(tmp_path, "t.jsonl", "".join(json.dumps(row) + "\n" for row in [
        {"qid": "401", "docno": "nodoc", "assessor": "w1", "label": 0, "timestamp": "2024-01-01T09:00:00+02:00"},
        {"qid": "401", "docno": "nodoc", "assessor": "w1", "label": 1, "timestamp": "2024-01-01T09:30:00+02:00",
         "seconds": 4},
    ]))
    summary = judgments_import(collection=topics, source=path, campaign_name="c")
    assert summary.warnings == ["1 pairs name docnos the collection lacks (kept, shown without text)"]
    judgment = Judgment.objects.get()
    assert judgment.created_at.isoformat() == "2024-01-01T07:00:00+00:00"
    assert judgment.active_seconds is None  # the first row had no time: the total is unknown
    revision = judgment.revisions.get()
    assert (revision.old_grade, revision.new_grade, revision.active_seconds) == (0, 1, 4.0)
    assert revision.changed_at.isoformat() == "2024-01-01T07:30:00+00:00"
    assert judgment.item.pair.document_id is None


def test_imported_gold_feeds_the_gold_weighted_vote(topics, tmp_path):
    from aggregation import gold_weighted_vote

    rows = ["401,g1,good,1,1", "401,g1,bad,0,1", "401,g2,good,0,0", "401,g2,bad,1,0",
            "401,x,good,1,", "401,x,bad,0,"]
    path = write(tmp_path, "g.csv", "qid,docno,assessor,label,gold\n" + "\n".join(rows) + "\n")
    judgments_import(collection=topics, source=path, campaign_name="c")
    campaign = Campaign.objects.get()
    triples = [(d, w, int(g)) for d, w, g in (r.split(",")[1:4] for r in rows)]
    expected = gold_weighted_vote(triples, gold={"g1": 1, "g2": 0}, categories=topics.grades)
    assert final_labels(campaign=campaign, rule="gold_weighted") == {("401", "x"): expected.labels["x"].label} == {
        ("401", "x"): 1}


def test_an_imported_campaigns_dashboard_shows_no_invented_timing_figures(client, topics, tmp_path, lead):
    """Labels loaded at once, most without seconds: no pace, cost, time to finish or 'too fast' flag."""
    from judging.dashboard.choices import choice
    from judging.dashboard.selectors import campaign_dashboard

    rows = [f"{qid},d{n},w{w},{(n + w) % 2},,{'' if w else 0.5},,\n"
            for qid in ("401", "402") for n in range(15) for w in range(3)]
    judgments_import(collection=topics, source=write(tmp_path, "crowd.csv", HEADER + "".join(rows)),
                     campaign_name="loaded", user=lead)
    campaign = Campaign.objects.get(name="loaded")
    data = campaign_dashboard(campaign=campaign, stat=choice("cohen"), rate=10.0)
    assert data["imported"] is True
    assert data["throughput"]["overall_per_hour"] is None and data["throughput"]["recent_per_hour"] is None
    assert data["estimate"]["cost"] is None and data["estimate"]["median_seconds"] is None
    assert not any("too fast" in row["flags"] for row in data["assessors"])  # w0's 0.5 s would be flagged if native
    assert data["overall"]["value"] is not None  # agreement is still computed on the imported labels
    client.force_login(lead)
    page = client.get(reverse("campaign-dashboard", args=[topics.slug, campaign.pk]))
    assert page.status_code == 200 and '<span class="badge flag">too fast</span>' not in page.content.decode()
