"""Open an import source (a path, an upload or a binary file) as a hashed, decompressed stream.

Gzip is recognised by its magic bytes, so a compressed file named ``run.txt`` works
too. The SHA-256 checksum covers the bytes as uploaded (compressed if they were) and
is computed while the file streams, so no second pass is needed.

A UTF-8 byte-order mark at the start of the (decompressed) text is dropped here, once for
every importer, so it never becomes part of the first qid or docno. Decompression is
bounded: a ``.gz`` whose text grows beyond ``IMPORT_MAX_GZIP_RATIO`` times the compressed
bytes read so far (after the first ``GZIP_RATIO_GRACE`` bytes), or beyond
``IMPORT_MAX_DECOMPRESSED_BYTES`` in all, is refused while reading, block by block, so a
small bomb costs one block of memory and a fraction of a second.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collections_app.importers.errors import fail

BLOCK = 4 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
GZIP_RATIO_GRACE = 32 * 1024 * 1024
GZIP_READ_AHEAD = 64 * 1024
DEFAULT_MAX_GZIP_RATIO = 100
DEFAULT_MAX_DECOMPRESSED_BYTES = 20 * 1024**3


def _limits() -> tuple[int, int]:
    """Return (max ratio, max decompressed bytes) from settings, with defaults outside Django."""
    try:
        from django.conf import settings

        return (getattr(settings, "IMPORT_MAX_GZIP_RATIO", DEFAULT_MAX_GZIP_RATIO),
                getattr(settings, "IMPORT_MAX_DECOMPRESSED_BYTES", DEFAULT_MAX_DECOMPRESSED_BYTES))
    except Exception:  # noqa: BLE001 - settings not configured (plain library use)
        return DEFAULT_MAX_GZIP_RATIO, DEFAULT_MAX_DECOMPRESSED_BYTES


def has_nul(value: Any) -> bool:
    """Return whether a JSON-like value holds a NUL character in any key or string."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(key) or has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(has_nul(item) for item in value)
    return False


def text_problem(value: str, label: str) -> str | None:
    """Say why a text value cannot be stored (PostgreSQL refuses NUL in text), or return None."""
    if "\x00" in value:
        return f"{label} contains a NUL character, which the database cannot store"
    return None


class _HashingReader(io.RawIOBase):
    """Pass bytes through from a raw file while hashing them and counting how many went by."""

    def __init__(self, raw: Any, prefix: bytes = b"") -> None:
        self.raw = raw
        self.prefix = prefix
        self.sha = hashlib.sha256()
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.prefix:
            data, self.prefix = self.prefix[: len(buffer)], self.prefix[len(buffer):]
        else:
            data = self.raw.read(len(buffer))
        if not data:
            return 0
        buffer[: len(data)] = data
        self.sha.update(data)
        self.consumed += len(data)
        return len(data)


class Source:
    """A decompressed byte stream with the user's file name, its size and a running checksum."""

    def __init__(self, source: Any) -> None:
        self._owned = None
        if isinstance(source, (str, os.PathLike)):
            path = Path(source)
            self.name = path.name
            try:
                self.size: int | None = path.stat().st_size
                raw = self._owned = open(path, "rb")  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise fail(self.name, None, f"cannot open the file ({exc.strerror or exc})", code="unreadable_file") from None
        else:
            self.name = Path(str(getattr(source, "name", "") or "upload")).name
            self.size = getattr(source, "size", None)
            raw = source
            if hasattr(raw, "seek") and getattr(raw, "seekable", lambda: True)():
                raw.seek(0)
        head = raw.read(2)
        if isinstance(head, str):
            raise TypeError("import sources must be opened in binary mode")
        self._hasher = _HashingReader(raw, prefix=head)
        self.compressed = head == GZIP_MAGIC
        # A small read-ahead under gzip keeps ``consumed`` close to what the decompressor used,
        # which the expansion-ratio check compares against.
        buffered = io.BufferedReader(self._hasher, buffer_size=GZIP_READ_AHEAD if self.compressed else BLOCK)
        self.stream: Any = gzip.GzipFile(fileobj=buffered, mode="rb") if self.compressed else buffered

    @property
    def consumed(self) -> int:
        """Return how many bytes of the original (possibly compressed) file were read so far."""
        return self._hasher.consumed

    def checksum(self) -> str:
        """Return the SHA-256 of the original bytes; call after the stream was read to the end."""
        while self._hasher.read(BLOCK):  # hash anything a parser left unread (e.g. trailing bytes)
            pass
        return self._hasher.sha.hexdigest()

    def read_blocks(self) -> Iterator[tuple[int, bytes]]:
        """Yield (first line number, block of whole lines); blocks end at a newline except the last."""
        line_no = 1
        tail = b""
        first = True
        produced = 0
        max_ratio, max_bytes = _limits()
        while True:
            try:
                chunk = self.stream.read(BLOCK)
            except (OSError, EOFError) as exc:
                raise fail(self.name, None, f"cannot decompress the file ({exc})") from None
            if not chunk:
                break
            if first:
                first = False
                if chunk.startswith(BOM):
                    chunk = chunk[len(BOM):]
            produced += len(chunk)
            if self.compressed:
                self._check_expansion(produced, max_ratio, max_bytes)
            data = tail + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                tail = data
                continue
            block, tail = data[: cut + 1], data[cut + 1:]
            yield line_no, block
            line_no += block.count(b"\n")
        if tail:
            yield line_no, tail

    def _check_expansion(self, produced: int, max_ratio: int, max_bytes: int) -> None:
        """Refuse a compressed file whose text grows far beyond what real data does (a gzip bomb)."""
        if produced > max_bytes:
            raise fail(self.name, None, f"decompresses to more than {max_bytes:,} bytes; refused",
                       code="too_large")
        if produced > GZIP_RATIO_GRACE and produced > max_ratio * max(self.consumed, 1):
            raise fail(self.name, None, f"expands more than {max_ratio}x when decompressed "
                       f"({self.consumed:,} bytes became more than {produced:,}); refused as a "
                       "likely decompression bomb", code="too_large")

    def text_lines(self) -> Iterator[tuple[int, str]]:
        """Yield (line number, decoded line without its newline); a line that is not UTF-8 fails the import."""
        for first, block in self.read_blocks():
            text = decode_block(self.name, first, block)
            for offset, line in enumerate(text.split("\n")):
                yield first + offset, line.rstrip("\r")

    def close(self) -> None:
        if self._owned is not None:
            self._owned.close()


def decode_block(name: str, first_line: int, block: bytes) -> str:
    """Decode a block of lines as UTF-8, naming the first bad line (``read_blocks`` drops a BOM)."""
    try:
        if first_line == 1 and block.startswith(BOM):
            block = block[3:]
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        raise fail(name, line, "is not valid UTF-8 text", code="bad_encoding") from None
    return text[:-1] if text.endswith("\n") else text


def detect_format(name: str, first_text: str) -> str:
    """Guess "trec", "jsonl" or "tsv" from the file name, else from its first non-blank text."""
    lowered = name.lower().removesuffix(".gz")
    for suffix, kind in ((".jsonl", "jsonl"), (".json", "jsonl"), (".tsv", "tsv"), (".sgml", "trec"),
                         (".trec", "trec"), (".xml", "trec")):
        if lowered.endswith(suffix):
            return kind
    stripped = first_text.lstrip()
    if stripped.startswith("<"):
        return "trec"
    if stripped.startswith("{"):
        return "jsonl"
    return "tsv"
