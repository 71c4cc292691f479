"""Bad input from the probe corpus: each file is refused with file:line and changes nothing.

NUL bytes (PostgreSQL refuses them in text), numbers that overflow the column, identifiers
that break the one character rule, grades off the collection's scale, a byte-order mark,
comment lines in topic TSV, URLs that are not URLs and gzip bombs.
"""
from __future__ import annotations

import gzip
import io
import json

import pytest
from django.core.management import call_command

from collections_app import tasks
from collections_app.importers import sources
from collections_app.importers.errors import ImportFailed
from collections_app.models import Document, Job, QrelsEntry, QrelsSet, Run, Topic
from collections_app.services.imports import documents_import, qrels_import, runs_import, topics_import
from tests.collections.import_helpers import add_topics, run_text, write

BOM = b"\xef\xbb\xbf"


def refusal(call, **kwargs) -> ImportFailed:
    with pytest.raises(ImportFailed) as info:
        call(**kwargs)
    return info.value


def lines(error: ImportFailed) -> list[str]:
    return [str(problem) for problem in error.problems]


# --- byte-order mark -------------------------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True])
def test_a_bom_never_becomes_part_of_the_first_qid(collection, tmp_path, gz):
    topics_import(collection=collection, source=write(tmp_path, "t.tsv", BOM + b"101\tfirst\n102\tsecond\n",
                                                        gz=gz))
    assert sorted(Topic.objects.values_list("qid", flat=True)) == ["101", "102"]
    qrels_import(collection=collection, source=write(tmp_path, "q", BOM + b"101 0 d1 1\n", gz=gz))
    assert list(QrelsEntry.objects.values_list("topic__qid", flat=True)) == ["101"]
    runs_import(collection=collection, sources=[write(tmp_path, "r", BOM + run_text("r1", [("101", "d1", 1.0)]).encode(),
                                                      gz=gz)])
    assert Run.objects.get().tag == "r1"


# --- NUL bytes and overflow ---------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("d\x001\ttext\n", "docs.tsv:1: docno 'd\\x001' contains a control character (U+0000)"),
    ("d1\tte\x00xt\n", "docs.tsv:1: text contains a NUL character, which the database cannot store"),
    ("d1\ttitle\tt\n", None),
    ("d1\tti\x00tle\ttext\n", "docs.tsv:1: title contains a NUL character, which the database cannot store"),
])
def test_nul_in_a_document_is_refused_with_its_line(collection, tmp_path, text, expected):
    path = write(tmp_path, "docs.tsv", "d0\tfine\n" + text)
    if expected is None:
        documents_import(collection=collection, source=path)
        return
    error = refusal(documents_import, collection=collection, source=path)
    assert lines(error) == [expected.replace(":1:", ":2:")]
    assert not Document.objects.exists()


def test_nul_in_jsonl_metadata_is_refused(collection, tmp_path):
    record = {"docno": "d1", "text": "x", "source": {"note": "a\x00b"}}
    error = refusal(documents_import, collection=collection,
                    source=write(tmp_path, "d.jsonl", json.dumps(record) + "\n"))
    assert lines(error) == ["d.jsonl:1: metadata contains a NUL character, which the database cannot store"]
    assert not Document.objects.exists()


def test_invalid_document_url_is_refused(collection, tmp_path):
    good = {"docno": "d1", "text": "x", "url": "https://example.org/a?b=1"}
    bad = {"docno": "d2", "text": "x", "url": "javascript:alert(1)"}
    error = refusal(documents_import, collection=collection,
                    source=write(tmp_path, "d.jsonl", json.dumps(good) + "\n" + json.dumps(bad) + "\n"))
    assert lines(error) == ["d.jsonl:2: url 'javascript:alert(1)' is not a valid http(s) URL"]
    assert not Document.objects.exists()
    documents_import(collection=collection, source=write(tmp_path, "ok.jsonl", json.dumps(good) + "\n"))
    assert Document.objects.get().url == good["url"]


def test_nul_in_a_topic_is_refused(collection, tmp_path):
    error = refusal(topics_import, collection=collection,
                    source=write(tmp_path, "t.tsv", "101\tok\n1\x0002\ttitle\n103\tbad\x00title\n"))
    assert lines(error) == ["t.tsv:2: qid '1\\x0002' contains a control character (U+0000)",
                            "t.tsv:3: title contains a NUL character, which the database cannot store"]
    assert not Topic.objects.exists()


def test_qrels_grade_overflow_and_nul_docno_are_refused_with_their_lines(collection, tmp_path):
    add_topics(collection, "1")
    error = refusal(qrels_import, collection=collection,
                    source=write(tmp_path, "q", "1 0 a 1\n1 0 b 99999999999999999999\n1 0 c\x00 1\n1 0 d -99999999999\n"))
    assert lines(error) == [
        "q:2: grade '99999999999999999999' is out of range (-2147483648 to 2147483647)",
        "q:3: docno 'c\\x00' contains a control character (U+0000)",
        "q:4: grade '-99999999999' is out of range (-2147483648 to 2147483647)",
    ]
    assert not QrelsSet.objects.exists()


