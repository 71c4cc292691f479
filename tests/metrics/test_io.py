"""Readers: trec_eval 10 comment handling, gzip, '#' inside docnos, clear errors."""

import gzip

import pytest

from metrics import MetricsInputError, read_qrels, read_run, run_from_arrays, run_from_dict


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
    assert "expected 6" in str(err.value) and "bad.run:3" in str(err.value)


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
