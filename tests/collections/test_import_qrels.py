import pytest

from collections_app.importers.errors import ImportFailed
from collections_app.models import QrelsEntry, QrelsSet
from collections_app.services.imports import qrels_import
from tests.collections.import_helpers import add_topics, write


@pytest.fixture
def topics(collection):
    add_topics(collection, "1", "2")
    return collection


def refused(collection, path, **kwargs) -> ImportFailed:
    with pytest.raises(ImportFailed) as info:
        qrels_import(collection=collection, source=path, **kwargs)
    return info.value


def test_qrels_are_stored_with_iteration_and_negative_grades(topics, tmp_path, lead):
    path = write(tmp_path, "round1.qrels", "1 0 a 2\n1 0 b -1\n2 R3 a 0\n")
    summary = qrels_import(collection=topics, source=path, user=lead)
    assert (summary.created, summary.lines) == (3, 3)
    qrels = QrelsSet.objects.get()
    assert (qrels.name, qrels.num_judgments, qrels.imported_by, len(qrels.checksum)) == ("round1.qrels", 3, lead, 64)
    assert sorted(QrelsEntry.objects.values_list("topic__qid", "iteration", "docno", "grade")) == [
        ("1", "0", "a", 2), ("1", "0", "b", -1), ("2", "R3", "a", 0)]


def test_gzipped_qrels_with_a_name(topics, tmp_path):
    qrels_import(collection=topics, source=write(tmp_path, "q.gz", "1 0 a 1\n", gz=True), name="gold")
    assert QrelsSet.objects.get().name == "gold"


def test_name_already_taken_is_refused(topics, tmp_path):
    qrels_import(collection=topics, source=write(tmp_path, "q", "1 0 a 1\n"), name="gold")
    error = refused(topics, write(tmp_path, "q", "1 0 b 1\n"), name="gold")
    assert error.code == "duplicate_qrels"
    assert QrelsEntry.objects.count() == 1


@pytest.mark.parametrize(("text", "expected"), [
    ("1 0 a 1\n1 0 a\n", "q.qrels:2: expected 4 columns"),
    ("1 0 a yes\n", "q.qrels:1: grade 'yes' is not an integer"),
    ("1 0 a 1\n9 0 a 1\n", "q.qrels:2: unknown topic '9'"),
    ("1 0 a 1\n2 0 a 1\n1 1 a 0\n", "q.qrels:3: topic '1' judges docno 'a' again (first on line 1)"),
    (b"1 0 a 1\n1 0 \xe9 1\n", "q.qrels:2: is not valid UTF-8 text"),
    ("\n", "q.qrels: the file has no qrels lines"),
])
def test_bad_qrels_lines_name_file_and_line(topics, tmp_path, text, expected):
    problems = [str(p) for p in refused(topics, write(tmp_path, "q.qrels", text)).problems]
    assert any(p.startswith(expected) for p in problems), problems
    assert not QrelsSet.objects.exists() and not QrelsEntry.objects.exists()


def test_overlong_docno_is_refused_before_the_database_sees_it(topics, tmp_path):
    problems = [str(p) for p in refused(topics, write(tmp_path, "q.qrels", f"1 0 {'d' * 256} 1\n")).problems]
    assert len(problems) == 1
    assert problems[0].startswith("q.qrels:1: docno ") and "is 256 characters long (at most 255)" in problems[0]
