"""Server-rendered SVG for evaluation pages (no JavaScript library, no CDN).

Labels are escaped here because the SVG is marked safe in the template: run tags are untrusted.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")


def pr_curves_svg(curves: Sequence[tuple[str, Sequence[float]]], *, width: int = 520, height: int = 360) -> str:
    """Return an SVG of averaged 11-point interpolated precision–recall curves, one polyline per run."""
    left, right, top, bottom = 50, 160, 20, 40
    pw, ph = width - left - right, height - top - bottom

    def x(recall: float) -> float:
        return left + recall * pw

    def y(precision: float) -> float:
        return top + (1 - precision) * ph

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pr-curves" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="Interpolated precision-recall curves">']
    for i in range(11):
        v = i / 10
        parts.append(f'<line x1="{x(0):.1f}" y1="{y(v):.1f}" x2="{x(1):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{x(v):.1f}" y="{height - bottom + 15}" font-size="11" text-anchor="middle">{v:.1f}</text>')
        parts.append(f'<text x="{left - 5}" y="{y(v) + 3:.1f}" font-size="11" text-anchor="end">{v:.1f}</text>')
    parts.append(f'<text x="{left + pw / 2:.1f}" y="{height - 5}" font-size="11" text-anchor="middle">Recall</text>')
    parts.append(f'<text x="12" y="{top + ph / 2:.1f}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + ph / 2:.1f})">Precision</text>')
    for i, (tag, values) in enumerate(curves):
        colour = PALETTE[i % len(PALETTE)]
        points = " ".join(f"{x(k / 10):.1f},{y(v):.1f}" for k, v in enumerate(values))
        label = escape(tag)
        parts.append(f'<polyline class="curve" data-run="{label}" fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"><title>{label}</title></polyline>')
        ly = top + 14 * i + 8
        parts.append(f'<rect x="{width - right + 10}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{width - right + 25}" y="{ly + 1}" font-size="11">{escape(tag[:24])}</text>')
    parts.append("</svg>")
    return "".join(parts)


SIGNIFICANCE_LEVELS = ((0.001, "3"), (0.01, "2"))


def significance_class(cell, alpha: float) -> str:
    """Return the CSS classes colouring one significance cell by direction and Holm-corrected p.

    "row-better" (blue) or "row-worse" (orange) when the row run's mean is higher or lower,
    then a strength: "sig-3" for p_Holm ≤ 0.001, "sig-2" for ≤ 0.01, "sig-1" for ≤ alpha;
    a difference that is not significant gets "sig-0" (no colour), so colour always means a
    corrected significant difference and its hue says which way.

    >>> from types import SimpleNamespace as C
    >>> significance_class(C(mean_difference=0.1, p_holm=0.0005), 0.05)
    'row-better sig-3'
    >>> significance_class(C(mean_difference=-0.1, p_holm=0.03), 0.05)
    'row-worse sig-1'
    >>> significance_class(C(mean_difference=0.2, p_holm=0.2), 0.05)
    'sig-0'
    >>> significance_class(None, 0.05)
    ''
    """
    if cell is None:
        return ""
    if cell.p_holm > alpha or cell.mean_difference == 0:
        return "sig-0"
    direction = "row-better" if cell.mean_difference > 0 else "row-worse"
    strength = next((level for limit, level in SIGNIFICANCE_LEVELS if cell.p_holm <= limit), "1")
    return f"{direction} sig-{strength}"
