"""Small helpers for the import tests: write sample files (plain or gzipped) into tmp_path."""
from __future__ import annotations

import gzip
from pathlib import Path

from collections_app.models import Topic


def write(tmp_path: Path, name: str, text: str | bytes, *, gz: bool = False) -> Path:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def add_topics(collection, *qids: str) -> None:
    Topic.objects.bulk_create([Topic(collection=collection, qid=qid, title=f"topic {qid}") for qid in qids])


def run_text(tag: str, rows: list[tuple[str, str, float]]) -> str:
    return "".join(f"{qid} Q0 {docno} {rank} {score} {tag}\n" for rank, (qid, docno, score) in enumerate(rows, 1))


