"""Readers: trec_eval 10 comment handling, gzip, '#' inside docnos, clear errors."""

import dataclasses
import gzip
import random

import numpy as np
import pytest

from metrics import MetricsInputError, Qrels, Run, read_qrels, read_run, run_from_arrays, run_from_dict
from metrics import io as mio
from metrics.io import VOCABULARY


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_run_reader_skips_comment_lines_but_keeps_hash_inside_docnos(tmp_path):
    p = write(tmp_path, "r.txt", "# header\n\n1 Q0 msmarco_v2.1_doc_00_0#3_12 1 2.5 tagA\n1 Q0 d2 2 1.0 tagA\n")
    run = read_run(p)
    assert run.tag == "tagA"
    assert run.to_dict() == {"1": {"msmarco_v2.1_doc_00_0#3_12": 2.5, "d2": 1.0}}


def test_gzip_files_are_read_transparently(tmp_path):
    p = tmp_path / "q.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("1 0 a 2\n1 0 b -1\n2 0 c 0\n")
    assert read_qrels(p).to_dict() == {"1": {"a": 2, "b": -1}, "2": {"c": 0}}


def test_run_with_wrong_field_count_names_file_and_line(tmp_path):
    p = write(tmp_path, "bad.run", "1 Q0 a 1 1.0 t\n# ok\n1 Q0 b 2 0.5\n")
    with pytest.raises(MetricsInputError) as err:
        read_run(p)
    assert err.value.line == 3
    assert err.value.path == str(p)
    assert "at least 6" in str(err.value) and "bad.run:3" in str(err.value)


