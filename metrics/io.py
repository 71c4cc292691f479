"""Read TREC run and qrels files (plain or gzip) into compact numpy-backed objects.

trec_eval 10 conventions: blank lines and lines whose first character is ``#`` are
skipped; a ``#`` anywhere else (e.g. inside an MS MARCO v2.1 docno) is data. The rank
column of a run is ignored. A docno repeated within one topic is an error.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "MetricsInputError",
    "Qrels",
    "Run",
    "RunColumns",
    "qrels_from_dict",
    "read_qrels",
    "read_run",
    "run_from_dict",
    "run_from_arrays",
    "run_columns",
]


_MIX_A = np.uint64(0x9E3779B97F4A7C15)
_MIX_B = np.uint64(0xBF58476D1CE4E5B9)
_MIX_C = np.uint64(0x94D049BB133111EB)
# _KEEP[m] keeps the first m bytes of a uint64 word, whatever the machine's byte order.
_KEEP = np.array([[0xFF] * m + [0] * (8 - m) for m in range(9)], dtype=np.uint8).view(np.uint64).ravel()


def _row_hashes(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Return a 64-bit hash of each row's first ``lengths[i]`` bytes (rows of zero-padded words).

    Words past a row's end are skipped, so the hash does not depend on the matrix width.
    """
    n_words = (lengths + 7) // 8
    h = lengths.astype(np.uint64) * _MIX_A
    for j in range(words.shape[1]):
        x = (h ^ words[:, j]) * _MIX_B
        x ^= x >> np.uint64(31)
        h = np.where(n_words > j, x, h)
    h ^= h >> np.uint64(30)  # splitmix64 finaliser: the table indexes by the low bits
    h *= _MIX_B
    h ^= h >> np.uint64(27)
    h *= _MIX_C
    return h ^ (h >> np.uint64(31))


row_hashes = _row_hashes  # the run importer screens (topic, docno) repeats with it


def _grown(arr: np.ndarray, size: int) -> np.ndarray:
    """Return ``arr`` itself if it holds ``size`` items, else a zero-extended copy at least twice as large."""
    if len(arr) >= size:
        return arr
    out = np.zeros(max(size, 2 * len(arr)), dtype=arr.dtype)
    out[:len(arr)] = arr
    return out


def _decode_rows(words: np.ndarray, lengths: np.ndarray) -> list[str]:
    """Return the strings of zero-padded UTF-8 rows, decoded in one pass (one join, one split)."""
    if not len(words):
        return []
    raw = words.view(f"S{words.shape[1] * 8}").ravel().tolist()  # bytes with the zero padding stripped
    if sum(map(len, raw)) == int(lengths.sum()):  # no docno ends in a NUL byte: the join is exact
        return b"\n".join(raw).decode().split("\n")
    return [w.tobytes()[:n].decode() for w, n in zip(words, lengths.tolist())]


# A grown table has at least this many slots (2 MB): a qrels file of 50,000 docnos and a run
# of 100,000 more then fit without a second rebuild.
_GROWN_SLOTS = 1 << 19


