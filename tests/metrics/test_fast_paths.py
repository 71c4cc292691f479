"""The shortcuts taken for speed give what the plain paths give.

Lazy imports, lazily decoded vocabulary strings, the one-pass hash table rebuild, the numpy
widening of ASCII docnos, the all-topics-at-once G and rbp, the vectorised C rounding, the
template rendering of ``-q`` output, and the parameter parsing the type checker now covers.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import io as mio
from metrics.cli import format_trec, format_value, single_threaded_numpy
from metrics.evaluate import EvaluationResult
from metrics.measures import gain, trec
from metrics.registry import registry
from tests.metrics.test_vectorised_measures import batches

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_package_loads_neither_numpy_nor_scipy_and_keeps_function_names():
    script = ("import sys, metrics\n"
              "loaded = [m for m in ('numpy', 'scipy') if m in sys.modules]\n"
              "import metrics.evaluate, metrics.registry\n"
              "from metrics import evaluate, registry, io\n"
              "print(loaded, callable(evaluate) and evaluate.__module__, callable(registry), io.__name__)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "metrics.evaluate", "True", "metrics.io"]


def test_command_line_asks_for_one_blas_thread_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    single_threaded_numpy()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["OMP_NUM_THREADS"] == "3"


def words_of(docnos: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(d) for d in docnos], dtype=np.int64)
    width = max(8, -(-int(lengths.max()) // 8) * 8)
    return np.array(docnos, dtype=f"S{width}").view(np.uint64).reshape(len(docnos), width // 8), lengths


def test_vocabulary_decodes_docnos_read_as_bytes_only_when_asked():
    vocab = mio._Vocabulary()
    named = vocab.encode(["x", "y"])
    words, lengths = words_of([b"d-1", b"a-much-longer-docno-2", b"d-1", b"y"])
    codes = vocab.encode_words(words, lengths)
    assert codes.tolist() == [2, 3, 2, 1] and named.tolist() == [0, 1]
    assert vocab._names == ["x", "y", None, None]  # nothing decoded yet
    assert vocab.decode(np.array([3, 0])) == ["a-much-longer-docno-2", "x"]
    assert vocab._names == ["x", "y", None, "a-much-longer-docno-2"]  # only what was asked for
    assert vocab.names == ["x", "y", "d-1", "a-much-longer-docno-2"]
    assert vocab.encode(["a-much-longer-docno-2", "new"]).tolist() == [3, 4]


def test_table_finds_every_docno_when_their_slots_crowd_the_table_end():
    vocab = mio._Vocabulary()
    docnos = [f"doc-{i}" for i in range(3000)]
    codes = vocab.encode(docnos)
    end = len(docnos)
    size = len(vocab._slots)
    crowded = np.uint64(size - 5) + (np.arange(end, dtype=np.uint64) % np.uint64(3))
    vocab._slots[:] = 0
    vocab._place(np.arange(end), crowded)  # most codes run past the last slot and wrap around to the first ones
    assert np.count_nonzero(vocab._slots) == end
    words, lengths = words_of([d.encode() for d in docnos])
    assert vocab._find(crowded, words, lengths).tolist() == codes.tolist()


def test_hashes_recomputed_from_the_stored_bytes_are_the_hashes_of_the_docnos():
    vocab = mio._Vocabulary()
    docnos = [b"", b"a", b"abcdefgh", b"abcdefghi", b"x" * 40, b"a\x00"]
    words, lengths = words_of(docnos)
    codes = vocab.encode_words(words, lengths)
    assert vocab._stored_hashes(codes[::-1]).tolist() == mio._row_hashes(words, lengths)[::-1].tolist()


@pytest.mark.parametrize("buckets", [1, 3, 50, None])
@pytest.mark.parametrize("seed", range(4))
def test_vocabulary_gives_the_codes_a_dict_gives_in_batches_with_repeats_and_colliding_hashes(monkeypatch, seed, buckets):
    """The table's insert finds repeats within a batch without sorting; a dict is the plain path."""
    if buckets is not None:  # few distinct hashes: long probe runs, contests for slots, equal hashes
        real = mio._row_hashes
        monkeypatch.setattr(mio, "_row_hashes", lambda w, n: real(w, n) % np.uint64(buckets))
    rng = random.Random(seed)
    alphabet = ["a", "b", "\x00", "#", "é"]
    pool = ["".join(rng.choices(alphabet, k=rng.choice([0, 1, 2, 7, 8, 9, 16, 17]))) for _ in range(400)]
    vocab, model = mio._Vocabulary(), {}
    for _ in range(12):
        batch = rng.choices(pool, k=rng.choice([1, 5, 300, 2500]))
        if rng.random() < 0.5:  # bytes rows, as the file readers give them
            words, lengths = words_of([d.encode() for d in batch])
            codes = vocab.encode_words(words, lengths)
        else:
            codes = vocab.encode(batch)
        want = [model.setdefault(d, len(model)) for d in batch]
        assert codes.tolist() == want
    assert vocab.names == list(model)
    assert np.count_nonzero(vocab._slots) == len(model) <= len(vocab._slots) // 2
    assert vocab.encode(list(model)).tolist() == list(range(len(model)))


