"""Final labels under every rule, adjudication, qrels text bytes, frozen versions, exports, the command."""
from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from judging.models import Item, QrelsVersion
from judging.services.exports import judgments_export
from judging.services.judgments import judgment_submit
from judging.services.qrels import adjudicate, final_labels, qrels_freeze, qrels_text
from tests.conftest import make_user
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


def test_qrels_text_exact_bytes_numeric_qids():
    labels = {("10", "d2"): 1, ("2", "d9"): 0, ("2", "d10"): 2, ("2", "D1"): -1}
    assert qrels_text(labels).encode() == b"2 0 D1 -1\n2 0 d10 2\n2 0 d9 0\n10 0 d2 1\n"


def test_qrels_text_sorts_qids_as_strings_when_any_is_not_an_integer():
    assert qrels_text({("10", "a"): 1, ("2", "a"): 1, ("q1", "a"): 0}) == "10 0 a 1\n2 0 a 1\nq1 0 a 0\n"
    assert qrels_text({}) == ""


@pytest.fixture
def three(collection, make_campaign, alice, bob):
    """A campaign where alice, bob and carol judge every pair (replicate 3)."""
    from collections_app.models import Membership

    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3, split="by_topic")
    return campaign, [expert(campaign, u) for u in (alice, bob, carol)]


def label(assessor, position, grade, skipped=False):
    item = Item.objects.get(campaign=assessor.campaign, position=position)
    judgment_submit(assessor=assessor, item=item, grade=grade, skipped=skipped,
                    client_token=f"{assessor.pk}-{position}-{grade}")
    return item


def test_every_rule_of_final_labels(three, lead):
    campaign, (a, b, c) = three
    # position 1 is topic 401 (alice is its primary); position 6 is topic 402 (bob's).
    label(b, 1, 2)
    label(c, 1, 2)
    label(a, 1, 0)
    label(a, 6, 1)
    label(b, 6, 3)
    label(c, 7, None, skipped=True)
    primary = final_labels(campaign=campaign, rule="primary")
    majority = final_labels(campaign=campaign, rule="majority")
    assert primary == {("401", "T1-D1"): 0, ("402", "T2-D1"): 3}
    assert majority == {("401", "T1-D1"): 2, ("402", "T2-D1"): 1}  # 1 vs 3: tie → lowest
    adjudicate(item=Item.objects.get(campaign=campaign, position=6), grade=2, note="read the narrative", user=lead)
    adjudicated = final_labels(campaign=campaign, rule="adjudicated")
    assert adjudicated == {("401", "T1-D1"): 2, ("402", "T2-D1"): 2}
    with pytest.raises(ValidationError):
        final_labels(campaign=campaign, rule="vibes")


def test_primary_without_a_primary_label_falls_back_to_the_earliest(three):
    campaign, (a, b, c) = three
    label(c, 1, 1)
    label(b, 1, 3)
    assert final_labels(campaign=campaign, rule="primary") == {("401", "T1-D1"): 1}


def test_adjudication_replaces_and_validates(three, lead):
    campaign, _ = three
    item = Item.objects.get(campaign=campaign, position=2)
    adjudicate(item=item, grade=1, note="first", user=lead)
    adjudicate(item=item, grade=3, note="second", user=lead)
    assert [(x.grade, x.note) for x in campaign.adjudications.all()] == [(3, "second")]
    with pytest.raises(ValidationError) as error:
        adjudicate(item=item, grade=7, note="", user=lead)
    assert error.value.code == "bad_grade"


def test_conflicts_list_disagreeing_items_with_each_label(three):
    from judging.selectors import conflicts

    campaign, (a, b, c) = three
    label(a, 1, 0)
    label(b, 1, 2)
    label(a, 6, 1)
    label(b, 6, 1)
    rows = conflicts(campaign=campaign)
    assert [r["item"].position for r in rows] == [1]
    assert sorted((x["assessor"], x["grade"]) for x in rows[0]["labels"]) == [("alice", 0), ("bob", 2)]


def test_freeze_numbers_versions_and_stores_exact_content(three, lead):
    campaign, (a, b, c) = three
    label(a, 1, 2)
    label(a, 2, 0)
    v1 = qrels_freeze(campaign=campaign, rule="majority", description="first", user=lead)
    assert v1.content == "401 0 T1-D1 2\n401 0 T1-D2 0\n"
    assert v1.checksum == hashlib.sha256(v1.content.encode()).hexdigest()
    assert (v1.number, v1.num_topics, v1.num_judgments, v1.num_relevant, v1.rule) == (1, 1, 2, 1, "majority")
    label(a, 3, 1)
    v2 = qrels_freeze(campaign=campaign, rule="primary", description="second", user=lead)
    v1.refresh_from_db()
    assert v2.number == 2 and v2.num_judgments == 3 and v1.content == "401 0 T1-D1 2\n401 0 T1-D2 0\n"


def test_judgments_export_csv_and_jsonl(three):
    campaign, (a, b, c) = three
    label(a, 1, 2)
    label(a, 1, 3)  # a revision
    label(b, 2, None, skipped=True)
    rows = list(csv.DictReader(io.StringIO(judgments_export(campaign=campaign, fmt="csv"))))
    assert [(r["assessor"], r["qid"], r["docno"], r["grade"], r["skipped"], r["revision_count"]) for r in rows] == [
        ("alice", "401", "T1-D1", "3", "false", "1"), ("bob", "401", "T1-D2", "", "true", "0")]
    assert rows[0]["assessor_id"] == str(a.pk) and rows[0]["kind"] == "expert" and rows[0]["created_at"]
    lines = judgments_export(campaign=campaign, fmt="jsonl").splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 2 and first["grade"] == 3 and first["active_seconds"] == 0 and first["updated_at"]
    with pytest.raises(ValidationError):
        judgments_export(campaign=campaign, fmt="xml")


def test_judgments_csv_defuses_spreadsheet_formulas_in_comments_but_not_jsonl(three):
    campaign, (a, b, c) = three
    item = Item.objects.get(campaign=campaign, position=1)
    judgment_submit(assessor=a, item=item, grade=1, comment="=HYPERLINK(\"http://x\")", client_token="f1")
    judgment_submit(assessor=b, item=item, grade=0,
                    comment="fine -=", client_token="f2")
    rows = list(csv.DictReader(io.StringIO(judgments_export(campaign=campaign, fmt="csv"))))
    assert [r["comment"] for r in rows] == ["'=HYPERLINK(\"http://x\")", "fine -="]
    first = json.loads(judgments_export(campaign=campaign, fmt="jsonl").splitlines()[0])
    assert first["comment"] == "=HYPERLINK(\"http://x\")"


def test_export_qrels_command_prints_freezes_and_exports(three, lead, capsys, tmp_path):
    campaign, (a, b, c) = three
    label(a, 1, 2)
    label(b, 6, 0)
    call_command("export_qrels", "demo", "--rule", "majority")
    assert capsys.readouterr().out == "401 0 T1-D1 2\n402 0 T2-D1 0\n"
    v = qrels_freeze(campaign=campaign, rule="primary", description="", user=lead)
    label(a, 2, 1)
    call_command("export_qrels", "demo", "--version", str(v.number))
    assert capsys.readouterr().out == v.content
    out = tmp_path / "j.jsonl"
    call_command("export_qrels", "demo", "--campaign", str(campaign.pk), "--judgments", "jsonl", "--output", str(out))
    assert len(out.read_text().splitlines()) == 3
    assert QrelsVersion.objects.count() == 1
