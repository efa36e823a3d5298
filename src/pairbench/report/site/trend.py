"""The trend plot of one series: each run's median with its CI, across commits, change points marked."""

from __future__ import annotations

import time

from pairbench.report.format import axis_formatter, format_value
from pairbench.report.site.data import Series, change_verdict
from pairbench.report.svg import PALETTE, Canvas, Scale, esc

__all__ = ["trend_plot"]

_COLOUR = {"slower": "#c44e52", "faster": "#55a868", "changed": "#8172b3"}


def _label(commit: str, recorded_at: float) -> str:
    return commit[:8] if commit else time.strftime("%m-%d %H:%M", time.gmtime(recorded_at))


def trend_plot(series: Series, run_link: dict[int, str]) -> str:
    """An SVG: x is the run's place in the history (labelled by commit, else date), y the median.

    Args:
        series: the points and change points.
        run_link: run id -> relative link to that run's report (runs without one get no link).
    """
    pts = series.points
    canvas = Canvas(width=900, height=300, left=80, title=f"{series.benchmark} · {series.metric} · {series.variant} "
                                                           f"on {series.machine} ({len(pts)} runs)")
    lows = [p.ci[0] if p.ci else p.median for p in pts]
    highs = [p.ci[1] if p.ci else p.median for p in pts]
    ys = Scale.padded(lows + highs, canvas.y0, canvas.y1)
    xs = Scale(-0.5, len(pts) - 0.5, canvas.x0, canvas.x1)
    fmt = axis_formatter(ys.lo, ys.hi, series.unit)
    canvas.y_axis(ys, fmt, series.metric + (f" ({series.unit})" if series.unit else ""))
    step = max(1, len(pts) // 10)
    canvas.x_axis(xs, lambda i: _label(pts[int(i)].commit, pts[int(i)].recorded_at), "commit (or run date), oldest first",
                  ticks=[float(i) for i in range(0, len(pts), step)])
    for cp in series.changes:
        verdict = change_verdict(cp.change, series.direction)
        x = (xs(cp.index - 1) + xs(cp.index)) / 2
        canvas.add(f'<g class="cp" data-index="{cp.index}" data-change="{cp.change:.4f}">')
        canvas.line(x, canvas.y1, x, canvas.y0, _COLOUR[verdict], 1.5, dash="5,3")
        canvas.text(x + 3, canvas.y1 + 10, f"{cp.change:+.1%} {verdict}", size=10, color=_COLOUR[verdict])
        canvas.add("</g>")
    canvas.polyline([(xs(i), ys(p.median)) for i, p in enumerate(pts)], PALETTE[0], 1.0)
    for i, p in enumerate(pts):
        x = xs(i)
        if p.ci:
            canvas.line(x, ys(p.ci[0]), x, ys(p.ci[1]), PALETTE[0], 1.2)
        ci = f", 95% CI {format_value(p.ci[0], series.unit)} to {format_value(p.ci[1], series.unit)}" if p.ci else ""
        tip = (f"run {p.run_id} · {p.commit[:12] or 'no commit'} · "
               f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime(p.recorded_at))}: median "
               f"{format_value(p.median, series.unit)}{ci} ({p.n} values)")
        dot = (f'<circle class="pt" cx="{x:.2f}" cy="{ys(p.median):.2f}" r="3.5" fill="{PALETTE[0]}">'
               f"<title>{esc(tip)}</title></circle>")
        link = run_link.get(p.run_id)
        canvas.add(f'<a href="{esc(link)}">{dot}</a>' if link else dot)
    return canvas.render("trend")
