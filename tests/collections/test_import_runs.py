import io
import random

import pytest

from collections_app import runstore
from collections_app.importers.errors import ImportFailed
from collections_app.models import Document, Run, RunRanking
from collections_app.services.imports import runs_import
from tests.collections.import_helpers import add_topics, run_text, write


@pytest.fixture
def topics(collection):
    add_topics(collection, "301", "302")
    return collection


def ranking(run_tag, qid):
    row = RunRanking.objects.get(run__tag=run_tag, topic__qid=qid)
    return runstore.unpack_docnos(row.docnos), runstore.unpack_scores(row.scores).tolist()


def refused(collection, *paths, **kwargs) -> ImportFailed:
    with pytest.raises(ImportFailed) as info:
        runs_import(collection=collection, sources=list(paths), **kwargs)
    return info.value


def test_run_is_stored_per_topic_in_trec_eval_order_with_ties_by_docno_descending(topics, tmp_path):
    path = write(tmp_path, "a.run", run_text("bm25", [
        ("301", "d1", 1.0), ("301", "d3", 2.0), ("301", "d2", 1.0), ("301", "d9", 1.0), ("302", "x", 0.5)]))
    summary = runs_import(collection=topics, sources=[path])
    assert summary.created == 1 and summary.lines == 5
    assert ranking("bm25", "301") == (["d3", "d9", "d2", "d1"], [2.0, 1.0, 1.0, 1.0])
    run = Run.objects.get(tag="bm25")
    assert (run.num_topics, run.num_lines, run.source_name) == (2, 5, "a.run")
    assert len(run.checksum) == 64


def test_rank_column_and_line_order_are_ignored(topics, tmp_path):
    path = write(tmp_path, "a.run", "301 Q0 a 1 0.1 t\n301 Q0 b 2 0.9 t\n")
    runs_import(collection=topics, sources=[path])
    assert ranking("t", "301")[0] == ["b", "a"]


def test_comment_lines_are_skipped_but_hash_inside_a_docno_is_data(topics, tmp_path):
    path = write(tmp_path, "a.run", "# a comment\n301 Q0 msmarco#12 1 3 t\n\n301 Q0 d#2 2 2 t\n")
    summary = runs_import(collection=topics, sources=[path])
    assert summary.lines == 2
    assert ranking("t", "301")[0] == ["msmarco#12", "d#2"]


def test_gzipped_run_is_detected_by_magic_bytes_not_name(topics, tmp_path):
    path = write(tmp_path, "plain-looking.txt", run_text("gz", [("301", "d1", 1.0)]), gz=True)
    runs_import(collection=topics, sources=[path])
    assert ranking("gz", "301")[0] == ["d1"]


def test_uploaded_file_objects_are_accepted(topics):
    handle = io.BytesIO(run_text("up", [("302", "d1", 1.0)]).encode())
    handle.name = "upload.run"
    runs_import(collection=topics, sources=[handle])
    assert Run.objects.get(tag="up").source_name == "upload.run"


