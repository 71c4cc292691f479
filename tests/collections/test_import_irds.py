"""import_irds through ir_datasets' own registry, on a tiny data set the test writes and registers."""
from __future__ import annotations

import io
import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collections_app.importers.errors import ImportFailed
from collections_app.models import Document, QrelsEntry, QrelsSet, Topic
from collections_app.services.irds import irds_import

ir_datasets = pytest.importorskip("ir_datasets")


def register(tmp_path, *, docs: str, queries: str, qrels: str) -> str:
    """Register a data set read from local TSV/qrels files; return its (unique) id."""
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    for name, text in (("docs.tsv", docs), ("queries.tsv", queries), ("qrels.txt", qrels)):
        (folder / name).write_text(text, encoding="utf-8")
    dataset_id = f"qrelsmith-test/{folder.name}"
    ir_datasets.registry.register(dataset_id, Dataset(
        TsvDocs(LocalDownload(folder / "docs.tsv")),
        TsvQueries(LocalDownload(folder / "queries.tsv")),
        TrecQrels(LocalDownload(folder / "qrels.txt"), {0: "not relevant", 1: "relevant"}),
    ))
    return dataset_id


DOCS = "d1\twind turbines hum\nd2\tsolar panels\nd3\tturbine blades\n"
QUERIES = "1\twind turbine noise\n2\tsolar power\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d2 1\n"


@pytest.fixture(autouse=True)
def _irds_home(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds"))


def test_topics_documents_and_qrels_are_loaded(collection, tmp_path):
    dataset_id = register(tmp_path, docs=DOCS, queries=QUERIES, qrels=QRELS)
    summaries = irds_import(collection=collection, dataset_id=dataset_id)
    assert [(s.kind, s.created) for s in summaries] == [("topics", 2), ("documents", 3), ("qrels", 3)]
    assert dict(Topic.objects.values_list("qid", "title")) == {"1": "wind turbine noise", "2": "solar power"}
    assert Document.objects.get(docno="d3").text == "turbine blades"
    qrels = QrelsSet.objects.get(name=dataset_id)
    assert sorted(QrelsEntry.objects.filter(qrels_set=qrels).values_list("topic__qid", "docno", "grade")) == [
        ("1", "d1", 1), ("1", "d2", 0), ("2", "d2", 1)]


def test_command_with_no_docs_and_a_qrels_name(collection, tmp_path):
    dataset_id = register(tmp_path, docs=DOCS, queries=QUERIES, qrels=QRELS)
    out = io.StringIO()
    call_command("import_irds", collection.slug, dataset_id, "--no-docs", "--qrels-name", "official", stdout=out)
    assert out.getvalue().splitlines() == ["topics: 2 created from 2 lines", "qrels: 3 created from 3 lines"]
    assert not Document.objects.exists() and QrelsSet.objects.get().name == "official"


@pytest.mark.parametrize("docs, queries, qrels, message", [
    (DOCS, QUERIES, "1 0 d1 1\n7 0 d2 0\n", ":qrels:2: unknown topic '7'"),
    (DOCS + "d1\tagain\n", QUERIES, QRELS, ":docs:4: docno 'd1' appears again"),
    (DOCS, QUERIES + "1\tsame id\n", QRELS, ":queries:3: topic '1' appears again"),
])
def test_a_bad_data_set_changes_nothing(collection, tmp_path, docs, queries, qrels, message):
    dataset_id = register(tmp_path, docs=docs, queries=queries, qrels=qrels)
    with pytest.raises(ImportFailed) as error:
        irds_import(collection=collection, dataset_id=dataset_id)
    assert message in str(error.value)
    assert not Topic.objects.exists() and not Document.objects.exists() and not QrelsSet.objects.exists()


def test_unknown_id_and_unknown_topics_field_are_clear_errors(collection, tmp_path):
    with pytest.raises(CommandError, match="knows no data set"):
        call_command("import_irds", collection.slug, "no-such/dataset")
    dataset_id = register(tmp_path, docs=DOCS, queries=QUERIES, qrels=QRELS)
    with pytest.raises(ImportFailed, match="the queries have no field 'narrative'"):
        irds_import(collection=collection, dataset_id=dataset_id, topics_field="narrative")
    assert not Topic.objects.exists()


def test_missing_data_files_say_where_to_put_them(collection, tmp_path):
    dataset_id = register(tmp_path, docs=DOCS, queries=QUERIES, qrels=QRELS)
    for path in (tmp_path).rglob("docs.tsv"):
        path.unlink()
    with pytest.raises(ImportFailed, match="IR_DATASETS_HOME") as error:
        irds_import(collection=collection, dataset_id=dataset_id)
    assert error.value.code == "unreadable_file"
    assert not Topic.objects.exists()