class _Vocabulary:
    """Map docnos to stable integer codes for the life of the process.

    Runs and qrels store codes beside the docno strings, so evaluation compares integers in
    numpy instead of hashing strings per document. A code indexes ``names`` (the docno
    string, decoded when first asked for); the docno's UTF-8 bytes (as zero-padded 8-byte
    words) and length sit in numpy arrays, and an open-addressing table (linear probing, at
    most half full) maps 64-bit hashes of the bytes to codes, so a whole file's docnos are
    looked up in a few vectorised passes. A lookup compares the bytes, so two docnos never
    share a code; the hashes themselves are not kept (a table rebuild recomputes them).
    Memory grows with the distinct docnos the process has read (about 50 bytes plus the
    docno's length rounded up to 8 each, and its string once decoded); codes are never reused.
    """

    def __init__(self) -> None:
        self._names: list[str | None] = []  # None: not decoded yet (see _add)
        self._unnamed = 0
        self._lengths = np.zeros(1024, dtype=np.int32)  # per code; capacities grow by doubling
        self._offsets = np.zeros(1024, dtype=np.int64)  # first word of the code's bytes in _store
        self._store = np.zeros(1 << 13, dtype=np.uint64)
        self._used = 0  # words of _store in use
        self._slots = np.zeros(1 << 12, dtype=np.int32)  # code + 1; 0 is an empty slot
        self._mark = np.zeros(1024, dtype=np.int32)  # scratch for repeated()
        self._lock = threading.Lock()

    def encode(self, docnos: Sequence[str]) -> np.ndarray:
        """Return the codes of ``docnos``, assigning new codes to docnos never seen before."""
        if not len(docnos):
            return np.zeros(0, dtype=np.int64)
        raw = [d.encode("utf-8", "surrogatepass") for d in docnos]
        lengths = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
        width = max(8, -(-int(lengths.max()) // 8) * 8)
        words = np.array(raw, dtype=f"S{width}").view(np.uint64).reshape(len(raw), width // 8)
        return self.encode_words(words, lengths, names=lambda idx: [docnos[i] for i in idx.tolist()])

    def encode_words(self, words: np.ndarray, lengths: np.ndarray, *,
                     names: Callable[[np.ndarray], list[str]] | None = None) -> np.ndarray:
        """Return the codes of docnos given as UTF-8 bytes, one per row of zero-padded uint64 words.

        New docnos get codes in order of first appearance, as ``encode`` gives them;
        ``names(row indices)`` returns their strings (by default the bytes are decoded when a
        string is first asked for).
        """
        hashes = _row_hashes(words, lengths)
        with self._lock:  # one process-wide table; web requests may read files in threads
            codes = self._find(hashes, words, lengths)
            missing = np.flatnonzero(codes < 0)
            if len(missing):
                named = None if names is None else (lambda new: names(missing[new]))
                if len(missing) == len(codes):  # every docno new (a first file): no gathers
                    codes = self._add(hashes, words, lengths, named)
                else:
                    codes[missing] = self._add(hashes[missing], words[missing], lengths[missing], named)
        return codes

    @property
    def names(self) -> list[str]:
        """Return every docno, indexed by code."""
        if self._unnamed:
            self._name(np.arange(len(self._names)))
        return self._names  # type: ignore[return-value]  # all named now

    def decode(self, codes: np.ndarray) -> list[str]:
        """Return the docnos of ``codes``."""
        names = self._names
        out = [names[c] for c in codes.tolist()]
        if self._unnamed and None in out:
            self._name(codes)
            out = [names[c] for c in codes.tolist()]
        return out  # type: ignore[return-value]

    def _name(self, codes: np.ndarray) -> None:
        """Decode the strings of those ``codes`` that have none yet, from their stored bytes."""
        with self._lock:
            names = self._names
            todo = np.unique(np.asarray([c for c in codes.tolist() if names[c] is None], dtype=np.int64))
            if not len(todo):
                return
            lengths = self._lengths[todo].astype(np.int64)
            n_words = (lengths + 7) // 8
            width = max(int(n_words.max()), 1)
            cols = np.arange(width)
            inside = cols < n_words[:, None]
            at = np.where(inside, self._offsets[todo][:, None] + cols, 0)
            words = np.where(inside, self._store[at], np.uint64(0))  # a docno's last word is zero-padded
            for c, name in zip(todo.tolist(), _decode_rows(words, lengths)):
                names[c] = name
            self._unnamed -= len(todo)

    def repeated(self, codes: np.ndarray) -> np.ndarray:
        """Return which positions of ``codes`` hold a code that occurs there more than once."""
        positions = np.arange(len(codes))
        with self._lock:
            self._mark = _grown(self._mark, len(self._names))
            self._mark[codes] = positions  # a repeated code keeps one of its positions
            self._mark[codes[self._mark[codes] != positions]] = -1
            return self._mark[codes] < 0

    def _same(self, codes: np.ndarray, words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return whether each row holds exactly the bytes of the docno with the paired code."""
        same = self._lengths[codes] == lengths
        offsets = self._offsets[codes]
        store = self._store = _grown(self._store, self._used + words.shape[1])
        shortest = int(lengths.min(initial=0))
        for j in range(words.shape[1]):
            equal = store[offsets + j if j else offsets] == words[:, j]
            if 8 * j >= shortest:  # words past a docno's end belong to the next docno
                equal |= lengths <= 8 * j
            same &= equal
        return same

    def _find(self, hashes: np.ndarray, words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Return the code of each row's docno, or -1 where the docno has none yet.

        Probes in vectorised passes over the rows still looking. The first pass takes every
        row whose slot is filled as it is, without gathering rows, and compares the bytes of
        all of them (a row whose docno is not its slot's fails that): known docnos
        mostly sit in their first slot, so that pass usually settles nearly every row.
        """
        n = len(hashes)
        codes = np.full(n, -1, dtype=np.int64)
        slots = self._slots
        mask = len(slots) - 1
        rows: np.ndarray | None = None  # the rows still looking; None: every row, in order
        pos = (hashes & np.uint64(mask)).astype(np.int64)
        while len(pos):
            held = slots[pos]
            filled = np.flatnonzero(held)  # a row at an empty slot has no code
            if not len(filled):
                break
            if len(filled) < len(pos):
                rows = filled if rows is None else rows[filled]
                held, pos = held[filled], pos[filled]
            cand = held.astype(np.int64) - 1
            if rows is None:  # the bytes decide; the hashes would only filter
                hit = self._same(cand, words, lengths)
            else:  # the few rows past their first slot
                hit = self._same(cand, words[rows], lengths[rows])
            if hit.all():
                codes[slice(None) if rows is None else rows] = cand
                break
            found = np.flatnonzero(hit)
            codes[found if rows is None else rows[found]] = cand[found]
            miss = np.flatnonzero(~hit)
            rows = miss if rows is None else rows[miss]
            pos = (pos[miss] + 1) & mask
        return codes

    def _add(self, hashes: np.ndarray, words: np.ndarray, lengths: np.ndarray,
             names: Callable[[np.ndarray], list[str]] | None) -> np.ndarray:
        """Assign codes to docnos absent from the vocabulary (a docno may repeat); return them.

        The rows go straight into the hash table, which also finds the repeats among them
        (no sort): see ``_insert``. ``names(row indices)`` gives the new docnos' strings; None
        leaves them to be decoded from the stored bytes when first asked for (most runs never
        need the strings).
        """
        n = len(hashes)
        base = len(self._names)
        if 2 * (base + n) > len(self._slots):  # room for every row, were they all distinct
            size = len(self._slots)
            while 3 * (base + n) > size or size < _GROWN_SLOTS:  # at most a third full after growing
                size *= 2
            self._slots = np.zeros(size, dtype=np.int32)
            for start in range(0, base, 1 << 16):  # a few probing passes each
                codes = np.arange(start, min(start + (1 << 16), base))
                self._place(codes, self._stored_hashes(codes))
        group, slot_of = self._insert(hashes, words, lengths)
        rows = np.arange(n)
        heads = np.flatnonzero(group == rows)  # one row per distinct docno: the one that took a slot
        if len(heads) == n:  # no repeats (the usual run): the table's row order is first appearance
            new, firsts = rows, rows
        else:
            # a docno's code follows its first row, as a dict would give it, whichever row took the slot
            first = np.full(n, n, dtype=np.int64)
            np.minimum.at(first, group, rows)
            firsts = first[heads]
            is_first = np.zeros(n, dtype=bool)
            is_first[firsts] = True
            new = np.flatnonzero(is_first)
        end = base + len(new)
        if len(new) == n:
            codes_of_heads = base + rows
            codes = codes_of_heads
        else:
            rank = np.empty(n, dtype=np.int64)
            rank[new] = np.arange(base, end)
            codes_of_heads = rank[firsts]
            head_code = np.empty(n, dtype=np.int64)
            head_code[heads] = codes_of_heads
            codes = head_code[group]
        # the slots held -(row + 1) so far
        self._slots[slot_of if len(heads) == n else slot_of[heads]] = (codes_of_heads + 1).astype(np.int32)
        if names is None:
            self._names.extend([None] * len(new))
            self._unnamed += len(new)
        else:
            self._names.extend(names(new))
        if len(new) < n:
            words, lengths = words[new], lengths[new]
        n_words = (lengths + 7) // 8
        self._lengths, self._offsets = _grown(self._lengths, end), _grown(self._offsets, end)
        self._lengths[base:end] = lengths
        width = words.shape[1]
        if width * len(new) <= int(n_words.sum()) * 5 // 4:  # rows of nearly equal length: store them whole
            data = words.ravel()
            self._offsets[base:end] = np.arange(self._used, self._used + len(data), width)
        else:  # keep only each docno's own words
            data = words.ravel()[(np.arange(width) < n_words[:, None]).ravel()]
            self._offsets[base:end] = self._used + np.cumsum(n_words) - n_words
        self._store = _grown(self._store, self._used + len(data))
        self._store[self._used:self._used + len(data)] = data
        self._used += len(data)
        return codes

    def _insert(self, hashes: np.ndarray, words: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Put rows of docnos unknown to the table into free slots, one slot per distinct docno.

        Return, per row, the row whose slot holds its docno (itself if it took one), and per
        row that took a slot, that slot. A slot taken here holds -(row + 1) until ``_add``
        writes the code. Rows probe in vectorised passes: rows at free slots claim them (of
        rows contesting a slot one write remains: that row wins it); then a row at a slot
        taken here by the same bytes joins that row, and any other row moves on. Rows of one
        docno share a hash, so they probe in step and meet at the slot one of them took.
        """
        slots = self._slots
        mask = len(slots) - 1
        n = len(hashes)
        group = np.arange(n)  # until shown otherwise, each row heads its own docno
        todo = group
        pos = slot_of = (hashes & np.uint64(mask)).astype(np.int64)
        while len(todo):
            held = slots[pos]
            mine = -(todo + 1).astype(np.int32)
            free = np.flatnonzero(held == 0)
            if len(free) == len(todo):  # the usual first pass of new docnos: every slot free
                slots[pos] = mine
                held = slots[pos]
            elif len(free):
                at = pos[free]
                slots[at] = mine[free]
                held[free] = slots[at]
            lost = np.flatnonzero(held != mine)
            if todo is not group:  # rows that moved on and now took a slot
                won = np.ones(len(todo), dtype=bool)
                won[lost] = False
                slot_of[todo[won]] = pos[won]
            elif len(lost):
                slot_of = slot_of.copy()  # pos of the first pass, now to be updated
            if not len(lost):
                break
            rows, where, owner = todo[lost], pos[lost], held[lost].astype(np.int64)
            moving = np.ones(len(rows), dtype=bool)
            mate = np.flatnonzero(owner < 0)  # a slot taken in this call; codes (> 0) are other docnos
            if len(mate):
                r, o = rows[mate], -owner[mate] - 1
                same = (hashes[r] == hashes[o]) & (lengths[r] == lengths[o])
                for j in range(words.shape[1]):  # rows are zero-padded past their length
                    same &= words[r, j] == words[o, j]
                group[r[same]] = o[same]
                moving[mate[same]] = False
            todo, pos = rows[moving], (where[moving] + 1) & mask
        return group, slot_of

    def _stored_hashes(self, codes: np.ndarray) -> np.ndarray:
        """Return the hashes of the docnos of ``codes``, from their stored bytes (hashes are not kept: 8 bytes a docno)."""
        lengths = self._lengths[codes].astype(np.int64)
        n_words = (lengths + 7) // 8
        cols = np.arange(max(int(n_words.max(initial=0)), 1))
        inside = cols < n_words[:, None]
        at = np.where(inside, self._offsets[codes][:, None] + cols, 0)
        return _row_hashes(np.where(inside, self._store[at], np.uint64(0)), lengths)

    def _place(self, codes: np.ndarray, hashes: np.ndarray) -> None:
        """Put each code into the first free slot from its hash on (linear probing)."""
        mask = len(self._slots) - 1
        pos = (hashes & np.uint64(mask)).astype(np.int64)
        slots = self._slots
        while len(codes):
            free = np.flatnonzero(slots[pos] == 0)
            at, mine = pos[free], codes[free] + 1
            slots[at] = mine  # codes contesting a slot: one write remains, that code wins it
            won = free[slots[at] == mine]
            rest = np.ones(len(codes), dtype=bool)
            rest[won] = False
            codes, pos = codes[rest], (pos[rest] + 1) & mask


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
        self._topics: _Topics | None = None

    @property
    def topics(self) -> Mapping[str, tuple[np.ndarray, np.ndarray]]:
        """Return ``{qid: (docnos array, scores array)}``, each topic's docnos decoded on first access."""
        if self._topics is None:
            self._topics = _Topics(self.index, self.codes, self.scores)
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


class _Topics(Mapping):
    """Give a run's per-topic view; ``qid in topics`` costs no decoding (evaluation asks it per topic)."""

    def __init__(self, index: dict[str, tuple[int, int]], codes: np.ndarray, scores: np.ndarray):
        self._index = index
        self._codes = codes
        self._scores = scores
        self._decoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __getitem__(self, qid: str) -> tuple[np.ndarray, np.ndarray]:
        topic = self._decoded.get(qid)
        if topic is None:
            a, b = self._index[qid]
            topic = self._decoded[qid] = (np.array(VOCABULARY.decode(self._codes[a:b])), self._scores[a:b])
        return topic

    def __contains__(self, qid: object) -> bool:
        return qid in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


# What C's strtod (atof) reads as a whole token: decimal with optional exponent, hex, inf, nan;
# ASCII only. Python's float() also takes "1_000", non-ASCII digits and surrounding spaces,
# which atof stops at or never sees; such a score is refused instead of read differently.
_C_FLOAT = (r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
            r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
            r"|(?i:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))")
_ASCII_SPACE = r"[ \t\n\v\f\r]+"  # C isspace(); str.split() also splits at NBSP and others
_C_INT = r"[+-]?[0-9]+"


@functools.cache
def _regex(pattern: str) -> re.Pattern:
    """Compile a pattern on first use (the regular files' fast path needs none of them)."""
    return re.compile(pattern)
_INT64 = 2**63 - 1


def c_float(text: str) -> float | None:
    """Return the double C's atof gives for a whole token, or None if atof would stop early or overflow.

    >>> c_float("2.5e-3"), c_float("0x1p3"), c_float("1_000"), c_float("\u0661"), c_float("1e999")
    (0.0025, 8.0, None, None, None)
    """
    if not _regex(_C_FLOAT).fullmatch(text):
        return None
    low = text.lower().lstrip("+-")
    if low.startswith("0x"):
        sign = -1.0 if text.startswith("-") else 1.0
        mant = low[2:]
        value = sign * float.fromhex("0x" + (mant if "p" in mant else mant + "p0"))
    else:
        value = float(text.split("(")[0])
    if value in (float("inf"), float("-inf")) and "inf" not in low:
        return None  # overflow: atof returns HUGE_VAL with ERANGE
    return value


def c_int(text: str) -> int | None:
    """Return the integer of a whole token of optional sign and ASCII digits, None otherwise or beyond 64 bits.

    >>> c_int("-2"), c_int("1.5"), c_int("\u0661"), c_int("99999999999999999999")
    (-2, None, None, None)
    """
    if not _regex(_C_INT).fullmatch(text):
        return None
    value = int(text)
    return value if -_INT64 - 1 <= value <= _INT64 else None


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        head = fh.read(2)
    if head == b"\x1f\x8b":
        import gzip  # here: most files are plain, and the command line's start-up counts

        with gzip.open(path, "rb") as fh:
            return fh.read()
    with open(path, "rb") as fh:
        return fh.read()


_SPARE = 16  # zero bytes after the data of a buffer from _read_padded or _padded


def _read_padded(path: str) -> tuple[bytearray, int]:
    """Return a file's bytes (unzipped if gzip) followed by ``_SPARE`` zero bytes, and the data's length.

    A plain file is read straight into a buffer with room for the padding, so the fast
    readers need no padded copy of it (a fresh copy of a 4 MB run costs its page faults).
    """
    with open(path, "rb", buffering=0) as fh:
        size = os.fstat(fh.fileno()).st_size
        buf = bytearray(size + _SPARE)
        with memoryview(buf) as view:
            got = 0
            while got < size and (n := fh.readinto(view[got:size])):
                got += n
        more = fh.readall()  # a pipe (its size is 0), or a file that grew as it was read
    if got < size or more:
        raw = bytes(buf[:got]) + more
    elif buf[:2] == b"\x1f\x8b":
        raw = bytes(buf[:size])
    else:
        return buf, size
    if raw[:2] == b"\x1f\x8b":
        import gzip  # here: most files are plain, and the command line's start-up counts
        from io import BytesIO

        with gzip.GzipFile(fileobj=BytesIO(raw)) as fh:  # gzip.open's reader, on the bytes at hand
            raw = fh.read()
    return _padded(raw)


def _padded(raw: bytes) -> tuple[bytearray, int]:
    """Return a copy of ``raw`` followed by ``_SPARE`` zero bytes, and the length of ``raw``."""
    buf = bytearray(len(raw) + _SPARE)
    buf[:len(raw)] = raw
    return buf, len(raw)


def _decoded(raw: bytes | bytearray | memoryview, path: str) -> str:
    try:
        return str(raw, "utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise MetricsInputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=path) from None


def _open_text(path: str | os.PathLike) -> str:
    path = os.fspath(path)
    return _decoded(_read_bytes(path), path)


def _data_lines(text: str) -> list[tuple[int, str]]:
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line or line[0] == "#" or not line.strip():
            continue
        out.append((no, line))
    return out


def _fast_tokens(text: str, width: int) -> list[str] | None:
    """Split a whole file at once when every line is well formed (the common, fast case)."""
    if text.startswith("#") or "\n#" in text or not text.isascii():  # comment lines need the line-by-line path
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
        raise MetricsInputError(f"duplicate docno {str(sd[dup[0]])!r} in topic {str(sq[dup[0]])!r} of the {kind}",
                                path=path, line=line)


def _split_checked(text: str, path: str, width: int, kind: str) -> tuple[list[str], list[int] | None]:
    """Return the first ``width`` fields of every data line, and the lines' numbers (None: every line is data).

    As trec_eval 10.0: a run line needs at least six fields and its trailing fields are
    ignored (the test suite's ``results.trunc`` has them); a qrels line needs exactly four,
    and a blank qrels line is malformed (its run reader skips blank lines, its qrels reader does not).
    """
    tokens = _fast_tokens(text, width)
    n_lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if tokens is not None and n_lines == len(tokens) // width:
        return tokens, None
    tokens, lines = [], []
    strict = kind == "qrels"
    rows = text.split("\n")  # C ends lines at "\n" only; splitlines() also at "\v", "\x1c" ...
    if rows[-1] == "":
        rows.pop()
    for no, line in enumerate(rows, 1):
        if line[:1] == "#":
            continue
        parts = line.split() if line.isascii() else _regex(_ASCII_SPACE).split(line.strip(" \t\n\v\f\r"))
        if parts == [""]:
            parts = []
        if not parts and not strict:
            continue
        if len(parts) != width and (strict or len(parts) < width):
            need = f"exactly {width}" if strict else f"at least {width}"
            raise MetricsInputError(f"expected {need} whitespace-separated fields in a {kind} line, found {len(parts)}",
                                    path=path, line=no)
        tokens.extend(parts[:width])
        lines.append(no)
    return tokens, lines


def read_run(path: str | os.PathLike, *, tag: str | None = None) -> Run:
    """Read a TREC run file ``qid Q0 docno rank score tag`` (plain or .gz).

    Raises MetricsInputError naming file and line for a wrong field count, a non-numeric
    score, or a docno repeated within a topic.
    """
    spath = os.fspath(path)
    raw, size = _read_padded(spath)
    run = _vector_run(raw, path=spath, tag=tag, size=size)
    if run is None:
        with memoryview(raw) as view:
            run = _run_from_text(_decoded(view[:size], spath), path=spath, tag=tag)
    return run


def _run_from_text(text: str, *, path: str, tag: str | None) -> Run:
    tokens, lines = _split_checked(text, path, 6, "run")
    qids = tokens[0::6]
    docnos = tokens[2::6]
    scores = _scores(tokens[4::6], lines, path)
    if tag is None:
        tag = tokens[-1] if tokens else os.path.basename(path)  # trec_eval keeps the last line's tag
    return _build_run(qids, docnos, scores, tag=tag, path=path, lines=lines)


def _joined_match(pattern: str, texts: list[str]) -> bool:
    """Return whether every text matches ``pattern`` whole, in one regex pass over the joined texts."""
    if not texts:
        return True
    return _regex(f"(?:(?:{pattern})\n)*").fullmatch("\n".join(texts) + "\n") is not None


def _scores(texts: list[str], lines: list[int] | None, path: str) -> np.ndarray:
    """Parse run scores as C's atof reads whole tokens; refuse any other token naming its line."""
    if _joined_match(_C_FLOAT, texts) and not any(c in t for t in texts for c in "xX("):
        scores = np.array(texts, dtype=np.float64)
        if not np.isinf(scores).any():  # else an overflow, or an inf that c_float tells apart
            return scores
    out = np.empty(len(texts), dtype=np.float64)
    for i, t in enumerate(texts):
        v = c_float(t)
        if v is None:
            line = lines[i] if lines is not None else i + 1
            raise MetricsInputError(f"score {t!r} is not a number as trec_eval reads one (C atof: ASCII digits, "
                                    "optional sign, point and exponent, no '_' or trailing text, no overflow)",
                                    path=path, line=line)
        out[i] = v
    return out


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
    j = _first_duplicate(codes, bounds)
    if j is not None:
        k = order[j] if order is not None else j
        line = lines[k] if lines is not None else k + 1
        raise MetricsInputError(f"duplicate docno {docnos[j]!r} in topic {qids[j]!r} of the run",
                                path=path, line=line)
    return Run([qids[b] for b in bounds[:-1]], bounds, codes, scores, tag=tag)


def _first_duplicate(codes: np.ndarray, bounds: list[int]) -> int | None:
    """Return the flat position of the second copy of the docno first repeated within a topic (by topic, then code)."""
    if len(codes) < 2:
        return None
    rows = np.flatnonzero(VOCABULARY.repeated(codes))  # usually few: sort only those
    if not len(rows):
        return None
    topic = np.repeat(np.arange(len(bounds) - 1, dtype=np.int64), np.diff(bounds))
    key = (topic[rows] << 32) | codes[rows]
    srt = np.sort(key)
    dup = np.flatnonzero(srt[1:] == srt[:-1])
    if not len(dup):
        return None
    return int(rows[np.flatnonzero(key == srt[dup[0]])[1]])


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a qrels file ``qid iter docno rel`` (plain or .gz); ``iter`` is ignored.

    Grades must be integers (negative grades are kept: trec_eval treats them as
    judged-but-unusable, neither relevant nor non-relevant).
    """
    spath = os.fspath(path)
    raw, size = _read_padded(spath)
    qrels = _vector_qrels(raw, name=os.path.basename(spath), size=size)
    if qrels is None:
        with memoryview(raw) as view:
            qrels = _qrels_from_text(_decoded(view[:size], spath), path=spath)
    return qrels


def _qrels_from_text(text: str, *, path: str) -> Qrels:
    tokens, lines = _split_checked(text, path, 4, "qrels")
    if not tokens:
        raise MetricsInputError("no judgments (an empty qrels file; trec_eval refuses it too)", path=path)
    qids = np.array(tokens[0::4])
    docnos = np.array(tokens[2::4])
    texts = tokens[3::4]
    if _joined_match(_C_INT, texts) and max(map(len, texts)) <= 18:
        grades = np.array(texts, dtype=np.int64)
    else:
        grades = np.empty(len(texts), dtype=np.int64)
        for i, t in enumerate(texts):
            v = c_int(t)
            if v is None:
                line = lines[i] if lines is not None else i + 1
                raise MetricsInputError(f"relevance {t!r} is not an integer (ASCII digits with an optional sign, "
                                        "within 64 bits)", path=path, line=line)
            grades[i] = v
    _check_duplicates(qids, docnos, lines, path, "qrels")
    return Qrels(topics=_group(qids, docnos, grades, sort_docnos=True), name=os.path.basename(path))


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


# The vectorised readers below take the common, regular file: ASCII only, every line exactly
# ``width`` non-empty fields separated by one space or tab, "\n" line ends, no comment lines.
# For anything else, or any bad value, they return None and the file goes through the
# line-by-line reader, the one that reports problems, so errors read the same either way.

_POW10 = np.array([float(f"1e{k}") for k in range(16)])  # exact: 10**k is a double up to k = 22


def _vector_lines(raw: bytes | bytearray, width: int,
                  size: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Return (bytes, field ends (lines × width), line starts) of a regular file, else None.

    ``raw`` is the file's bytes, or with ``size`` a buffer from ``_read_padded`` holding
    ``size`` bytes of data and then zeros. The bytes returned are followed by at least 8 zero
    bytes, so that a word read from any field start stays inside them.
    """
    if not raw.isascii():  # (the padding is zeros: ASCII)
        return None
    if size is None:
        padded, size = _padded(raw)
    elif isinstance(raw, bytearray):
        padded = raw
    else:
        raise TypeError("with a size, raw is the bytearray _read_padded gives")
    if not size:
        return None
    if padded[size - 1] != 0x0A:
        padded[size] = 0x0A  # the spare room is ours
        size += 1
    buf = np.frombuffer(padded, dtype=np.uint8)
    # Every byte up to space is a field end; the whole file is checked through them alone
    # (bytes of the size of the file cost their page faults in a one-run process).
    flat_ends = _positions_up_to_space(buf[:size])
    if len(flat_ends) % width:
        return None
    n_lines = len(flat_ends) // width
    kinds = buf[flat_ends]
    if not (kinds[width - 1::width] == 0x0A).all() or np.count_nonzero(kinds == 0x0A) != n_lines:
        return None  # a line of another field count
    if np.count_nonzero(kinds == 0x20) + np.count_nonzero(kinds == 0x09) != n_lines * (width - 1):
        return None  # "\r", "\f", another control character, or one separating fields
    after = buf[1:]  # the byte after each field end: no empty field, no "#" starting a line (a comment)
    if flat_ends[0] == 0 or buf[0] == 0x23 or (after[flat_ends[:-1]] <= 0x20).any():
        return None
    ends = flat_ends.reshape(n_lines, width)
    if (after[ends[:-1, -1]] == 0x23).any():
        return None
    starts = np.empty(n_lines, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1, -1] + 1
    return buf, ends, starts


_CHUNK = 1 << 18


def _positions_up_to_space(data: np.ndarray) -> np.ndarray:
    """Return ``np.flatnonzero(data <= 0x20)``, finding them chunk by chunk in one small scratch array.

    One comparison over the whole file would take a boolean array of its size: fresh memory,
    whose page faults cost more than the comparison in a one-run process.
    """
    if len(data) <= _CHUNK:
        return np.flatnonzero(data <= 0x20)
    scratch = np.empty(_CHUNK, dtype=bool)
    parts = []
    for start in range(0, len(data), _CHUNK):
        chunk = data[start:start + _CHUNK]
        found = np.flatnonzero(np.less_equal(chunk, 0x20, out=scratch[:len(chunk)]))
        found += start
        parts.append(found)
    return np.concatenate(parts)


def _field(buf: np.ndarray, begin: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return each field's bytes as a row of zero-padded uint64 words, and the fields' lengths.

    Word j of every field is read in one gather through an unaligned uint64 view of the
    bytes (``buf`` ends in at least 8 zero bytes), then cut to the field's length.
    """
    lengths = end - begin
    n_words = max(-(-int(lengths.max(initial=1)) // 8), 1)
    shortest = int(lengths.min(initial=0))
    whole = np.ndarray((len(buf) - 7,), dtype=np.uint64, buffer=buf, strides=(1,))
    out = np.empty((len(begin), n_words), dtype=np.uint64)
    last = len(whole) - 1
    for j in range(n_words):
        at = begin
        if j:
            at = begin + 8 * j
            if int(at.max(initial=0)) > last:  # a field shorter than 8j bytes reads what follows: masked below
                np.minimum(at, last, out=at)
        if 8 * (j + 1) <= shortest:  # every field fills this word
            out[:, j] = whole[at]
        else:
            np.bitwise_and(whole[at], _KEEP[np.clip(lengths - 8 * j, 0, 8)], out=out[:, j])
    return out, lengths


def _ascii_unicode(strings: np.ndarray, width: int) -> np.ndarray:
    """Return an ASCII bytes array (``S<n>``, n >= width) as a str array ``U<width>``: each byte widened to a code point.

    What ``strings.astype(f"U{width}")`` gives, several times faster (numpy decodes item by item).
    """
    rows = np.ascontiguousarray(strings).view(np.uint8).reshape(len(strings), strings.dtype.itemsize)
    return rows[:, :width].astype(np.uint32).view(f"U{width}").ravel()


def _big_endian(words: np.ndarray) -> np.ndarray:
    """Return zero-padded byte words as native integers that order as the bytes do (most significant byte first)."""
    return words.view(">u8").astype(np.uint64)


def _strings(words: np.ndarray) -> np.ndarray:
    """View zero-padded words as a 1-d bytes array (``S<width>``)."""
    return words.view(f"S{words.shape[1] * 8}").ravel()


def _digits(words: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the bytes column by column, their digit values, which are digits, digits per row, and signs."""
    # columns past the longest field hold only padding: no digit, point or sign, so leave them out
    cols = np.ascontiguousarray(words.view(np.uint8).T[:max(int(lengths.max(initial=1)), 1)])
    values = cols - np.uint8(0x30)  # padding and other bytes wrap to >= 10
    is_digit = values < 10
    count = np.uint8 if len(cols) < 256 else np.int64  # small counts add up fastest as bytes
    n_digits = np.add.reduce(is_digit.view(np.uint8), axis=0, dtype=count).astype(np.int64)
    signed = (cols[0] == 0x2D) | (cols[0] == 0x2B)
    return cols, values, is_digit, n_digits, signed


def _horner(values: np.ndarray, is_digit: np.ndarray, dtype: type) -> np.ndarray:
    """Return the number each row's digits spell (columns × rows input), skipping other bytes."""
    out: np.ndarray = np.zeros(values.shape[1], dtype=dtype)
    step = np.empty_like(out)
    for j in range(len(values)):
        np.multiply(out, 10, out=step)
        np.add(step, values[j], out=step)
        np.copyto(out, step, where=is_digit[j])
    return out


def _parse_floats(words: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Return the numbers as C's atof reads them (see ``c_float``), or None if one is not such a number.

    Plain decimals of at most 15 digits are computed in numpy, exactly: the digits form an
    integer below 2**53, 10**k is a double, and one division rounds correctly, as float()
    does. Other forms (exponents, inf, nan, long mantissas) go through c_float() one by one.
    """
    cols, values, is_digit, n_digits, signed = _digits(words, lengths)
    is_dot = (cols == 0x2E).view(np.uint8)
    count = np.uint8 if len(cols) < 256 else np.int64
    n_dots = np.add.reduce(is_dot, axis=0, dtype=count).astype(np.int64)
    dot_at = np.add.reduce(is_dot * np.arange(len(cols), dtype=count)[:, None], axis=0, dtype=count)
    plain = (n_digits + n_dots + signed == lengths) & (n_dots <= 1) & (n_digits >= 1) & (n_digits <= 15)
    decimals = np.where(plain & (n_dots == 1), lengths - 1 - dot_at, 0)
    out = _horner(values, is_digit, np.float64) / _POW10[decimals]
    np.negative(out, out=out, where=cols[0] == 0x2D)
    for i in np.flatnonzero(~plain).tolist():
        value = c_float(words[i].tobytes()[:lengths[i]].decode())
        if value is None:
            return None
        out[i] = value
    return out


def _parse_ints(words: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Return the numbers when each is an optional sign and 1 to 18 digits, else None."""
    cols, values, is_digit, n_digits, signed = _digits(words, lengths)
    if not ((n_digits + signed == lengths) & (n_digits >= 1) & (n_digits <= 18)).all():
        return None
    out = _horner(values, is_digit, np.int64)
    return np.where(cols[0] == 0x2D, -out, out)


@dataclass
class RunColumns:
    """The columns of a regular run file (see ``run_columns``), one row per line in file order.

    ``docno_words``/``docno_lengths`` hold each docno's bytes as zero-padded uint64 words
    (what the vocabulary hashes); ``docnos()`` and ``tags()`` give them as bytes arrays.
    """

    qids: np.ndarray  # S<width>
    docno_words: np.ndarray
    docno_lengths: np.ndarray
    scores: np.ndarray  # float64, as C's atof reads them
    _buf: np.ndarray = field(repr=False)
    _ends: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.qids)

    def docnos(self) -> np.ndarray:
        return _strings(self.docno_words)

    def tags(self) -> np.ndarray:
        return _strings(_field(self._buf, self._ends[:, 4] + 1, self._ends[:, 5])[0])

    def last_tag(self) -> str:
        return self._buf[self._ends[-1, 4] + 1:self._ends[-1, 5]].tobytes().decode()


def run_columns(raw: bytes | bytearray, *, size: int | None = None) -> RunColumns | None:
    """Split the bytes of a regular run file into columns without a loop over lines, else return None.

    Regular: ASCII, every line exactly six fields separated by one space or tab, "\n" line
    ends, no comment or blank lines, every score a number as C's atof reads it. The one
    fast reader of the project: ``read_run`` here and the run importer
    (``collections_app.importers.runs``) both use it, and both send anything else to their
    line-by-line readers, which name the line of each problem. ``size``: see ``_vector_lines``.
    """
    lines = _vector_lines(raw, 6, size)
    if lines is None:
        return None
    buf, ends, starts = lines
    scores = _parse_floats(*_field(buf, ends[:, 3] + 1, ends[:, 4]))
    if scores is None:
        return None
    qids = _strings(_field(buf, starts, ends[:, 0])[0])
    docnos, lengths = _field(buf, ends[:, 1] + 1, ends[:, 2])
    return RunColumns(qids, docnos, lengths, scores, buf, ends)


def _vector_run(raw: bytes | bytearray, *, path: str, tag: str | None, size: int | None = None) -> Run | None:
    """Return the Run of a regular run file without a repeated docno, else None (``size``: see ``_vector_lines``)."""
    columns = run_columns(raw, size=size)
    if columns is None:
        return None
    qids, docnos, lengths, scores = columns.qids, columns.docno_words, columns.docno_lengths, columns.scores
    if tag is None:
        tag = columns.last_tag()  # trec_eval keeps the last line's tag
    words = qids.view(np.uint64).reshape(len(qids), -1)  # the qids' zero-padded bytes: faster to compare
    bounds = np.flatnonzero((words[1:] != words[:-1]).any(axis=1)) + 1
    firsts = np.sort(qids[np.concatenate(([0], bounds))])
    if (firsts[1:] == firsts[:-1]).any():  # a topic's lines are not contiguous: group them
        order = np.argsort(qids, kind="stable")
        qids, docnos, lengths, scores = qids[order], docnos[order], lengths[order], scores[order]
        bounds = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    codes = VOCABULARY.encode_words(docnos, lengths)
    cuts = [0, *bounds.tolist(), len(qids)]
    if _first_duplicate(codes, cuts) is not None:
        return None
    return Run([q.decode() for q in qids[cuts[:-1]].tolist()], cuts, codes, scores, tag=tag)


def _vector_qrels(raw: bytes | bytearray, *, name: str, size: int | None = None) -> Qrels | None:
    """Return the Qrels of a regular qrels file without a repeated docno, else None (``size``: see ``_vector_lines``)."""
    lines = _vector_lines(raw, 4, size)
    if lines is None:
        return None
    buf, ends, starts = lines
    grades = _parse_ints(*_field(buf, ends[:, 2] + 1, ends[:, 3]))
    if grades is None:
        return None
    qid_words = _field(buf, starts, ends[:, 0])[0]
    docno_words, lengths = _field(buf, ends[:, 1] + 1, ends[:, 2])
    # Sort by qid, then docno, in byte order (code point order for ASCII): zero-padded words
    # read as big-endian integers compare as their bytes do, and integers sort fast.
    keys = [_big_endian(w) for w in (docno_words, qid_words)]
    order = np.lexsort([k[:, j] for k in keys for j in reversed(range(k.shape[1]))])
    qid_words, docno_words, lengths, grades = qid_words[order], docno_words[order], lengths[order], grades[order]
    new_topic = (qid_words[1:] != qid_words[:-1]).any(axis=1)
    if (~new_topic & (docno_words[1:] == docno_words[:-1]).all(axis=1)).any():
        return None
    qids, docnos = _strings(qid_words), _strings(docno_words)
    cuts = [0, *(np.flatnonzero(new_topic) + 1).tolist(), len(qids)]
    docnos = _ascii_unicode(docnos, int(lengths.max()))
    # Docno codes now, from the bytes at hand (evaluation looks documents up by code).
    codes = VOCABULARY.encode_words(docno_words, lengths)
    spans = [(qids[a].decode(), a, b) for a, b in zip(cuts[:-1], cuts[1:])]
    qrels = Qrels(topics={q: (docnos[a:b], grades[a:b]) for q, a, b in spans}, name=name)
    qrels._cache["codes"] = {q: (qrels.topics[q][0], codes[a:b]) for q, a, b in spans}  # codes of these docnos
    return qrels


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