@pytest.mark.parametrize(("text", "line", "message"), [
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 1.0\n", 2, "expected 6 columns"),
    ("301 Q0 d1 1 high t\n", 1, "score 'high' is not a number"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 nan t\n", 2, "score 'nan' is not finite"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d1 2 0.5 t\n", 2, "docno 'd1' appears again for topic '301' (first on line 1)"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 0.5 u\n", 2, "tag 'u' differs from tag 't'"),
    ("301 Q0 d1 1 1.0 t\n999 Q0 d2 2 0.5 t\n", 2, "unknown topic '999'"),
    (b"301 Q0 d1 1 1.0 t\n301 Q0 d\xff 2 0.5 t\n", 2, "is not valid UTF-8"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 " + "x" * 256 + " 2 0.5 t\n", 2, "docno is longer than 255 bytes"),
    # the one identifier rule (collections_app.importers.identifiers) and trec_eval's atof
    ("301 Q0 d1 1 1.0 team/run1\n", 1, "run tag 'team/run1' contains '/'"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d\x002 2 0.5 t\n", 2, "contains a control character (U+0000)"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d\u200b2 2 0.5 t\n", 2, "contains a control character (U+200B)"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 1_000 t\n", 2, "score '1_000' is not a number"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 1e999 t\n", 2, "score '1e999' is not a number"),
    ("301 Q0 d1 1 1.0 t\n301 Q0 d2 2 \u0661 t\n", 2, "score '\u0661' is not a number"),
])
def test_bad_lines_are_reported_with_file_and_line(topics, tmp_path, text, line, message):
    path = write(tmp_path, "bad.run", text)
    problems = [str(p) for p in refused(topics, path).problems]
    assert any(p.startswith(f"bad.run:{line}: ") and message in p for p in problems), problems
    assert not Run.objects.exists()


def test_a_byte_order_mark_at_the_start_is_skipped(topics, tmp_path):
    path = write(tmp_path, "bom.run", "\ufeff301 Q0 d1 1 2 t\n301 Q0 d2 2 1 t\n")
    runs_import(collection=topics, sources=[path])
    assert ranking("t", "301")[0] == ["d1", "d2"]


def test_empty_file_is_refused(topics, tmp_path):
    error = refused(topics, write(tmp_path, "empty.run", "# only a comment\n"))
    assert error.code == "empty_file"
    assert str(error.problems[0]) == "empty.run: the file has no run lines"


def test_a_bad_file_in_a_multi_file_upload_stores_no_run_at_all(topics, tmp_path):
    good = write(tmp_path, "good.run", run_text("good", [("301", "d1", 1.0)]))
    bad = write(tmp_path, "bad.run", "301 Q0 d1 1 1.0 bad\n301 Q0 d2 x 1.0\n")
    refused(topics, good, bad)
    assert not Run.objects.exists() and not RunRanking.objects.exists()


def test_two_files_with_the_same_tag_are_refused(topics, tmp_path):
    one = write(tmp_path, "one.run", run_text("same", [("301", "d1", 1.0)]))
    two = write(tmp_path, "two.run", run_text("same", [("302", "d1", 1.0)]))
    error = refused(topics, one, two)
    assert error.code == "duplicate_run"
    assert "two.run: tag 'same' is also the tag of one.run" in str(error)
    assert not Run.objects.exists()


def test_reimporting_a_tag_is_refused_unless_replace(topics, tmp_path):
    runs_import(collection=topics, sources=[write(tmp_path, "v1.run", run_text("r", [("301", "old", 1.0)]))])
    v2 = write(tmp_path, "v2.run", run_text("r", [("302", "new", 1.0)]))
    assert refused(topics, v2).code == "duplicate_run"
    assert ranking("r", "301")[0] == ["old"]
    summary = runs_import(collection=topics, sources=[v2], replace=True)
    assert (summary.created, summary.replaced) == (0, 1)
    assert list(RunRanking.objects.filter(run__tag="r").values_list("topic__qid", flat=True)) == ["302"]
    assert Run.objects.get(tag="r").source_name == "v2.run"


def test_failed_replace_keeps_the_old_rankings(topics, tmp_path):
    runs_import(collection=topics, sources=[write(tmp_path, "v1.run", run_text("r", [("301", "old", 1.0)]))])
    refused(topics, write(tmp_path, "v2.run", "301 Q0 d 1 oops r\n"), replace=True)
    assert ranking("r", "301")[0] == ["old"]


def test_docnos_missing_from_the_collection_are_counted_per_run(topics, tmp_path):
    Document.objects.create(collection=topics, docno="known")
    path = write(tmp_path, "a.run", run_text("r", [("301", "known", 3), ("301", "u1", 2), ("302", "u1", 2),
                                                   ("302", "u2", 1)]))
    summary = runs_import(collection=topics, sources=[path])
    assert summary.warnings == ["run r: 2 docnos not in the collection"]
    assert Run.objects.get(tag="r").num_unknown_docnos == 2


def test_group_description_and_user_are_recorded(topics, tmp_path, lead):
    path = write(tmp_path, "a.run", run_text("r", [("301", "d", 1)]))
    runs_import(collection=topics, sources=[path], group="uni", description="BM25", user=lead)
    run = Run.objects.get(tag="r")
    assert (run.group, run.description, run.uploaded_by) == ("uni", "BM25", lead)


def test_small_blocks_mixing_fast_and_line_by_line_paths_give_trec_eval_order(topics, tmp_path, monkeypatch):
    from collections_app.importers import sources

    monkeypatch.setattr(sources, "BLOCK", 64)  # many blocks, some with comments (read line by line)
    rng = random.Random(7)
    rows = [(qid, f"doc{n}", float(rng.randint(0, 5))) for qid in ("301", "302") for n in range(40)]
    rng.shuffle(rows)
    lines = [f"{qid} Q0 {docno} 1 {score} mix\n" for qid, docno, score in rows]
    lines.insert(17, "# comment in the middle\n")
    lines.insert(50, "\n")
    runs_import(collection=topics, sources=[write(tmp_path, "mix.run", "".join(lines))])
    for qid in ("301", "302"):
        expected = sorted(((score, docno) for q, docno, score in rows if q == qid), reverse=True)
        docnos, scores = ranking("mix", qid)
        assert docnos == [docno for _score, docno in expected]
        assert scores == [score for score, _docno in expected]


def test_problem_lines_stay_exact_across_block_boundaries(topics, tmp_path, monkeypatch):
    from collections_app.importers import sources

    monkeypatch.setattr(sources, "BLOCK", 50)
    lines = [f"301 Q0 d{n} {n} {100 - n} t\n" for n in range(1, 30)]
    lines[22] = "301 Q0 d5 23 1.5 t\n"  # line 23 repeats d5 from line 5
    problems = [str(p) for p in refused(topics, write(tmp_path, "b.run", "".join(lines))).problems]
    assert problems == ["b.run:23: docno 'd5' appears again for topic '301' (first on line 5)"]


def test_truncated_gzip_is_refused_naming_the_file(topics, tmp_path):
    whole = write(tmp_path, "whole.gz", run_text("t", [("301", f"d{n}", n) for n in range(500)]), gz=True)
    cut = write(tmp_path, "cut.run.gz", whole.read_bytes()[:200])
    error = refused(topics, cut)
    assert str(error.problems[0]).startswith("cut.run.gz: cannot decompress the file")
    assert not Run.objects.exists()


def test_missing_file_is_refused_without_a_traceback(topics, tmp_path):
    error = refused(topics, tmp_path / "nowhere.run")
    assert error.code == "unreadable_file"
    assert str(error.problems[0]).startswith("nowhere.run: cannot open the file")


def test_progress_reports_bytes_read_up_to_the_total(topics, tmp_path):
    one = write(tmp_path, "one.run", run_text("one", [("301", "d1", 1.0)]))
    two = write(tmp_path, "two.run", run_text("two", [("302", "d1", 1.0), ("302", "d2", 0.5)]))
    calls = []
    runs_import(collection=topics, sources=[one, two], progress=lambda done, total: calls.append((done, total)))
    total = one.stat().st_size + two.stat().st_size
    assert calls[-1] == (total, total)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_windows_line_endings_and_tabs_are_accepted(topics, tmp_path):
    path = write(tmp_path, "crlf.run", "301\tQ0\td1\t1\t0.5\tw\r\n301 Q0 d2 2 0.7 w\r\n")
    runs_import(collection=topics, sources=[path])
    assert ranking("w", "301") == (["d2", "d1"], [0.7, 0.5])
