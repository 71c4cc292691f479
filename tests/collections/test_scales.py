"""Custom relevance scales: the spec, the command, the lead's form, and the judging page's keys."""
from __future__ import annotations

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from collections_app import scales
from collections_app.models import Collection
from tests.conftest import PASSWORD


def test_spec_with_names_keys_and_a_cannot_judge_grade():
    grades, threshold = scales.parse_spec("-2:broken,0:not relevant,1:relevant,2:highly relevant", cannot_judge=[-2])
    assert grades == [
        {"grade": -2, "name": "broken", "key": "a", "cannot_judge": True},
        {"grade": 0, "name": "not relevant", "key": "0"},
        {"grade": 1, "name": "relevant", "key": "1"},
        {"grade": 2, "name": "highly relevant", "key": "2"},
    ]
    assert threshold == 1
    assert scales.agreement_grades(grades, include_cannot_judge=False) == [0, 1, 2]
    assert scales.agreement_grades(grades, include_cannot_judge=True) == [-2, 0, 1, 2]


def test_spec_zero_to_four_with_explicit_keys_and_threshold_round_trips():
    grades, threshold = scales.parse_spec("4:perfect:p,0,1,2,3", relevant_threshold=2)
    assert [g["grade"] for g in grades] == [0, 1, 2, 3, 4]  # listed in order whatever the spec's order
    assert grades[-1]["key"] == "p" and threshold == 2
    assert scales.parse_spec(scales.spec_of(grades), relevant_threshold=2) == (grades, 2)


@pytest.mark.parametrize("spec, kwargs, code", [
    ("", {}, "scale_spec"),
    ("0,one", {}, "scale_spec"),
    ("0:a:b:c", {}, "scale_spec"),
    ("0,0", {}, "scale_duplicate_grade"),
    ("0:x:q,1:y:q", {}, "scale_duplicate_key"),
    ("0:x:s,1", {}, "scale_key"),  # s is the judging page's skip key
    ("0,1,2", {"relevant_threshold": 5}, "scale_threshold"),
    ("0,1", {"cannot_judge": [7]}, "scale_spec"),
])
def test_bad_specs_are_refused_with_a_code(spec, kwargs, code):
    with pytest.raises(ValidationError) as error:
        scales.parse_spec(spec, **kwargs)
    assert error.value.code == code


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, skip_checks=True)
    return out.getvalue()


def test_command_creates_a_custom_scale(db):
    out = run("collection_create", "web", "--scale", "-2:broken,0:not relevant,1:relevant,2:highly relevant",
              "--relevant-threshold", "2", "--cannot-judge", "-2")
    collection = Collection.objects.get(slug="web")
    assert collection.grades == [-2, 0, 1, 2] and collection.relevant_threshold == 2
    assert collection.scale[0]["cannot_judge"] is True
    assert "-2 broken [a] (could not judge)" in out


def test_command_refuses_a_bad_spec_and_creates_nothing(db):
    with pytest.raises(CommandError, match="not an integer grade"):
        run("collection_create", "web", "--scale", "0,high")
    assert not Collection.objects.exists()


def test_command_on_an_unmigrated_database_says_to_migrate(db, monkeypatch):
    from django.db import connection

    monkeypatch.setattr(connection.introspection, "table_names", lambda *a, **k: [])
    with pytest.raises(CommandError, match="run `manage.py migrate` first"):
        run("collection_create", "web")


def test_lead_form_creates_a_custom_scale_and_judging_page_shows_its_keys(client, lead):
    client.login(username="lead", password=PASSWORD)
    response = client.post(reverse("collection-create"), {
        "slug": "web", "scale": "custom", "custom_scale": "-2:broken,0:no,1:yes:y", "relevant_threshold": "1",
        "cannot_judge": "-2",
    })
    assert response.status_code == 302
    collection = Collection.objects.get(slug="web")
    assert [(g["grade"], g["key"]) for g in collection.scale] == [(-2, "a"), (0, "0"), (1, "y")]
    assert collection.scale[0]["cannot_judge"] is True


def test_lead_form_shows_spec_errors(client, lead):
    client.login(username="lead", password=PASSWORD)
    response = client.post(reverse("collection-create"), {"slug": "web", "scale": "custom", "custom_scale": "0,x"})
    assert response.status_code == 200 and "not an integer grade" in response.content.decode()
    assert not Collection.objects.exists()
