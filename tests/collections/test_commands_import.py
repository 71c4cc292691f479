import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collections_app.models import Collection, Document, Membership, QrelsSet, Run, Topic
from tests.collections.import_helpers import run_text, write


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err, skip_checks=True)
    return out.getvalue(), err.getvalue()


def test_collection_create_with_scale_and_lead(lead):
    out, _ = run("collection_create", "trec8", "--name", "TREC-8", "--scale", "binary", "--lead", "lead")
    collection = Collection.objects.get(slug="trec8")
    assert (collection.name, collection.grades) == ("TREC-8", [0, 1])
    assert Membership.objects.get(collection=collection).user == lead
    assert out.strip() == ("collection trec8: created (scale 0 Not relevant [0], 1 Relevant [1]; relevant from 1; "
                           "lead lead)")


def test_collection_create_refuses_a_taken_slug_and_unknown_lead(collection):
    with pytest.raises(CommandError, match="exists"):
        run("collection_create", "demo")
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        run("collection_create", "other", "--lead", "nobody")
    assert not Collection.objects.filter(slug="other").exists()


def test_full_import_sequence_prints_one_line_summaries(collection, tmp_path):
    out, _ = run("import_topics", "demo", str(write(tmp_path, "t.tsv", "1\tone\n2\ttwo\n")))
    assert out.strip() == "topics: 2 created from 2 lines"
    out, _ = run("import_documents", "demo", str(write(tmp_path, "d.jsonl", '{"docno": "a", "text": "x"}\n')))
    assert out.strip() == "documents: 1 created from 1 lines"
    one = write(tmp_path, "one.run", run_text("one", [("1", "a", 2.0), ("1", "zz", 1.0)]))
    two = write(tmp_path, "two.run.gz", run_text("two", [("2", "a", 1.0)]), gz=True)
    out, err = run("import_runs", "demo", str(one), str(two), "--group", "uni")
    assert out.strip() == "runs: 2 created from 3 lines; 1 warning: run one: 1 docnos not in the collection"
    assert "warning: run one: 1 docnos not in the collection" in err
    assert set(Run.objects.values_list("tag", "group")) == {("one", "uni"), ("two", "uni")}
    out, _ = run("import_qrels", "demo", str(write(tmp_path, "q.txt", "1 0 a 1\n")), "--name", "round1")
    assert out.strip() == "qrels: 1 created from 1 lines"
    assert QrelsSet.objects.get().name == "round1"


def test_import_runs_replace_flag(collection, tmp_path):
    Topic.objects.create(collection=collection, qid="1", title="t")
    path = str(write(tmp_path, "r.run", run_text("r", [("1", "a", 1.0)])))
    run("import_runs", "demo", path)
    with pytest.raises(CommandError, match="duplicate_run"):
        run("import_runs", "demo", path)
    out, _ = run("import_runs", "demo", path, "--replace")
    assert out.startswith("runs: 0 created, 1 replaced from 1 lines;")


def test_import_errors_list_file_and_line_and_change_nothing(collection, tmp_path):
    path = write(tmp_path, "d.tsv", "a\tx\nb\n")
    with pytest.raises(CommandError) as info:
        run("import_documents", "demo", str(path))
    assert "d.tsv:2: expected 2 or 3 tab-separated columns" in str(info.value)
    assert "nothing was changed" in str(info.value)
    assert not Document.objects.exists()


def test_unknown_collection_is_a_command_error(db, tmp_path):
    with pytest.raises(CommandError, match="No collection with slug 'nope'"):
        run("import_topics", "nope", str(write(tmp_path, "t.tsv", "1\tx\n")))


@pytest.mark.parametrize("name", ["collection_create", "import_topics", "import_documents", "import_runs", "import_qrels"])
def test_every_command_has_help(name):
    from django.core.management import load_command_class

    parser = load_command_class("collections_app", name).create_parser("manage.py", name)
    assert "usage:" in parser.format_help() and parser.description


def test_import_runs_error_lists_every_bad_line_and_stores_nothing(collection, tmp_path):
    Topic.objects.create(collection=collection, qid="1", title="t")
    good = write(tmp_path, "good.run", run_text("good", [("1", "a", 1.0)]))
    bad = write(tmp_path, "bad.run", "1 Q0 a 1 x bad\n1 Q0 b 2\n")
    with pytest.raises(CommandError) as info:
        run("import_runs", "demo", str(good), str(bad))
    message = str(info.value)
    assert "bad.run:1: score 'x' is not a number" in message
    assert "bad.run:2: expected 6 columns (qid Q0 docno rank score tag), found 4" in message
    assert not Run.objects.exists()


def test_collection_create_service_makes_the_creator_lead_and_refuses_unknown_scales(lead):
    from django.core.exceptions import ValidationError

    from collections_app.services.collections import collection_create

    collection = collection_create(slug="c1", scale="graded", guidelines="Read all.", created_by=lead)
    assert (collection.name, collection.grades, collection.relevant_threshold) == ("c1", [0, 1, 2, 3], 1)
    assert Membership.objects.get(collection=collection, user=lead).role == Membership.Role.LEAD
    with pytest.raises(ValidationError) as info:
        collection_create(slug="c2", scale="five-star")
    assert info.value.code == "scale_spec"
    assert not Collection.objects.filter(slug="c2").exists()


def test_membership_set_adds_then_changes_a_role(collection, mallory):
    from django.core.exceptions import ValidationError

    from collections_app.services.collections import membership_set

    membership_set(collection=collection, user=mallory, role="assessor")
    membership = membership_set(collection=collection, user="mallory", role="lead")
    assert Membership.objects.filter(collection=collection, user=mallory).count() == 1
    membership.refresh_from_db()
    assert membership.role == "lead"
    with pytest.raises(ValidationError):
        membership_set(collection=collection, user=mallory, role="owner")
