"""Significance on qrels covering one topic (e.g. right after a first freeze): an explanation, never a 500."""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import Topic
from collections_app.services.imports import qrels_import, runs_import
from tests.evaluation.conftest import QRELS, RUNS, TOPICS, write_qrels, write_run


@pytest.fixture
def one_topic(collection, tmp_path, lead):
    for qid, title in TOPICS.items():
        Topic.objects.create(collection=collection, qid=qid, title=title)
    for tag, ranking in RUNS.items():
        runs_import(collection=collection, sources=[write_run(tmp_path / f"{tag}.run", tag, ranking)])
    qrels_import(collection=collection, source=write_qrels(tmp_path / "first.qrels", {"401": QRELS["401"]}),
                 name="first", user=lead)
    return collection


def test_the_page_explains_instead_of_failing(client, one_topic, lead):
    client.force_login(lead)  # assessors are blind to systems by default
    response = client.get(reverse("evaluation-significance", kwargs={"slug": one_topic.slug}) + "?runs=4")
    assert response.status_code == 200
    body = response.content.decode()
    assert "significance-explanation" in body
    assert "at least 2 topics; these qrels cover 1" in body


def test_the_api_answers_a_json_explanation(client, one_topic, lead):
    client.force_login(lead)  # assessors are blind to systems by default
    response = client.get(reverse("api-evaluation-significance", kwargs={"slug": one_topic.slug}) + "?runs=4")
    assert response.status_code == 400
    assert response.json()["code"] == "too_few_topics"
    assert "at least 2 topics" in response.json()["detail"]
