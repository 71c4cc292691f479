import json

import pytest

from collections_app.importers.errors import ImportFailed
from collections_app.models import Document
from collections_app.services import imports
from collections_app.services.imports import documents_import
from tests.collections.import_helpers import write

TREC = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEADLINE> Markets <b>rally</b> </HEADLINE>
<DATE>1991</DATE>
<TEXT>
Shares rose.
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-2</DOCNO>
<TEXT>First part.</TEXT><TEXT>Second part.</TEXT>
</DOC>
"""


def refused(collection, path, **kwargs) -> tuple[str, list[str]]:
    with pytest.raises(ImportFailed) as info:
        documents_import(collection=collection, source=path, **kwargs)
    return info.value.code, [str(problem) for problem in info.value.problems]


def test_trec_documents_take_title_text_and_other_tags_as_metadata(collection, tmp_path):
    summary = documents_import(collection=collection, source=write(tmp_path, "ft.sgml", TREC))
    assert summary.created == 2
    first, second = Document.objects.order_by("docno")
    assert (first.docno, first.title, first.text, first.metadata) == ("FT911-1", "Markets rally", "Shares rose.",
                                                                       {"date": "1991"})
    assert second.text == "First part.\nSecond part."


def test_gzipped_jsonl_documents_accept_id_aliases_and_keep_extra_keys(collection, tmp_path):
    lines = [{"docno": "a", "title": "A", "text": "alpha", "url": "https://example.org/a"},
             {"id": "b", "text": "beta", "lang": "en"}, {"doc_id": "c", "text": "gamma"}]
    path = write(tmp_path, "docs.jsonl.gz", "".join(json.dumps(line) + "\n" for line in lines), gz=True)
    documents_import(collection=collection, source=path)
    rows = {d.docno: d for d in Document.objects.all()}
    assert rows["a"].url == "https://example.org/a" and rows["a"].title == "A"
    assert rows["b"].metadata == {"lang": "en"} and rows["c"].text == "gamma"


def test_tsv_documents_with_and_without_title(collection, tmp_path):
    documents_import(collection=collection, source=write(tmp_path, "d.tsv", "a\ttext a\nb\tTitle b\ttext b\n"))
    assert list(Document.objects.values_list("docno", "title", "text")) == [("a", "", "text a"),
                                                                          ("b", "Title b", "text b")]


def test_documents_are_written_in_batches_and_a_late_problem_undoes_them_all(collection, tmp_path, monkeypatch):
    monkeypatch.setattr(imports, "BATCH", 2)
    text = "".join(f"d{i}\tx\n" for i in range(7)) + "d3\tagain\n"
    code, problems = refused(collection, write(tmp_path, "d.tsv", text))
    assert (code, problems) == ("duplicate_document", ["d.tsv:8: docno 'd3' appears again (first on line 4)"])
    assert not Document.objects.exists()


def test_existing_docno_is_refused_by_default_and_updated_with_replace(collection, tmp_path):
    documents_import(collection=collection, source=write(tmp_path, "v1.tsv", "a\told\n"))
    original = Document.objects.get()
    code, problems = refused(collection, write(tmp_path, "v2.tsv", "b\tnew\na\tnew\n"))
    assert code == "duplicate_document"
    assert problems == ["v2.tsv:2: docno 'a' is already in the collection (ask to replace to update it)"]
    assert Document.objects.count() == 1
    summary = documents_import(collection=collection, source=write(tmp_path, "v2.tsv", "b\tnew\na\tnew\n"),
                               replace=True)
    assert (summary.created, summary.replaced) == (1, 1)
    original.refresh_from_db()
    assert original.text == "new"


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("d.tsv", "a\tx\nb\n", "d.tsv:2: expected 2 or 3 tab-separated columns"),
    ("d.jsonl", '{"docno": "a"}\n{"text": "no id"}\n', "d.jsonl:2: document without a docno"),
    ("d.jsonl", '{"docno": "a"}\n[1]\n', "d.jsonl:2: expected a JSON object"),
    ("d.txt", "<DOC>\n<DOCNO>a</DOCNO>\n", "d.txt:1: <DOC> block is never closed"),
    ("d.tsv", b"a\tok\nb\t\xff\n", "d.tsv:2: is not valid UTF-8 text"),
    ("d.tsv", "", "d.tsv: the file is empty"),
])
def test_bad_document_files_name_the_line(collection, tmp_path, name, text, expected):
    _code, problems = refused(collection, write(tmp_path, name, text))
    assert any(problem.startswith(expected) for problem in problems), problems
    assert not Document.objects.exists()