@pytest.mark.parametrize("width", [1, 7, 8, 9, 16])
def test_ascii_docnos_widen_to_the_str_array_astype_gives(width):
    strings = np.array([b"", b"a", b"0123456789abcdef"[:width], b"A#b-c_d"[:width]], dtype="S16")
    got = mio._ascii_unicode(strings, width)
    assert got.dtype == np.dtype(f"U{width}")
    assert got.tolist() == strings.astype(f"U{width}").tolist()


@pytest.mark.parametrize("seed", range(3))
def test_g_and_rbp_with_grades_as_gains_equal_their_per_topic_loops(seed):
    for b in batches(seed):
        fast = gain.g_measure(b, ())[0][1]
        for t in range(len(b.qids)):
            gains = gain._g_gains(b.level_counts[t], ())
            assert fast[t] == gain._g_topic(b.rel[t, : int(b.num_ret[t])].tolist(), gains)
        for p in (0.5, 0.9):
            # an explicit level=gain pair equal to the default sends rbp down its per-topic loop
            looped = gain.rbp(b, (("p", p), ("1", 1.0)))[0][1]
            assert gain.rbp(b, (("p", p),))[0][1].tolist() == looped.tolist()


def test_c_rounding_of_cutoffs_in_numpy_is_the_scalar_rounding():
    x = np.array([0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 4.4999, 7.0, -0.5, -1.5, 1e6 + 0.5])
    assert trec._lround_array(x).tolist() == [trec._lround(v) for v in x.tolist()]


def test_trec_output_renders_templates_exactly_as_value_by_value():
    result = EvaluationResult(
        tag="t", names=["num_ret", "map", "relstring", "Rndcg", "gm_map"],
        kinds={"num_ret": "int", "map": "float", "relstring": "str", "Rndcg": "float", "gm_map": "float"},
        per_topic={"q%1": {"num_ret": 3, "map": 0.123456, "relstring": "10-", "Rndcg": 0.5, "gm_map": 0.1},
                   "2": {"num_ret": 0, "map": 0.0, "relstring": "", "Rndcg": math.nan, "gm_map": 0.0},
                   "3": {"num_ret": 1, "map": 1.0, "relstring": "1", "gm_map": 1.0}},
        aggregate={"num_ret": 4, "map": 0.5, "gm_map": 0.2}, summary_only={"gm_map"})
    expected = "".join(f"{n:<22}\t{q}\t{format_value(v[n], result.kinds[n])}\n"
                       for q, v in result.per_topic.items() for n in result.names if n != "gm_map" and n in v)
    text = format_trec(result, per_topic=True, summary=False)
    assert text == expected
    assert "Rndcg                 \t2\t-nan\n" in text and "map                   \tq%1\t0.1235\n" in text


def test_parameter_kinds_parse_to_their_own_shapes():
    m = registry()
    assert m["rbp"].parse_params("p=0.5,2=0.25") == (("p", 0.5), ("2", 0.25))
    assert m["F_cut"].parse_params("20=0.5,10,10=1") == ((10, 1.0), (20, 0.5))  # a repeated pair counts once
    assert m["ndcg"].parse_params("1=0.5,2=3") == ((1, 0.5), (2, 3.0))
    with pytest.raises(ValueError, match="name=value"):
        m["rbp"].parse_params("0.5")


