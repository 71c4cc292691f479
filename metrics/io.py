"""Read TREC run and qrels files (plain or gzip) into compact numpy-backed objects.

trec_eval 10 conventions: blank lines and lines whose first character is ``#`` are
skipped; a ``#`` anywhere else (e.g. inside an MS MARCO v2.1 docno) is data. The rank
column of a run is ignored. A docno repeated within one topic is an error.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "MetricsInputError",
    "Qrels",
    "Run",
    "qrels_from_dict",
    "read_qrels",
    "read_run",
    "run_from_dict",
    "run_from_arrays",
]


class _Vocabulary:
    """Map docnos to stable integer codes for the life of the process.

    Runs and qrels store codes beside the docno strings, so evaluation compares integers in
    numpy instead of hashing strings per document. Memory grows with the number of distinct
    docnos the process has read (about 100 bytes each); codes are never reused.
    """

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.names: list[str] = []

    def encode(self, docnos: list[str]) -> np.ndarray:
        """Return the codes of ``docnos``, assigning new codes to docnos never seen before."""
        ids = self.ids
        codes = list(map(ids.get, docnos))
        if None in codes:
            names = self.names
            for i, c in enumerate(codes):
                if c is None:
                    d = docnos[i]
                    c = ids.get(d)
                    if c is None:
                        c = ids[d] = len(names)
                        names.append(d)
                    codes[i] = c
        return np.array(codes, dtype=np.int64)

    def decode(self, codes: np.ndarray) -> list[str]:
        """Return the docnos of ``codes``."""
        names = self.names
        return [names[c] for c in codes.tolist()]


VOCABULARY = _Vocabulary()


class MetricsInputError(ValueError):
    """Report a malformed input line, naming the file, the line number and the problem."""

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None):
        self.problem = problem
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + problem)


@dataclass
class Qrels:
    """Hold relevance judgments per topic: sorted docnos and their integer grades."""

    topics: dict[str, tuple[np.ndarray, np.ndarray]]
    name: str = "qrels"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """Return ``{qid: {docno: grade}}``."""
        return {q: dict(zip(d.tolist(), g.tolist())) for q, (d, g) in self.topics.items()}


class Run:
    """Hold one system's retrieved documents, grouped by topic (file order inside a topic).

    Stored flat for speed and memory: ``qids[i]`` owns positions ``offsets[i]:offsets[i+1]``
    of ``codes`` (docno codes from the process vocabulary) and of the float64 ``scores``.
    The docno strings themselves live once in the vocabulary; ``topics`` gives the per-topic view.
    """

    def __init__(self, qids: list[str], offsets: list[int], codes: np.ndarray, scores: np.ndarray,
                 tag: str = "run"):
        self.qids = qids
        self.codes = codes
        self.offsets = offsets
        self.scores = scores
        self.tag = tag
        self.index = {q: (offsets[i], offsets[i + 1]) for i, q in enumerate(qids)}
        self._topics: dict | None = None

    @property
    def topics(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Return ``{qid: (docnos array, scores array)}``."""
        if self._topics is None:
            self._topics = {q: (np.array(self.docnos_between(a, b)), self.scores[a:b])
                            for q, (a, b) in self.index.items()}
        return self._topics

    def docnos_between(self, a: int, b: int) -> list[str]:
        """Return the docno strings at flat positions a..b-1."""
        return VOCABULARY.decode(self.codes[a:b])

    def __repr__(self) -> str:
        return f"Run(tag={self.tag!r}, topics={len(self.qids)}, docs={len(self.codes)})"

    def to_dict(self) -> dict[str, dict[str, float]]:
        """Return ``{qid: {docno: score}}``."""
        return {q: dict(zip(self.docnos_between(a, b), self.scores[a:b].tolist()))
                for q, (a, b) in self.index.items()}


def _open_text(path: str | os.PathLike) -> str:
    path = os.fspath(path)
    with open(path, "rb") as fh:
        head = fh.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetricsInputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=path) from None


