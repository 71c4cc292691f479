"""Server-rendered SVG charts for the dashboard: heatmap, horizontal bars, line chart.

Pure functions from plain numbers and labels to an SVG string (no CDN, no JavaScript).
Every label and link passes through :func:`django.utils.html.escape` — topic titles and
assessor names are untrusted text — and the result is marked safe only after that.
Values are agreement statistics in [−1, 1]; None draws a grey "undefined" cell or a gap.
"""
from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

UNDEFINED = "#d9d9d9"


def colour(value: float | None) -> str:
    """Return a diverging colour: red at −1, white at 0, blue at 1 (grey when undefined).

    >>> colour(1.0), colour(0.0), colour(-1.0), colour(None)
    ('#2166ac', '#ffffff', '#b2182b', '#d9d9d9')
    """
    if value is None:
        return UNDEFINED
    v = max(-1.0, min(1.0, float(value)))
    end = (0x21, 0x66, 0xAC) if v >= 0 else (0xB2, 0x18, 0x2B)
    t = abs(v)
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in end)


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def heatmap(names: Sequence[str], values: Sequence[Sequence[float | None]], *, counts=None, hrefs=None,
            title: str = "", cell: int = 28) -> SafeString:
    """Return a square heatmap SVG; ``hrefs[i][j]`` (optional) makes a cell a link.

    Each cell is a ``<rect class="cell" data-row=i data-col=j data-value=…>`` with a tooltip
    giving both names, the value and the shared items.
    """
    n = len(names)
    longest = max((len(name[:18]) for name in names), default=0)
    left, top = 16 + 7 * longest, 16 + 6 * longest  # room for the row labels and the slanted column labels
    size_w, size_h = left + n * cell + 10 + 4 * longest, top + n * cell + 10  # the last slanted label leans right
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart heatmap" role="img" width="{size_w}" '
           f'height="{size_h}" viewBox="0 0 {size_w} {size_h}"><title>{escape(title)}</title>']
    for i, name in enumerate(names):
        y = top + i * cell + cell / 2 + 4
        x = left + i * cell + cell / 2
        out.append(f'<text class="row-label" x="{left - 6}" y="{y}" text-anchor="end">{escape(name[:18])}</text>')
        out.append(f'<text class="col-label" x="{x}" y="{top - 6}" transform="rotate(-60 {x} {top - 6})">'
                   f'{escape(name[:18])}</text>')
    for i in range(n):
        for j in range(n):
            value = values[i][j]
            shared = "" if counts is None else f", {counts[i][j]} shared items"
            tip = f"{names[i]} × {names[j]}: {_fmt(value)}{shared}"
            rect = (f'<rect class="cell" data-row="{i}" data-col="{j}" data-value="{_fmt(value)}" '
                    f'x="{left + j * cell}" y="{top + i * cell}" width="{cell - 1}" height="{cell - 1}" '
                    f'fill="{colour(value)}"><title>{escape(tip)}</title></rect>')
            ink = "#ffffff" if value is not None and abs(value) > 0.55 else "#111827"
            text = (f'<text class="cell-value" x="{left + j * cell + cell / 2}" y="{top + i * cell + cell / 2 + 4}" '
                    f'text-anchor="middle" style="fill:{ink}">{"–" if value is None else f"{value:.1f}"}</text>')
            href = hrefs[i][j] if hrefs is not None and i != j else None
            if href:
                out.append(f'<a href="{escape(href)}">{rect}{text}</a>')
            else:
                out.append(rect + text)
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 — every interpolated label is escaped above


