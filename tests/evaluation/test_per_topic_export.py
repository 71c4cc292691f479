"""The leaderboard's per-topic scores as CSV/JSONL: equal to the per-topic page's numbers, members only."""
from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from evaluation.leaderboard import per_topic
from evaluation.selectors import board

pytestmark = pytest.mark.django_db


def _body(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_per_topic_csv_matches_the_scores(client, scored, alice):
    client.force_login(alice)
    response = client.get(reverse("evaluation-per-topic", args=[scored.slug, "csv"]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(_body(response))))
    assert list(rows[0]) == ["run", "qid", "map", "ndcg_cut_10", "P_10", "Rprec", "bpref", "judged_10"]
    expected = {(r.tag, t["qid"]): t["scores"] for r in board(scored).results for t in per_topic(r)}
    assert len(rows) == len(expected) == 12
    for row in rows:
        want = expected[(row["run"], row["qid"])]
        assert {k: float(row[k]) for k in want} == pytest.approx(want)
    assert [r["run"] for r in rows] == sorted(r["run"] for r in rows)


def test_per_topic_export_refuses_outsiders_and_unknown_formats(client, scored, mallory, lead):
    client.force_login(mallory)
    assert client.get(reverse("evaluation-per-topic", args=[scored.slug, "csv"])).status_code == 404
    client.force_login(lead)
    assert client.get(reverse("evaluation-per-topic", args=[scored.slug, "xlsx"])).status_code == 404
    assert client.get(reverse("evaluation-per-topic", args=[scored.slug, "jsonl"])).status_code == 200