def _data_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line or line[0] == "#" or not line.strip():
            continue
        out.append((no, line))
    return out


def _fast_tokens(text: str, width: int) -> list[str] | None:
    """Split a whole file at once when every line is well formed (the common, fast case)."""
    if text.startswith("#") or "\n#" in text:  # comment lines need the line-by-line path
        return None
    tokens = text.split()
    if len(tokens) % width:
        return None
    return tokens


def _check_duplicates(qids: np.ndarray, docnos: np.ndarray, lines: list[int] | None, path: str, kind: str) -> None:
    if len(docnos) < 2:
        return
    order = np.lexsort((docnos, qids))
    sq, sd = qids[order], docnos[order]
    dup = np.nonzero((sq[1:] == sq[:-1]) & (sd[1:] == sd[:-1]))[0]
    if len(dup):
        i = order[dup[0] + 1]
        line = lines[i] if lines is not None else None
        if line is None:
            # locate the line in the fast path: count data lines up to i
            line = int(i) + 1
        raise MetricsInputError(f"duplicate docno {sd[dup[0]]!r} in topic {sq[dup[0]]!r} of the {kind}", path=path, line=line)


def _split_checked(text: str, path: str, width: int, kind: str) -> tuple[list[str], list[int] | None]:
    tokens = _fast_tokens(text, width)
    n_lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if tokens is not None and n_lines == len(tokens) // width:
        return tokens, None
    tokens, lines = [], []
    for no, line in _data_lines(text):
        parts = line.split()
        if len(parts) != width:
            raise MetricsInputError(f"expected {width} whitespace-separated fields in a {kind} line, found {len(parts)}",
                                    path=path, line=no)
        tokens.extend(parts)
        lines.append(no)
    return tokens, lines


def read_run(path: str | os.PathLike, *, tag: str | None = None) -> Run:
    """Read a TREC run file ``qid Q0 docno rank score tag`` (plain or .gz).

    Raises MetricsInputError naming file and line for a wrong field count, a non-numeric
    score, or a docno repeated within a topic.
    """
    spath = os.fspath(path)
    return _run_from_text(_open_text(spath), path=spath, tag=tag)


def _run_from_text(text: str, *, path: str, tag: str | None) -> Run:
    tokens, lines = _split_checked(text, path, 6, "run")
    qids = tokens[0::6]
    docnos = tokens[2::6]
    try:
        scores = np.array(tokens[4::6], dtype=np.float64)
    except ValueError:
        for i, s in enumerate(tokens[4::6]):
            try:
                float(s)
            except ValueError:
                line = lines[i] if lines is not None else i + 1
                raise MetricsInputError(f"score {s!r} is not a number", path=path, line=line) from None
        raise
    if tag is None:
        tag = tokens[5] if tokens else os.path.basename(path)
    return _build_run(qids, docnos, scores, tag=tag, path=path, lines=lines)