def bars(labels: Sequence[str], values: Sequence[float | None], *, hrefs=None, title: str = "",
         lo: float = -1.0, hi: float = 1.0, marker: float | None = None) -> SafeString:
    """Return horizontal bars from 0 (one row per label), an optional vertical marker line (e.g. the low threshold)."""
    row, left, width = 18, 160, 360
    height = len(labels) * row + 30
    def x(v: float) -> float:
        return left + (max(lo, min(hi, v)) - lo) / (hi - lo) * width
    zero = x(0.0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" role="img" width="{left + width + 60}" '
           f'height="{height}" viewBox="0 0 {left + width + 60} {height}"><title>{escape(title)}</title>',
           f'<line x1="{zero}" y1="0" x2="{zero}" y2="{height - 20}" stroke="#555"/>']
    if marker is not None:
        out.append(f'<line class="marker" x1="{x(marker)}" y1="0" x2="{x(marker)}" y2="{height - 20}" '
                   f'stroke="#b2182b" stroke-dasharray="4 3"/>')
    for i, (label, value) in enumerate(zip(labels, values)):
        y = i * row + 4
        text = f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{escape(label[:24])}</text>'
        if hrefs is not None and hrefs[i]:
            text = f'<a href="{escape(hrefs[i])}">{text}</a>'
        out.append(text)
        if value is None:
            out.append(f'<text x="{zero + 4}" y="{y + 12}" class="undefined">undefined</text>')
            continue
        x0, x1 = sorted((zero, x(value)))
        out.append(f'<rect class="bar" data-label="{escape(label)}" data-value="{_fmt(value)}" x="{x0}" y="{y}" '
                   f'width="{max(x1 - x0, 1)}" height="{row - 4}" fill="{colour(value)}" stroke="#777">'
                   f'<title>{escape(label)}: {_fmt(value)}</title></rect>')
        out.append(f'<text x="{max(x1, zero) + 4}" y="{y + 12}">{_fmt(value)}</text>')
    out.append(f'<text x="{left}" y="{height - 4}">{lo:g}</text>'
               f'<text x="{left + width}" y="{height - 4}" text-anchor="end">{hi:g}</text></svg>')
    return mark_safe("".join(out))  # noqa: S308 — labels escaped above


def line(labels: Sequence[str], values: Sequence[float | None], *, title: str = "", lo: float = -1.0,
         hi: float = 1.0) -> SafeString:
    """Return a line chart of values over labelled points; an undefined value breaks the line."""
    left, top, width, height = 40, 10, 480, 160  # 60 px spare on the right for the last (date) label
    n = len(labels)
    def px(i: int) -> float:
        return left + (width * i / (n - 1) if n > 1 else width / 2)
    def py(v: float) -> float:
        return top + height - (max(lo, min(hi, v)) - lo) / (hi - lo) * height
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart line" role="img" width="{left + width + 60}" '
           f'height="{top + height + 40}" viewBox="0 0 {left + width + 60} {top + height + 40}">'
           f'<title>{escape(title)}</title>']
    for v in (lo, 0.0, hi):
        out.append(f'<line x1="{left}" y1="{py(v)}" x2="{left + width}" y2="{py(v)}" stroke="#ccc"/>'
                   f'<text x="{left - 4}" y="{py(v) + 4}" text-anchor="end">{v:g}</text>')
    segment: list[str] = []
    segments = []
    for i, value in enumerate(values):
        if value is None:
            segments.append(segment)
            segment = []
            continue
        segment.append(f"{px(i):.1f},{py(value):.1f}")
    segments.append(segment)
    for seg in segments:
        if len(seg) > 1:
            out.append(f'<polyline fill="none" stroke="#2166ac" stroke-width="2" points="{" ".join(seg)}"/>')
    for i, (label, value) in enumerate(zip(labels, values)):
        if value is not None:
            out.append(f'<circle class="point" cx="{px(i):.1f}" cy="{py(value):.1f}" r="3" fill="#2166ac">'
                       f'<title>{escape(label)}: {_fmt(value)}</title></circle>')
        if n <= 12 or i % max(1, n // 10) == 0:
            out.append(f'<text x="{px(i):.1f}" y="{top + height + 16}" text-anchor="middle">{escape(label)}</text>')
    out.append("</svg>")
    return mark_safe("".join(out))  # noqa: S308 — labels escaped above