def test_codes_from_the_qrels_reader_are_used_only_for_the_docnos_they_were_read_for(tmp_path):
    from metrics.measures.batch import prepare_qrels

    p = tmp_path / "q.txt"
    p.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    qrels = mio.read_qrels(p)
    assert set(qrels._cache["codes"]) == {"1", "2"}
    qrels.topics["2"] = (np.array(["zz-new"]), np.array([1]))  # replaced after reading
    prepared = prepare_qrels(qrels)
    assert mio.VOCABULARY.decode(prepared["2"].codes) == ["zz-new"]
    assert sorted(mio.VOCABULARY.decode(prepared["1"].codes)) == ["a", "b"]


def test_python_dash_m_metrics_flushes_its_output_and_keeps_its_exit_status(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = subprocess.run([sys.executable, "-m", "metrics", "-q", "-m", "map", "q", "r"], cwd=tmp_path, env=env,
                        capture_output=True, text=True)
    assert (ok.returncode, ok.stdout) == (0, "map                   \t1\t1.0000\nmap                   \tall\t1.0000\n")
    bad = subprocess.run([sys.executable, "-m", "metrics", "q", "missing"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and "missing" in bad.stderr


@pytest.mark.parametrize("seed", range(5))
def test_fields_read_through_the_unaligned_word_view_are_the_fields_bytes(seed):
    rng = random.Random(seed)
    fields = [bytes(rng.choices(b"ab#-_.0123456789", k=rng.choice([1, 2, 7, 8, 9, 15, 16, 17, 40]))) for _ in range(300)]
    raw = b" ".join(fields) + b"\n"
    buf, size = mio._padded(raw)
    array = np.frombuffer(buf, dtype=np.uint8)
    begin = np.array([0, *np.cumsum([len(f) + 1 for f in fields])[:-1]], dtype=np.int64)
    order = np.array(rng.sample(range(len(fields)), len(fields)))  # any order; the last field sits at the buffer's end
    words, lengths = mio._field(array, begin[order], begin[order] + np.array([len(f) for f in fields])[order])
    width = words.shape[1] * 8
    assert width == -(-max(map(len, fields)) // 8) * 8
    assert words.view(f"S{width}").ravel().tolist() == [fields[i] for i in order]  # zero-padded past each end
    assert lengths.tolist() == [len(fields[i]) for i in order]


@pytest.mark.parametrize("n", [0, 1, mio._CHUNK - 1, mio._CHUNK, mio._CHUNK + 1, 3 * mio._CHUNK + 17])
def test_field_ends_found_chunk_by_chunk_are_those_of_one_pass(n):
    data = np.frombuffer(random.Random(n).randbytes(n), dtype=np.uint8) % np.uint8(40)
    assert mio._positions_up_to_space(data).tolist() == np.flatnonzero(data <= 0x20).tolist()


def test_files_read_into_a_padded_buffer_hold_their_bytes_then_zeros(tmp_path):
    import gzip
    import threading

    raw = b"".join(b"1 Q0 d%d %d 2.5 t\n" % (i, i) for i in range(1000)) + b"2 Q0 b 1 1 t"
    plain, packed, fifo = tmp_path / "r", tmp_path / "r.gz", tmp_path / "pipe"
    plain.write_bytes(raw)
    packed.write_bytes(gzip.compress(raw))
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(raw,))
    writer.start()
    for path in (plain, packed, fifo):  # a pipe's size is not known in advance
        buf, size = mio._read_padded(str(path))
        assert (bytes(buf[:size]), bytes(buf[size:])) == (raw, bytes(mio._SPARE))
    writer.join()
    buf, size = mio._read_padded(str(plain))
    run = mio._vector_run(buf, path="r", tag=None, size=size)  # the last line lacks its "\n": added in the spare room
    assert run is not None and run.to_dict() == read_run_dict(raw) and run.tag == "t"


def read_run_dict(raw: bytes) -> dict:
    out: dict = {}
    for line in raw.decode().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, {})[d] = float(s)
    return out