def _build_run(qids: list[str], docnos: list[str], scores: np.ndarray, *, tag: str, path: str,
               lines: list[int] | None) -> Run:
    n = len(qids)
    bounds = [0, *(i for i in range(1, n) if qids[i] != qids[i - 1]), n] if n else [0]
    order = None
    if len({qids[b] for b in bounds[:-1]}) != len(bounds) - 1:  # a topic's lines are not contiguous
        order = sorted(range(n), key=qids.__getitem__)
        qids = [qids[i] for i in order]
        docnos = [docnos[i] for i in order]
        scores = scores[np.array(order, dtype=np.int64)]
        bounds = [0, *(i for i in range(1, n) if qids[i] != qids[i - 1]), n]
    codes = VOCABULARY.encode(docnos)
    if n > 1:
        topic = np.repeat(np.arange(len(bounds) - 1, dtype=np.int64), np.diff(bounds))
        key = (topic << 32) | codes
        srt = np.sort(key)
        dup = np.nonzero(srt[1:] == srt[:-1])[0]
        if len(dup):
            j = int(np.nonzero(key == srt[dup[0]])[0][1])
            k = order[j] if order is not None else j
            line = lines[k] if lines is not None else k + 1
            raise MetricsInputError(f"duplicate docno {docnos[j]!r} in topic {qids[j]!r} of the run",
                                    path=path, line=line)
    return Run([qids[b] for b in bounds[:-1]], bounds, codes, scores, tag=tag)


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a qrels file ``qid iter docno rel`` (plain or .gz); ``iter`` is ignored.

    Grades must be integers (negative grades are kept: trec_eval treats them as
    judged-but-unusable, neither relevant nor non-relevant).
    """
    spath = os.fspath(path)
    text = _open_text(spath)
    tokens, lines = _split_checked(text, spath, 4, "qrels")
    qids = np.array(tokens[0::4])
    docnos = np.array(tokens[2::4])
    try:
        grades = np.array(tokens[3::4], dtype=np.int64)
    except ValueError:
        for i, s in enumerate(tokens[3::4]):
            try:
                int(s)
            except ValueError:
                line = lines[i] if lines is not None else i + 1
                raise MetricsInputError(f"relevance {s!r} is not an integer", path=spath,
                                        line=line) from None
        raise
    _check_duplicates(qids, docnos, lines, spath, "qrels")
    return Qrels(topics=_group(qids, docnos, grades, sort_docnos=True), name=os.path.basename(spath))


def _group(qids: np.ndarray, docnos: np.ndarray, values: np.ndarray, *, sort_docnos: bool = False) -> dict:
    if len(qids) == 0:
        return {}
    if sort_docnos:
        order = np.lexsort((docnos, qids))
    else:
        order = np.argsort(qids, kind="stable")
    q, d, v = qids[order], docnos[order], values[order]
    cuts = np.nonzero(q[1:] != q[:-1])[0] + 1
    starts = np.concatenate(([0], cuts))
    ends = np.concatenate((cuts, [len(q)]))
    return {str(q[s]): (d[s:e], v[s:e]) for s, e in zip(starts.tolist(), ends.tolist())}


def qrels_from_dict(data: Mapping[str, Mapping[str, int]], *, name: str = "qrels") -> Qrels:
    """Build Qrels from ``{qid: {docno: grade}}`` (the pytrec_eval layout).

    >>> qrels_from_dict({"q1": {"d2": 1, "d1": 0}}).to_dict()
    {'q1': {'d1': 0, 'd2': 1}}
    """
    topics = {}
    for q, docs in data.items():
        if not docs:
            continue
        d = np.array(list(docs.keys()))
        g = np.array([int(x) for x in docs.values()], dtype=np.int64)
        order = np.argsort(d, kind="stable")
        topics[str(q)] = (d[order], g[order])
    return Qrels(topics=topics, name=name)


def run_from_dict(data: Mapping[str, Mapping[str, float]], *, tag: str = "run") -> Run:
    """Build a Run from ``{qid: {docno: score}}``.

    >>> run_from_dict({"q1": {"a": 2.0, "b": 1.0}}).topics["q1"][1].tolist()
    [2.0, 1.0]
    """
    qids, docnos, scores = [], [], []
    for q, docs in data.items():
        for d, sc in docs.items():
            qids.append(str(q))
            docnos.append(str(d))
            scores.append(float(sc))
    return _build_run(qids, docnos, np.array(scores, dtype=np.float64), tag=tag, path="<dict>", lines=None)


def run_from_arrays(qids: Iterable, docnos: Iterable, scores: Iterable, *, tag: str = "run") -> Run:
    """Build a Run from three parallel sequences; a docno repeated within a topic raises."""
    q = [str(x) for x in qids]
    d = [str(x) for x in docnos]
    s = np.asarray(list(scores), dtype=np.float64)
    if not (len(q) == len(d) == len(s)):
        raise MetricsInputError("qids, docnos and scores differ in length")
    return _build_run(q, d, s, tag=tag, path="<arrays>", lines=None)
