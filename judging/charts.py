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


LABEL_PX = 12  # every label at least 11 px: readable at a glance
TARGET_GRID_PX = 560  # a few assessors get big cells; many get at least MIN_CELL


def cell_size(n: int, *, lo: int = 36, hi: int = 96) -> int:
    """Return the side of one heatmap cell so the grid fills about TARGET_GRID_PX, within [lo, hi].

    >>> cell_size(3), cell_size(10), cell_size(40)
    (96, 56, 36)
    """
    return max(lo, min(hi, TARGET_GRID_PX // max(n, 1)))


def legend(*, x: float, y: float, width: float = 300) -> str:
    """Return the SVG of the diverging colour legend from −1 to 1, plus the grey "undefined" swatch."""
    steps = 11
    step = width / steps
    out = [f'<g class="legend" aria-hidden="true"><text x="{x}" y="{y - 4}" font-size="{LABEL_PX}">'
           f'Agreement (κ or α): −1 … 0 … 1</text>']
    for k in range(steps):
        value = -1.0 + 2.0 * k / (steps - 1)
        out.append(f'<rect x="{x + k * step:.1f}" y="{y}" width="{step:.1f}" height="12" fill="{colour(value)}" '
                   f'stroke="#9ca3af" stroke-width=".5"/>')
    for value, anchor in ((-1.0, "start"), (0.0, "middle"), (1.0, "end")):
        tx = x + (value + 1) / 2 * width
        out.append(f'<text x="{tx:.1f}" y="{y + 26}" font-size="{LABEL_PX}" text-anchor="{anchor}">{value:g}</text>')
    out.append(f'<rect x="{x + width + 16}" y="{y}" width="12" height="12" fill="{UNDEFINED}" stroke="#9ca3af"/>'
               f'<text x="{x + width + 32}" y="{y + 11}" font-size="{LABEL_PX}">undefined (too few shared items)</text></g>')
    return "".join(out)


def heatmap(names: Sequence[str], values: Sequence[Sequence[float | None]], *, counts=None, hrefs=None,
            title: str = "", cell: int | None = None) -> SafeString:
    """Return a square heatmap SVG with a colour legend; ``hrefs[i][j]`` (optional) makes a cell a link.

    Each cell is a ``<rect class="cell" data-row=i data-col=j data-value=…>`` with a tooltip
    giving both names, the value and the shared items. Cells are sized to the card (see
    ``cell_size``) and every label is at least 11 px, so three assessors do not draw a
    thumbnail nor forty a grid wider than the page.
    """
    n = len(names)
    cell = cell or cell_size(n)
    char = LABEL_PX * 0.6  # average glyph width of the sans-serif labels
    longest = max((len(name[:18]) for name in names), default=0)
    left, top = 16 + char * longest, 16 + char * longest * 0.87  # row labels; column labels slanted at 60°
    grid_right = left + n * cell
    legend_top = top + n * cell + 36
    size_w = int(max(grid_right + 10 + char * longest * 0.5, left + 300 + 260))
    size_h = int(legend_top + 34)
    value_px = max(11, min(16, round(cell * 0.3)))
    role = "group" if hrefs is not None else "img"  # an image may not hold links (axe: nested-interactive)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart heatmap" role="{role}" aria-label="{escape(title)}" '
           f'width="{size_w}" height="{size_h}" viewBox="0 0 {size_w} {size_h}"><title>{escape(title)}</title>']
    for i, name in enumerate(names):
        y = top + i * cell + cell / 2 + 4
        x = left + i * cell + cell / 2
        out.append(f'<text class="row-label" x="{left - 6:.1f}" y="{y:.1f}" font-size="{LABEL_PX}" text-anchor="end">'
                   f'{escape(name[:18])}</text>')
        out.append(f'<text class="col-label" x="{x:.1f}" y="{top - 6:.1f}" font-size="{LABEL_PX}" '
                   f'transform="rotate(-60 {x:.1f} {top - 6:.1f})">{escape(name[:18])}</text>')
    for i in range(n):
        for j in range(n):
            value = values[i][j]
            shared = "" if counts is None else f", {counts[i][j]} shared items"
            tip = f"{names[i]} × {names[j]}: {_fmt(value)}{shared}"
            rect = (f'<rect class="cell" data-row="{i}" data-col="{j}" data-value="{_fmt(value)}" '
                    f'x="{left + j * cell:.1f}" y="{top + i * cell:.1f}" width="{cell - 1}" height="{cell - 1}" '
                    f'fill="{colour(value)}"><title>{escape(tip)}</title></rect>')
            ink = "#ffffff" if value is not None and abs(value) > 0.55 else "#111827"
            text = (f'<text class="cell-value" x="{left + j * cell + cell / 2:.1f}" '
                    f'y="{top + i * cell + cell / 2 + value_px / 3:.1f}" font-size="{value_px}" '
                    f'text-anchor="middle" style="fill:{ink}">{"–" if value is None else f"{value:.2f}"}</text>')
            href = hrefs[i][j] if hrefs is not None and i != j else None
            if href:
                out.append(f'<a href="{escape(href)}">{rect}{text}</a>')
            else:
                out.append(rect + text)
    out.append(legend(x=left, y=legend_top))
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
    role = "group" if hrefs is not None else "img"  # an image may not hold links (axe: nested-interactive)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" role="{role}" aria-label="{escape(title)}" '
           f'width="{left + width + 60}" height="{height}" viewBox="0 0 {left + width + 60} {height}">'
           f'<title>{escape(title)}</title>',
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
               f'<text x="{left + width}" y="{height - 4}" text-anchor="end">{hi:g}</text>')
    if marker is not None:  # the legend of the dashed line
        out.append(f'<line x1="{left + width / 2 - 70}" y1="{height - 8}" x2="{left + width / 2 - 52}" y2="{height - 8}" '
                   f'stroke="#b2182b" stroke-dasharray="4 3"/><text x="{left + width / 2 - 48}" y="{height - 4}">'
                   f'low-agreement threshold ({marker:g})</text>')
    out.append("</svg>")
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
