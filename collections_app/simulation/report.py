"""Render a planner ``Report`` as a text table, CSV or JSON, and its two plots as escaped SVG."""
from __future__ import annotations

import csv
import io
import json
import math
from html import escape

from .engine import Point, Report

COLUMNS = ("strategy", "setting", "judgments", "relevant", "recall", "tau_map", "tau_ndcg10")
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22")


def _fmt(value) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def rows(report: Report) -> list[list[str]]:
    """Return one row of formatted COLUMNS per point."""
    return [[_fmt(getattr(p, c)) for c in COLUMNS] for p in report.points]


def as_table(report: Report) -> str:
    """Return a fixed-width table with a one-line header about the simulated collection."""
    body = [list(COLUMNS)] + rows(report)
    widths = [max(len(r[i]) for r in body) for i in range(len(COLUMNS))]
    lines = [f"{report.topics} topics, {report.runs} runs, {report.findable_relevant} findable relevant, "
             f"seed {report.seed}"]
    lines += ["  ".join(cell.rjust(w) if i >= 2 else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths)))
              for r in body]
    return "\n".join(lines) + "\n"


def as_csv(report: Report) -> str:
    """Return CSV: the COLUMNS, then MAP and nDCG@10 of every run (``map:<tag>``, ``ndcg10:<tag>``)."""
    tags = sorted(report.complete_map)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(list(COLUMNS) + [f"map:{t}" for t in tags] + [f"ndcg10:{t}" for t in tags])
    for p, row in zip(report.points, rows(report)):
        writer.writerow(row + [_fmt(p.map[t]) for t in tags] + [_fmt(p.ndcg10[t]) for t in tags])
    return out.getvalue()


def as_json(report: Report) -> str:
    """Return the whole report as JSON (NaN written as null)."""
    def clean(x):
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x
    return json.dumps(clean(report.to_dict()), indent=1, sort_keys=True)


def _svg(series: dict[str, list[tuple[float, float]]], *, title: str, x_label: str, y_label: str,
         y_range: tuple[float, float] | None = None, width: int = 640, height: int = 360) -> str:
    """Return an inline SVG line chart; every label is escaped (strategy names may come from users)."""
    left, right, top, bottom = 60, 150, 30, 45
    xs = [x for pts in series.values() for x, _ in pts] or [0.0, 1.0]
    ys = [y for pts in series.values() for _, y in pts if not math.isnan(y)] or [0.0, 1.0]
    x0, x1 = 0.0, max(xs) or 1.0
    y0, y1 = y_range or (0.0, max(ys) or 1.0)
    pw, ph = width - left - right, height - top - bottom

    def sx(x):
        return left + pw * (x - x0) / (x1 - x0)

    def sy(y):
        return top + ph * (1 - (y - y0) / ((y1 - y0) or 1.0))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(title)}" class="planner-plot">',
             f'<title>{escape(title)}</title>',
             f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#333"/>',
             f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle" font-size="12">{escape(x_label)}</text>',
             f'<text x="14" y="{top + ph / 2}" text-anchor="middle" font-size="12" '
             f'transform="rotate(-90 14 {top + ph / 2})">{escape(y_label)}</text>']
    for i in range(5):
        xv, yv = x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * i / 4
        parts.append(f'<text x="{sx(xv):.1f}" y="{top + ph + 15}" text-anchor="middle" font-size="10">{xv:.0f}</text>')
        parts.append(f'<text x="{left - 5}" y="{sy(yv) + 3:.1f}" text-anchor="end" font-size="10">{yv:.2f}</text>')
    for n, (name, pts) in enumerate(series.items()):
        colour = PALETTE[n % len(PALETTE)]
        good = [(x, y) for x, y in pts if not math.isnan(y)]
        if good:
            path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in good)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{path}"/>')
            parts += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>' for x, y in good[:60]]
        ly = top + 14 * n + 8
        parts.append(f'<rect x="{left + pw + 10}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{left + pw + 24}" y="{ly + 1}" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _by_strategy(points: list[Point], y) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    for p in sorted(points, key=lambda p: p.judgments):
        out.setdefault(p.strategy, []).append((float(p.judgments), float(y(p))))
    return out


def discovery_svg(report: Report) -> str:
    """Return the 'relevant found vs judgments' plot (full curves for the budgeted strategies)."""
    series = {name: [(float(x), float(y)) for x, y in pts] for name, pts in report.curves.items()}
    return _svg(series, title="Relevant documents found vs judgments", x_label="judgments (all topics)",
                y_label="relevant found")


def tau_svg(report: Report) -> str:
    """Return the 'Kendall's tau (MAP) vs judgments' plot."""
    return _svg(_by_strategy(report.points, lambda p: p.tau_map), title="Kendall's tau of MAP ranking vs judgments",
                x_label="judgments (all topics)", y_label="tau vs complete qrels", y_range=(-1.0, 1.0))
