"""One export writer for every table a campaign hands out: CSV or JSONL, streamed, spreadsheet-safe.

Judging (judgments, final labels, qrels versions), preferences (judgments) and evaluation
(per-topic scores) all write through here, so every CSV gets the same rules:

- a header row of stable column names (documented in docs/formats.md), ``\\n`` line ends;
- empty cell for a missing value (JSONL: ``null``), booleans as ``true``/``false`` in both;
- every text cell guarded against spreadsheet formulas (``qrelsmith.csv_cells``): crowd
  workers type comments and worker ids, and files name qids and docnos;
- JSONL: one JSON object per line with the same keys, values as stored (UTF-8, not escaped).

Rows are produced lazily and written one line at a time, so a view can hand
:func:`export_lines` to :func:`streaming_download` and memory stays flat however many rows
the campaign has.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence

from django.core.exceptions import ValidationError
from django.http import StreamingHttpResponse

from qrelsmith.csv_cells import csv_cell

CONTENT_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}
FORMATS = tuple(CONTENT_TYPES)


def check_format(fmt: str) -> str:
    """Return ``fmt`` if it is an export format; raise ValidationError(code="bad_format") otherwise."""
    if fmt not in CONTENT_TYPES:
        raise ValidationError(f"Unknown export format {fmt!r}; use {' or '.join(FORMATS)}.", code="bad_format")
    return fmt


def export_lines(rows: Iterable[Mapping], *, fields: Sequence[str], fmt: str,
                 comments: Sequence[str] = ()) -> Iterator[str]:
    """Yield the export's lines (header first for CSV), each ending in a newline.

    ``comments`` are written before a CSV's header as ``# <text>`` lines (how the table was
    made, e.g. how a Dawid–Skene run ended; docs/formats.md says which exports have them);
    JSONL has no comment lines and leaves them out.

    >>> list(export_lines([{"qid": "1", "comment": "=SUM(A1)", "ok": True}], fields=["qid", "comment", "ok"],
    ...                   fmt="csv"))
    ['qid,comment,ok\\n', "1,'=SUM(A1),true\\n"]
    >>> list(export_lines([{"qid": "1", "seconds": None}], fields=["qid", "seconds"], fmt="jsonl"))
    ['{"qid": "1", "seconds": null}\\n']
    >>> list(export_lines([{"qid": "1"}], fields=["qid"], fmt="csv", comments=["made by a rule"]))
    ['# made by a rule\\n', 'qid\\n', '1\\n']
    """
    check_format(fmt)
    if fmt == "jsonl":
        for row in rows:
            yield json.dumps({name: row.get(name) for name in fields}, ensure_ascii=False) + "\n"
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def line(values) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(values)
        return buffer.getvalue()

    for comment in comments:
        yield "# " + " ".join(str(comment).split()) + "\n"  # one line whatever the text holds
    yield line(fields)
    for row in rows:
        yield line([csv_cell(row.get(name)) for name in fields])


def export_text(rows: Iterable[Mapping], *, fields: Sequence[str], fmt: str) -> str:
    """Return the whole export as one string (for commands and tests; views stream instead)."""
    return "".join(export_lines(rows, fields=fields, fmt=fmt))


def streaming_download(lines: Iterable[str], *, filename: str, content_type: str) -> StreamingHttpResponse:
    """Return an attachment response that sends ``lines`` as they are produced (UTF-8)."""
    response = StreamingHttpResponse((text.encode("utf-8") for text in lines), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_download(rows: Iterable[Mapping], *, fields: Sequence[str], fmt: str, stem: str) -> StreamingHttpResponse:
    """Stream rows as ``<stem>.<fmt>`` in CSV or JSONL."""
    return streaming_download(export_lines(rows, fields=fields, fmt=check_format(fmt)), filename=f"{stem}.{fmt}",
                              content_type=CONTENT_TYPES[fmt])
