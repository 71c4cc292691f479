import io
import random

import numpy as np
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
    ("301 Q0 d1 1 1.0 t\n301 Q0 d\x7f2 2 0.5 t\n", 2, "contains a control character (U+007F)"),
    ("301 Q0 d1 1 1.0 t\n301\tQ0\td2\t2\t0.5\tt/x\n", 2, "tag 't/x' differs from tag 't'"),
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


# --- the fast path (metrics.io.run_columns) and the line-by-line path store the same rankings ---

def _messy_rows(rng: random.Random, qids: list[str]) -> list[tuple[str, str, str]]:
    """(qid, docno, score text): topics interleaved, many tied scores, exponents, signs, -0."""
    forms = [lambda v: str(v), lambda v: f"{v:e}", lambda v: f"{v:E}", lambda v: str(v) if str(v).startswith("-") else f"+{v}",
             lambda v: f"{v:.3f}", lambda v: str(int(v)) if v == int(v) else repr(v)]
    rows = []
    for qid in qids:
        for n in rng.sample(range(400), rng.randint(1, 60)):
            value = rng.choice([float(rng.randint(-3, 3)), rng.randint(-50, 50) / 8, rng.uniform(-1e3, 1e3), -0.0])
            rows.append((qid, f"D{n:03d}-{rng.choice('abc#')}", rng.choice(forms)(value)))
    rng.shuffle(rows)
    return rows


def _render(rows, tag: str, *, rng: random.Random | None = None) -> str:
    """Regular text, or (with ``rng``) tabs, repeated spaces, extra trailing fields, comments and blank lines."""
    lines = []
    for rank, (qid, docno, score) in enumerate(rows, 1):
        fields = [qid, "Q0", docno, str(rank), score, tag]
        if rng is None:
            lines.append(" ".join(fields) + "\n")
            continue
        if rng.random() < 0.3:
            fields += ["more", "junk", "at"][: rng.randint(1, 3)]
        seps = [rng.choice([" ", "\t", "  ", " \t"]) for _ in fields[1:]]
        lines.append(fields[0] + "".join(s + f for s, f in zip(seps, fields[1:])) + rng.choice(["\n", " \n", "\r\n"]))
        if rng.random() < 0.05:
            lines.append(rng.choice(["# a comment\n", "\n", "   \n"]))
    return "".join(lines)


def _stored(tag: str, qids) -> dict:
    return {qid: ranking(tag, qid) for qid in qids if RunRanking.objects.filter(run__tag=tag, topic__qid=qid).exists()}


@pytest.mark.parametrize("seed", range(6))
def test_fast_and_line_by_line_paths_store_identical_rankings_on_messy_runs(collection, tmp_path, monkeypatch, seed):
    from collections_app.importers import runs as runs_module
    from collections_app.importers import sources

    qids = ["301", "302", "303", "10", "9"]
    add_topics(collection, *qids)
    rng = random.Random(seed)
    rows = _messy_rows(rng, qids)
    if seed % 2:
        monkeypatch.setattr(sources, "BLOCK", 256)  # many blocks: per-block results must join up
    regular = write(tmp_path, "fast.run", _render(rows, "fast"))
    forced = write(tmp_path, "line.run", _render(rows, "line"))
    messy = write(tmp_path, "messy.run", _render(rows, "messy", rng=rng))

    real_fast = runs_module._RunReader._fast
    fast_blocks = []

    def counting_fast(self, first, block):
        took = real_fast(self, first, block)
        fast_blocks.append(took)
        return took

    monkeypatch.setattr(runs_module._RunReader, "_fast", counting_fast)
    runs_import(collection=collection, sources=[regular])
    assert fast_blocks and all(fast_blocks)  # the regular file never went line by line
    fast_blocks.clear()
    runs_import(collection=collection, sources=[messy])
    assert not any(fast_blocks)  # tabs doubled, extra fields, comments, CRLF: all line by line
    monkeypatch.setattr(runs_module._RunReader, "_fast", lambda self, first, block: False)
    runs_import(collection=collection, sources=[forced])

    expected = {}
    for qid in qids:  # trec_eval order: score descending, ties by docno descending (byte-wise)
        mine = sorted(((float(s), d) for q, d, s in rows if q == qid), key=lambda x: (x[0], x[1].encode()), reverse=True)
        if mine:
            expected[qid] = ([d for _s, d in mine], [s for s, _d in mine])
    assert _stored("fast", qids) == expected
    assert _stored("line", qids) == expected
    assert _stored("messy", qids) == expected
    for tag in ("fast", "line", "messy"):
        assert Run.objects.get(tag=tag).num_lines == len(rows)


def test_whole_run_sort_equals_the_per_topic_trec_order(topics):
    from collections_app.importers import runs as runs_module
    from collections_app.importers.errors import ProblemList

    rng = np.random.default_rng(3)
    n = 5000
    qids = np.array([b"301", b"302", b"1", b"20"])[rng.integers(0, 4, n)]
    docnos = np.array([f"d{i}".encode() for i in rng.permutation(n)])
    scores = rng.integers(-5, 5, n).astype(float) / 2  # heavy ties
    topic_ids = {b"301": 1, b"302": 2, b"1": 3, b"20": 4}
    whole = runs_module._pack_run(qids, docnos, scores, topic_ids)
    problems = ProblemList()
    per_topic = runs_module._pack_per_topic("x.run", qids, docnos, scores, np.arange(1, n + 1), topic_ids, problems)
    assert not problems
    as_dict = {r.topic_id: (r.length, runstore.unpack_docnos(r.docnos), r.scores) for r in whole}
    assert as_dict == {r.topic_id: (r.length, runstore.unpack_docnos(r.docnos), r.scores) for r in per_topic}
    assert sum(r.length for r in whole) == n


def test_a_repeated_docno_is_named_even_when_the_run_is_sorted_whole(topics):
    from collections_app.importers import runs as runs_module

    qids = np.array([b"301", b"302", b"301"])
    docnos = np.array([b"a", b"a", b"a"])
    assert runs_module._pack_run(qids, docnos, np.array([1.0, 2.0, 3.0]), {b"301": 1, b"302": 2}) is None
    assert runs_module._pack_run(qids[:2], docnos[:2], np.array([1.0, 2.0]), {b"301": 1, b"302": 2}) is not None


def test_extra_trailing_fields_are_ignored_as_trec_eval_ignores_them(topics, tmp_path):
    path = write(tmp_path, "trunc.run", "301 Q0 FBIS3-27619 99 2.138276 STANDARD more junk at\n"
                                        "301 Q0 FBIS3-1 100 3 STANDARD\n")
    summary = runs_import(collection=topics, sources=[path])
    assert summary.lines == 2
    assert ranking("STANDARD", "301") == (["FBIS3-1", "FBIS3-27619"], [3.0, 2.138276])


def test_a_regular_file_with_windows_line_ends_takes_the_fast_path(topics, tmp_path, monkeypatch):
    from collections_app.importers import runs as runs_module

    def no_line_by_line(self, first, block):
        raise AssertionError("went line by line")

    monkeypatch.setattr(runs_module._RunReader, "_slow", no_line_by_line)
    path = write(tmp_path, "crlf.run", "301 Q0 d1 1 0.5 w\r\n301\tQ0\td2\t2\t0.7\tw\r\n302 Q0 d1 1 1e-3 w")
    runs_import(collection=topics, sources=[path])
    assert ranking("w", "301") == (["d2", "d1"], [0.7, 0.5])
    assert ranking("w", "302") == (["d1"], [0.001])