def test_non_numeric_score_is_reported_with_its_line(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 1.0 t\n1 Q0 b 2 high t\n")
    with pytest.raises(MetricsInputError, match="score 'high'") as err:
        read_run(p)
    assert err.value.line == 2


def test_non_integer_grade_is_reported_with_its_line(tmp_path):
    p = write(tmp_path, "q", "1 0 a 1\n1 0 b 0.5\n")
    with pytest.raises(MetricsInputError, match="relevance '0.5'") as err:
        read_qrels(p)
    assert err.value.line == 2


def test_duplicate_docno_within_a_topic_of_a_run_is_an_error(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n")
    with pytest.raises(MetricsInputError, match="duplicate docno 'a' in topic '1'") as err:
        read_run(p)
    assert err.value.line == 3


def test_duplicate_docno_in_qrels_is_an_error(tmp_path):
    p = write(tmp_path, "q", "1 0 a 1\n1 0 a 0\n")
    with pytest.raises(MetricsInputError, match="duplicate docno"):
        read_qrels(p)


def test_same_docno_in_different_topics_is_fine(tmp_path):
    p = write(tmp_path, "r", "1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n")
    assert set(read_run(p).topics) == {"1", "2"}


def test_interleaved_topics_are_grouped(tmp_path):
    p = write(tmp_path, "r", "2 Q0 a 1 1.0 t\n1 Q0 b 1 3.0 t\n2 Q0 c 2 0.5 t\n")
    assert read_run(p).to_dict() == {"1": {"b": 3.0}, "2": {"a": 1.0, "c": 0.5}}


def test_constructors_from_arrays_and_dicts_agree():
    a = run_from_arrays(["1", "1"], ["x", "y"], [1, 2], tag="t")
    b = run_from_dict({"1": {"x": 1.0, "y": 2.0}}, tag="t")
    assert a.to_dict() == b.to_dict()
    with pytest.raises(MetricsInputError, match="duplicate"):
        run_from_arrays(["1", "1"], ["x", "x"], [1, 2])


def test_hash_inside_docno_without_comment_lines_uses_the_fast_path_correctly(tmp_path):
    p = write(tmp_path, "r.txt", "1 Q0 doc#1 1 2.0 t\n1 Q0 doc#2 2 1.0 t\n")
    assert read_run(p).to_dict() == {"1": {"doc#1": 2.0, "doc#2": 1.0}}
    q = write(tmp_path, "q.txt", "1 0 doc#1 1\n")
    assert read_qrels(q).to_dict() == {"1": {"doc#1": 1}}


# The vectorised readers (regular files) against the line-by-line readers (everything else).

def careful_run(raw: bytes, path) -> Run:
    return mio._run_from_text(raw.decode("utf-8"), path=str(path), tag=None)


def careful_qrels(raw: bytes, path) -> Qrels:
    return mio._qrels_from_text(raw.decode("utf-8"), path=str(path))


def assert_same_run(got: Run, want: Run) -> None:
    assert got.qids == want.qids
    assert got.offsets == want.offsets
    assert got.tag == want.tag
    assert got.codes.dtype == want.codes.dtype and got.codes.tolist() == want.codes.tolist()
    assert got.docnos_between(0, len(got.codes)) == want.docnos_between(0, len(want.codes))
    assert got.scores.dtype == np.float64
    assert got.scores.view(np.uint64).tolist() == want.scores.view(np.uint64).tolist()  # bit for bit


def assert_same_qrels(got: Qrels, want: Qrels) -> None:
    assert list(got.topics) == list(want.topics)
    for q, (d, g) in want.topics.items():
        gd, gg = got.topics[q]
        assert gd.dtype == d.dtype and gd.tolist() == d.tolist()
        assert gg.dtype == g.dtype and gg.tolist() == g.tolist()
    assert got.name == want.name


PLAIN_SCORES = ["0.1", "0.3", "2.675", "-0", "-0.0", "+2", ".5", "5.", "-.25", "123456789012345", "0.000000000000001",
                "99999999999999.9", "1022.236328", "007", "-3"]
OTHER_SCORES = ["1e-3", "-2.5E+4", "1E5", "4.9e-324", "1e-400", "inf", "-inf", "Infinity", "nan", "0x10", "-0x1.8p1",
                "9007199254740993", "0.1000000000000000055511151231257827", "1.0000000000000002"]


def regular_run_text(seed: int, *, contiguous: bool = True, trailing_newline: bool = True) -> str:
    """Return a run file every line of which the vectorised reader takes: tabs or spaces, odd scores, odd docnos."""
    rng = random.Random(seed)
    docnos = [f"D{i}" for i in range(40)] + ["msmarco_v2.1_doc_00_0#3_12", "doc#1", "clueweb12-0000tw-00-00000-long",
                                             "x", "a" * 8, "a" * 9, "a" * 16, "a" * 17, "Q0", "-1"]
    lines = []
    for t in rng.sample(range(1, 30), 6):
        for rank, d in enumerate(rng.sample(docnos, rng.randint(1, 30)), 1):
            kind = rng.random()
            if kind < 0.3:
                score = rng.choice(PLAIN_SCORES + OTHER_SCORES)
            elif kind < 0.6:
                score = f"{rng.uniform(-1e4, 1e4):.{rng.randint(0, 10)}f}"
            elif kind < 0.8:
                score = f"{rng.uniform(-1, 1):.{rng.randint(1, 8)}e}"
            else:
                score = repr(rng.random() * 10 ** rng.randint(-3, 5))
            fields = [f"{t}", "Q0", d, str(rank), score, f"tag{seed}.{t}.{rank}"]  # the last line's tag names the run
            lines.append("".join(f + rng.choice(" \t") for f in fields[:-1]) + fields[-1])
    if not contiguous:
        rng.shuffle(lines)
    return "\n".join(lines) + ("\n" if trailing_newline else "")


def regular_qrels_text(seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for t in rng.sample(range(1, 30), 6):
        for d in rng.sample([f"d{i}" for i in range(50)] + ["doc#1", "a" * 17, "Z"], rng.randint(1, 40)):
            grade = rng.choice(["0", "1", "2", "-1", "+1", "-0", "007"])
            lines.append("".join(f + rng.choice(" \t") for f in (str(t), "0", d)) + grade)
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_vectorised_run_reader_agrees_with_the_line_by_line_reader(tmp_path, seed):
    text = regular_run_text(seed, contiguous=seed % 3 != 0, trailing_newline=seed % 4 != 1)
    p = write(tmp_path, "r.txt", text)
    raw = p.read_bytes()
    got = mio._vector_run(raw, path=str(p), tag=None)
    assert got is not None  # the file is regular: the vectorised reader must take it
    assert_same_run(got, careful_run(raw, p))
    assert_same_run(read_run(p), got)
    if seed % 3 == 0:
        assert got.qids == sorted(got.qids)  # lines of a topic were scattered: grouped, topics in string order


def test_vectorised_run_reader_reads_gzip(tmp_path):
    text = regular_run_text(99, contiguous=False)
    p = tmp_path / "r.gz"
    with gzip.open(p, "wt") as fh:
        fh.write(text)
    assert_same_run(read_run(p), careful_run(text.encode(), p))


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_qrels_reader_agrees_with_the_line_by_line_reader(tmp_path, seed):
    p = write(tmp_path, "q.txt", regular_qrels_text(seed))
    raw = p.read_bytes()
    got = mio._vector_qrels(raw, name="q.txt")
    assert got is not None
    assert_same_qrels(got, careful_qrels(raw, p))
    assert_same_qrels(read_qrels(p), got)
    gz = tmp_path / "q.txt.gz"
    gz.write_bytes(gzip.compress(raw))
    assert_same_qrels(read_qrels(gz), dataclasses.replace(got, name="q.txt.gz"))


@pytest.mark.parametrize("text", [
    "# a comment line\n1 Q0 a 1 2.5 t\n1 Q0 b 2 1.0 t\n",
    "#1 Q0 x 1 9.5 t\n1 Q0 a 1 2.5 t\n1 Q0 b 2 1.0 t\n",
    "1 Q0 a 1 2.5 t\n\n1 Q0 b 2 1.0 t\n",
    "1  Q0 a 1 2.5 t\n1 Q0 b 2 1.0 t\n",
    " 1 Q0 a 1 2.5 t\n1 Q0 b 2 1.0 t \n",
    "1 Q0 a 1 2.5 t\r\n1 Q0 b 2 1.0 t\r\n",
    "1 Q0 a 1 2.5 t\n1 Q0 b\x0b2 1.0 t\n",
    "1 Q0 caf\u00e9 1 2.5 t\n1 Q0 b 2 1.0 t\n",
    "1 Q0 a\x00b 1 2.5 t\n1 Q0 b 2 1.0 t\n",
    "1 Q0 a 1 2.5 t\n1 Q0 b\x0c2 1.0 t\n",
    "1 Q0 a 1 2.5 t\n1 Q0 b 2 1.0 t\n#",
], ids=["comment", "comment-like-data", "blank-line", "double-space", "edge-spaces", "crlf", "vertical-tab", "non-ascii",
        "nul-in-docno", "form-feed", "comment-without-newline"])
def test_irregular_run_files_are_left_to_the_line_by_line_reader(tmp_path, text):
    p = write(tmp_path, "r.txt", text)
    raw = p.read_bytes()
    assert mio._vector_run(raw, path=str(p), tag=None) is None
    assert_same_run(read_run(p), careful_run(raw, p))


@pytest.mark.parametrize("text, line, problem", [
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0.0 t\n", 2, "score '1.0.0' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 - t\n", 2, "score '-' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0x t\n", 2, "score '0x' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 1_000 t\n", 2, "score '1_000' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 1e309 t\n", 2, "score '1e309' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 \u0661 t\n", 2, "score '\u0661' is not a number"),
    ("# c\n1 Q0 a 1 x t\n", 2, "score 'x' is not a number"),
    ("1 Q0 a 1 1 t\r\n1 Q0 b 2 y t\r\n", 2, "score 'y' is not a number"),
    ("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5\n1 Q0 c 3 0.2 t\n", 2, "expected at least 6 whitespace-separated fields in a run line, found 5"),
    ("1  Q0 a 1 2.5\n1 Q0 b 2 1.0 t\n", 1, "expected at least 6 whitespace-separated fields in a run line, found 5"),
    ("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 a 3 0 t\n", 3, "duplicate docno 'a' in topic '1' of the run"),
    ("1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n2 Q0 c 2 0 t\n1 Q0 a 2 0 t\n", 4, "duplicate docno 'a' in topic '1' of the run"),
    ("1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n1 Q0 a 2 0 t\n2 Q0 b 2 0 t\n", 3, "duplicate docno 'a' in topic '1' of the run"),
], ids=["two-dots", "sign-only", "hex-prefix-only", "underscore", "overflow", "arabic-digit", "after-comment", "crlf",
        "five-fields", "empty-field", "duplicate",
        "duplicate-scattered", "two-duplicates"])
def test_bad_run_files_report_the_line_by_line_error(tmp_path, text, line, problem):
    p = write(tmp_path, "bad.run", text)
    assert mio._vector_run(p.read_bytes(), path=str(p), tag=None) is None
    with pytest.raises(MetricsInputError) as err:
        read_run(p)
    assert str(err.value).startswith(f"{p}:{line}: {problem}")
    assert err.value.line == line and err.value.problem.startswith(problem)


def test_trailing_run_fields_are_ignored_and_only_ascii_whitespace_splits(tmp_path):
    p = write(tmp_path, "r.txt", "1 Q0 a 1 1 t more junk\n1 Q0 b\u00a0c 2 1 t2 x\n")
    run = read_run(p)
    assert run.to_dict() == {"1": {"a": 1.0, "b\u00a0c": 1.0}}
    assert run.tag == "t2"  # trec_eval keeps the last line's tag


@pytest.mark.parametrize("text, line, problem", [
    ("1 0 a 1\n1 0 b x\n", 2, "relevance 'x' is not an integer"),
    ("1 0 a 1\n1 0 b 1.0\n", 2, "relevance '1.0' is not an integer"),
    ("1 0 a 1\n1 0 b\n", 2, "expected exactly 4 whitespace-separated fields in a qrels line, found 3"),
    ("1 0 a 1\n1 0 b 1 x\n", 2, "expected exactly 4 whitespace-separated fields in a qrels line, found 5"),
    ("1 0 a 1\n\n1 0 b 1\n", 2, "expected exactly 4 whitespace-separated fields in a qrels line, found 0"),
    ("1 0 a 1\n1 0 b 99999999999999999999\n", 2, "relevance '99999999999999999999' is not an integer"),
    ("2 0 a 1\n1 0 a 1\n2 0 b 0\n2 0 a 0\n", 4, "duplicate docno "),
])
def test_bad_qrels_files_report_the_line_by_line_error(tmp_path, text, line, problem):
    p = write(tmp_path, "bad.qrels", text)
    assert mio._vector_qrels(p.read_bytes(), name="bad.qrels") is None
    with pytest.raises(MetricsInputError) as err:
        read_qrels(p)
    assert str(err.value).startswith(f"{p}:{line}: {problem}")
    assert err.value.line == line


def test_vocabulary_tells_docnos_apart_by_their_bytes_even_when_hashes_collide(monkeypatch):
    monkeypatch.setattr(mio, "_row_hashes", lambda words, lengths: np.full(len(lengths), 7, dtype=np.uint64))
    vocab = mio._Vocabulary()
    docnos = ["a", "b", "a", "ab", "a" * 20, "a\x00", "", "a" * 21, "b"]
    assert vocab.encode(docnos).tolist() == [0, 1, 0, 2, 3, 4, 5, 6, 1]
    assert vocab.decode(vocab.encode(docnos[::-1])) == docnos[::-1]
    assert vocab.names == ["a", "b", "ab", "a" * 20, "a\x00", "", "a" * 21]


def test_vocabulary_codes_are_stable_as_the_table_grows():
    vocab = mio._Vocabulary()
    docnos = [f"doc-{i:06d}-{'x' * (i % 23)}" for i in range(30_000)]
    for start in range(0, len(docnos), 7_000):
        assert vocab.encode(docnos[start:start + 7_000]).tolist() == list(range(start, min(start + 7_000, len(docnos))))
    shuffled = random.Random(3).sample(range(len(docnos)), len(docnos))
    assert vocab.encode([docnos[i] for i in shuffled]).tolist() == shuffled
    assert vocab.encode(["caf\u00e9", "\ud800", "doc-000001-x"]).tolist() == [30_000, 30_001, 1]


def test_files_and_strings_share_docno_codes(tmp_path):
    fresh = [f"shared-{i}-{random.Random(i).random()}" for i in range(5)]
    p = write(tmp_path, "r.txt", "".join(f"1 Q0 {d} {i} {-i} t\n" for i, d in enumerate(fresh)))
    run = read_run(p)
    assert run.codes.tolist() == VOCABULARY.encode(fresh).tolist()
    assert read_run(p).codes.tolist() == run.codes.tolist()


def test_run_topics_decode_a_topic_only_when_it_is_read(tmp_path, monkeypatch):
    p = write(tmp_path, "r.txt", "2 Q0 b 1 3.0 t\n2 Q0 a 2 1.0 t\n1 Q0 c 1 0.5 t\n")
    run = read_run(p)
    with monkeypatch.context() as m:
        m.setattr(VOCABULARY, "decode", lambda codes: pytest.fail("decoded for a membership test"))
        assert "2" in run.topics and "3" not in run.topics
        assert list(run.topics) == ["2", "1"] and len(run.topics) == 2  # file order
    docnos, scores = run.topics["2"]
    assert docnos.tolist() == ["b", "a"] and scores.tolist() == [3.0, 1.0]
    assert run.topics["2"][0] is docnos  # decoded once
    assert {q: (d.tolist(), s.tolist()) for q, (d, s) in run.topics.items()} == {
        "1": (["c"], [0.5]), "2": (["b", "a"], [3.0, 1.0])}
    with pytest.raises(KeyError):
        run.topics["3"]