def test_topic_tsv_comment_lines_are_skipped(collection, tmp_path):
    topics_import(collection=collection,
                  source=write(tmp_path, "t.tsv", "# qid\ttitle\n101\tfirst\n#102\tcommented out\n103\tthird\n"))
    assert sorted(Topic.objects.values_list("qid", flat=True)) == ["101", "103"]


# --- grades off the collection's scale ----------------------------------------------------------

def test_off_scale_grades_are_counted_and_refused_unless_allowed(collection, tmp_path):
    add_topics(collection, "1")
    text = "".join(f"1 0 d{i} {grade}\n" for i, grade in enumerate([1, 7, 2, 4, 3, 9, 5, 6, 8, 10, -2]))
    error = refusal(qrels_import, collection=collection, source=write(tmp_path, "q", text))
    assert error.code == "off_scale_grade"
    assert lines(error) == [
        "q:2: 7 judgment(s) have grades outside the collection's scale (0, 1, 2, 3), first on line(s) 2, 4, 6, 7, 8; "
        "import them anyway with --allow-off-scale (command) or 'Accept grades outside the scale' (form)"
    ]
    assert not QrelsSet.objects.exists()
    qrels_import(collection=collection, source=write(tmp_path, "q", text), allow_off_scale=True)
    assert QrelsEntry.objects.count() == 11


def test_off_scale_flag_on_the_command_and_the_upload_form(collection, lead, tmp_path, client):
    add_topics(collection, "1")
    path = write(tmp_path, "q", "1 0 a 7\n")
    with pytest.raises(Exception, match="outside the collection's scale"):
        call_command("import_qrels", "demo", str(path), stdout=io.StringIO(), stderr=io.StringIO(), skip_checks=True)
    call_command("import_qrels", "demo", str(path), "--allow-off-scale", stdout=io.StringIO(), skip_checks=True)
    assert QrelsEntry.objects.get().grade == 7

    client.force_login(lead)
    for allow, status in ((False, Job.Status.FAILED), (True, Job.Status.SUCCEEDED)):
        upload = io.BytesIO(b"1 0 b 5\n")
        upload.name = "web.qrels"
        data = {"file": upload, "name": f"web-{allow}"}
        if allow:
            data["allow_off_scale"] = "on"
        response = client.post("/c/demo/upload/qrels/", data)
        assert response.status_code == 302
        assert Job.objects.latest("id").status == status
    assert sorted(QrelsSet.objects.values_list("name", flat=True)) == ["q", "web-True"]


# --- gzip bombs -------------------------------------------------------------------------------

def test_a_gzip_bomb_is_refused_after_reading_a_sliver_of_it(collection, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "GZIP_RATIO_GRACE", 8 * 1024 * 1024)
    add_topics(collection, "101")
    line = b"101 Q0 D1 1 1.0 bomb\n"
    # 400 MB of one repeated line compresses to well under a megabyte.
    compressor = io.BytesIO()
    with gzip.GzipFile(fileobj=compressor, mode="wb", compresslevel=9) as gz:
        block = line * (4 * 1024 * 1024 // len(line))
        for _ in range(100):
            gz.write(block)
    path = tmp_path / "bomb.run.gz"
    path.write_bytes(compressor.getvalue())
    opened = sources.Source(path)
    with pytest.raises(ImportFailed) as info:
        for _ in opened.read_blocks():
            pass
    assert info.value.code == "too_large"
    assert "likely decompression bomb" in lines(info.value)[0]
    assert opened.consumed < path.stat().st_size  # refused long before the end of the file
    error = refusal(runs_import, collection=collection, sources=[path])
    assert error.code == "too_large" and not Run.objects.exists()


def test_an_ordinary_gzip_is_not_mistaken_for_a_bomb(collection, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "GZIP_RATIO_GRACE", 1024)
    add_topics(collection, "101")
    rows = [("101", f"doc-{i * 7919 % 100003}", 1000.0 / (i + 1)) for i in range(5000)]
    runs_import(collection=collection, sources=[write(tmp_path, "r.gz", run_text("real", rows), gz=True)])
    assert Run.objects.get().num_lines == 5000


def test_a_total_decompressed_size_limit_applies(settings, tmp_path):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 1000
    path = write(tmp_path, "big.gz", "x" * 5000 + "\n", gz=True)
    with pytest.raises(ImportFailed, match="decompresses to more than 1,000 bytes"):
        list(sources.Source(path).read_blocks())


def test_job_form_flag_is_saved_with_the_job(collection, lead):
    from django.core.files.uploadedfile import SimpleUploadedFile

    add_topics(collection, "1")
    job = tasks.job_start(collection=collection, kind=Job.Kind.QRELS, user=lead,
                          uploads=[SimpleUploadedFile("q", b"1 0 a 9\n")], parameters={"allow_off_scale": True})
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
