"""Exports through the one writer: CSV formula guard everywhere, JSONL twins, streamed downloads."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from campaign_core.exports import export_lines, export_text
from judging.models import Campaign
from judging.services.imported import judgments_import
from judging.services.qrels import qrels_freeze
from tests.collections.import_helpers import add_topics, write

pytestmark = pytest.mark.django_db


def _body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


def test_writer_guards_every_text_cell_and_keeps_numbers():
    text = export_text([{"a": "=1+1", "b": -2, "c": "@x", "d": None, "e": False}], fields="abcde", fmt="csv")
    assert text == "a,b,c,d,e\n'=1+1,-2,'@x,,false\n"
    assert list(export_lines([], fields=["a"], fmt="csv")) == ["a\n"]
    with pytest.raises(Exception, match="Unknown export format"):
        export_text([], fields=["a"], fmt="xlsx")


@pytest.fixture
def imported(collection, tmp_path, lead):
    add_topics(collection, "401", "402")
    path = write(tmp_path, "f.csv", "qid,docno,assessor,label,seconds,comment\n"
                 "401,=cmd,w1,1,3,=HYPERLINK(\"x\")\n401,=cmd,w2,1,,fine\n402,d2,w1,0,2,\n")
    judgments_import(collection=collection, source=path, campaign_name="c", user=lead)
    return Campaign.objects.get(name="c")


def test_final_labels_csv_carries_the_formula_guard_and_jsonl_twin(client, imported, lead):
    client.force_login(lead)
    base = [imported.collection.slug, imported.pk]
    body = _body(client.get(reverse("campaign-final-labels", args=base) + "?rule=majority"))
    assert body == "qid,docno,grade,confidence\n401,'=cmd,1,1.0\n402,d2,0,1.0\n"
    jsonl = _body(client.get(reverse("campaign-final-labels-export", args=[*base, "jsonl"]) + "?rule=majority"))
    assert [json.loads(line) for line in jsonl.splitlines()] == [
        {"qid": "401", "docno": "=cmd", "grade": 1, "confidence": 1.0},
        {"qid": "402", "docno": "d2", "grade": 0, "confidence": 1.0}]


def test_judgments_export_marks_imported_labels_and_unknown_time(client, imported, lead):
    client.force_login(lead)
    body = _body(client.get(reverse("campaign-judgments-export", args=[imported.collection.slug, imported.pk, "csv"])))
    rows = list(csv.DictReader(io.StringIO(body)))
    assert {r["kind"] for r in rows} == {"imported"}
    assert [r["active_seconds"] for r in rows] == ["3.0", "", "2.0"]
    assert rows[0]["comment"] == "'=HYPERLINK(\"x\")" and rows[0]["docno"] == "'=cmd"


def test_frozen_qrels_as_csv_and_jsonl(client, imported, lead):
    version = qrels_freeze(campaign=imported, rule="majority", description="", user=lead)
    client.force_login(lead)
    base = [imported.collection.slug, imported.pk, version.number]
    assert _body(client.get(reverse("campaign-qrels-export", args=[*base, "csv"]))) == (
        "qid,iteration,docno,grade\n401,0,'=cmd,1\n402,0,d2,0\n")
    lines = _body(client.get(reverse("campaign-qrels-export", args=[*base, "jsonl"]))).splitlines()
    assert json.loads(lines[1]) == {"qid": "402", "iteration": "0", "docno": "d2", "grade": 0}
    assert client.get(reverse("campaign-qrels-download", args=base)).content == version.content.encode()
    assert client.get(reverse("campaign-qrels-export", args=[*base, "xml"])).status_code == 404


def test_exports_are_lead_only(client, imported, alice, mallory):
    base = [imported.collection.slug, imported.pk]
    for user, status in ((alice, 403), (mallory, 404)):
        client.force_login(user)
        assert client.get(reverse("campaign-judgments-export", args=[*base, "csv"])).status_code == status
        assert client.get(reverse("campaign-final-labels-export", args=[*base, "jsonl"])).status_code == status


def test_export_qrels_command_writes_csv_and_jsonl(imported, lead, tmp_path):
    from django.core.management import call_command

    out = io.StringIO()
    call_command("export_qrels", imported.collection.slug, "--rule", "majority", "--format", "jsonl", stdout=out,
                 stderr=io.StringIO())
    assert json.loads(out.getvalue().splitlines()[0])["docno"] == "=cmd"
