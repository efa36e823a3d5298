"""The plots of the HTML report, each an inline SVG string built from a Run or its Comparisons.

distribution: each variant's samples as a violin (Gaussian KDE, Silverman bandwidth) with the
    points on top (strip, deterministic jitter) and the median marked;
forest: each comparison's change with its CI against 0 and the ±δ band;
sweep: change vs a swept parameter with the CI as a band;
latency: HTTP latency percentiles (metrics `latency_pNN`), median over rounds with the IQR band;
drift: every sample in run order, so trends and bursts during the run are visible.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from typing import Sequence

from pairbench.model import Comparison, Run
from pairbench.report.format import axis_formatter, change_percent, format_exact_percent, format_percent, format_value
from pairbench.analysis.replicates import replicate_values
from pairbench.report.labels import Labels, fit_width, shorten, text_width
from pairbench.report.summary import metric_of, percent_shown, sample_order_key
from pairbench.report.svg import PALETTE, Canvas, Scale
from pairbench.report.wording import verdict_word

__all__ = ["distribution_plot", "forest_plot", "sweep_plot", "latency_plot", "drift_plot", "LATENCY_METRIC", "sweep_parameter",
           "sweep_parameters", "variant_labels"]

LATENCY_METRIC = re.compile(r"^latency_p(\d+(?:\.\d+)?)$")


def _colors(run: Run) -> dict[str, str]:
    return {v.name: PALETTE[i % len(PALETTE)] for i, v in enumerate(run.variants)}


def variant_labels(run: Run) -> Labels:
    """The variants' labels in every plot: the part of their names that varies."""
    return shorten([v.name for v in run.variants])


# Widest label before it is cut in the middle: a plot keeps most of its width for the data.
_LABEL_LIMIT = 320.0


def _kde(values: Sequence[float], grid: Sequence[float]) -> list[float]:
    n = len(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    iqr = 0.0
    if n >= 4:
        q = statistics.quantiles(values, n=4)
        iqr = q[2] - q[0]
    spread = min(sd, iqr / 1.34) if iqr > 0 else sd
    h = 0.9 * spread * n ** (-0.2) if spread > 0 else 0.0
    if h <= 0:
        return [0.0 for _ in grid]
    return [sum(math.exp(-0.5 * ((g - v) / h) ** 2) for v in values) / (n * h) for g in grid]


def distribution_plot(run: Run, benchmark: str, metric: str) -> str | None:
    m = metric_of(run, benchmark, metric)
    per_block = replicate_values(run, benchmark, metric)
    rows = [(v.name, list(per_block.get(v.name, {}).values())) for v in run.variants]
    rows = [(name, vals) for name, vals in rows if vals]
    if not rows:
        return None
    colors = _colors(run)
    labels = variant_labels(run)
    row_h = 46
    names = {name: fit_width(labels(name), 11, _LABEL_LIMIT) for name, _ in rows}
    medians = {name: f"median {format_value(statistics.median(vals), m.unit)} (n={len(vals)})" for name, vals in rows}
    left = 16 + max(max(text_width(t, 11) for t in names.values()), max(text_width(t, 9) for t in medians.values()))
    left = max(120, int(math.ceil(left)))
    c = Canvas(width=left + 490, left=left, height=40 + 28 + row_h * len(rows),
               title=f"{benchmark} · {metric}: per-block values per variant")
    allv = [x for _, vals in rows for x in vals]
    xs = Scale.padded(allv, c.x0, c.x1)
    rng = random.Random(0)  # fixed jitter: the same run gives the same picture
    for i, (name, vals) in enumerate(rows):
        yc = c.y1 + row_h * (i + 0.5)
        lo, hi = min(vals), max(vals)
        grid = [lo + (hi - lo) * k / 60 for k in range(61)]
        dens = _kde(vals, grid)
        top = max(dens) or 1.0
        if max(dens) > 0:
            upper = [(xs(g), yc - d / top * row_h * 0.42) for g, d in zip(grid, dens)]
            lower = [(xs(g), yc + d / top * row_h * 0.42) for g, d in zip(grid, dens)]
            c.polygon(upper + lower[::-1], colors[name], 0.18)
        for v in vals:
            c.circle(xs(v), yc + rng.uniform(-row_h * 0.2, row_h * 0.2), 2.2, colors[name], 0.65,
                     tip=f"{name}: {format_value(v, m.unit)}")
        med = statistics.median(vals)
        c.line(xs(med), yc - row_h * 0.4, xs(med), yc + row_h * 0.4, "#111", 2)
        c.text(c.x0 - 8, yc + 4, names[name], anchor="end", size=11, tip=name)
        c.text(c.x0 - 8, yc + 16, medians[name], anchor="end", size=9, color="#666")
    c.x_axis(xs, axis_formatter(xs.lo, xs.hi, m.unit), label=f"{metric} ({m.unit})" if m.unit else metric)
    return c.render("distribution")


def forest_plot(comparisons: Sequence[Comparison], labels: Labels | None = None, run: Run | None = None) -> str | None:
    """Each comparison's change with its CI; rows labelled `benchmark · metric · candidate`, the
    candidate by `labels` (the part of the variant names that varies); with `run`, each verdict
    worded as the tables word it (memory `larger`, not `slower`)."""
    rows = [cmp for cmp in comparisons if percent_shown(cmp)]  # no change in percent from a zero baseline
    if not rows:
        return None
    label_of = labels or shorten([r.candidate for r in rows])
    texts = [" · ".join((fit_width(r.benchmark, 10, 180), fit_width(r.metric, 10, 110),
                         fit_width(label_of(r.candidate), 10, 180))) for r in rows]
    left = max(120, int(math.ceil(16 + max(text_width(t, 10) for t in texts))))
    row_h = 26
    c = Canvas(width=left + 460, left=left, height=40 + 28 + row_h * len(rows), title="Change against the baseline, with CIs")
    delta = max(r.threshold for r in rows) * 100
    estimates = [change_percent(r.ratio) for r in rows if r.ratio is not None]
    # The axis covers every estimate and the band; a CI far wider than that (a noisy metric) would
    # squash every other row, so its whisker is cut at the edge and marked with an arrow.
    reach = max(10.0, 3 * max(abs(e) for e in estimates), 3 * delta)
    pts = list(estimates) + [-delta * 1.5, delta * 1.5, 0.0]
    for r in rows:
        if r.verdict_ci:  # the CI the verdict rests on, as the tables show it
            pts += [max(-reach, min(reach, change_percent(x))) for x in r.verdict_ci]
    xs = Scale.padded(pts, c.x0, c.x1)
    c.rect(xs(-delta), c.y1, xs(delta) - xs(-delta), c.y0 - c.y1, "#55a868", 0.15, tip=f"±{delta:g}% noise band")
    c.line(xs(0), c.y1, xs(0), c.y0, "#333", 1, dash="3,3")
    for i, r in enumerate(rows):
        y = c.y1 + row_h * (i + 0.5)
        color = {"faster": "#2a7d2a", "slower": "#b22222"}.get(r.verdict, "#555")
        assert r.ratio is not None
        change = format_exact_percent(r.ratio - 1) if r.exact else format_percent(r.ratio - 1)
        word = verdict_word(r.verdict, metric_of(run, r.benchmark, r.metric)) if run is not None else r.verdict
        tip = f"{r.benchmark} · {r.metric} · {r.candidate}: {change} ({word})"
        if r.verdict_ci:
            lo, hi = change_percent(r.verdict_ci[0]), change_percent(r.verdict_ci[1])
            tip += f", CI{' (adj.)' if r.adjusted_ci else ''} [{format_percent(lo / 100)}, {format_percent(hi / 100)}]"
            c.line(xs(max(lo, xs.lo)), y, xs(min(hi, xs.hi)), y, color, 2.5)
            if hi > xs.hi:
                c.text(c.x1 - 2, y + 4, "›", anchor="end", size=14, color=color)
            if lo < xs.lo:
                c.text(c.x0 + 2, y + 4, "‹", size=14, color=color)
        c.circle(xs(change_percent(r.ratio)), y, 4.5, color, 1.0, tip=tip)
        c.text(c.x0 - 8, y + 4, texts[i], anchor="end", size=10, tip=f"{r.benchmark} · {r.metric} · {r.candidate}")
    c.x_axis(xs, lambda t: f"{t:+g}%", label=f"change vs baseline (shaded: ±{delta:g}%)")
    return c.render("forest")


def sweep_parameters(run: Run) -> list[str]:
    """The parameters whose value differs between variants, in the order the variants name them."""
    values: dict[str, set[str]] = {}
    for v in run.variants:
        for k, val in v.params.items():
            values.setdefault(k, set()).add(str(val))
    return [k for k, vals in values.items() if len(vals) > 1]


def sweep_parameter(run: Run) -> str | None:
    """The parameter a sweep plot puts on its x axis: the first numeric one that varies, else the first."""
    varying = sweep_parameters(run)
    numeric = [k for k in varying if all(_as_float(str(v.params[k])) is not None for v in run.variants if k in v.params)]
    chosen = numeric or varying
    return chosen[0] if chosen else None


def _as_float(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def sweep_plot(run: Run, benchmark: str, metric: str, comparisons: Sequence[Comparison]) -> str | None:
    """Change vs the baseline against the swept parameter, with the CI as a band.

    In a matrix (a build × a setting, two settings) every other varying parameter gets its own line,
    so that points of different builds are never joined into one zigzag; the baseline is its line's
    0% point.
    """
    param = sweep_parameter(run)
    if param is None:
        return None
    others = [k for k in sweep_parameters(run) if k != param]
    by_cand = {cmp.candidate: cmp for cmp in comparisons  # no percent from a zero baseline, as the tables
               if cmp.benchmark == benchmark and cmp.metric == metric and percent_shown(cmp)}
    if not by_cand:
        return None
    threshold = next(iter(by_cand.values())).threshold
    series: dict[str, list[tuple[str, float, float, float, str]]] = {}
    for v in run.variants:
        if param not in v.params:
            continue
        if v.name in by_cand:
            cmp = by_cand[v.name]
            mid = change_percent(cmp.ratio)  # type: ignore[arg-type]
            ci = cmp.verdict_ci
            lo, hi = (change_percent(ci[0]), change_percent(ci[1])) if ci else (mid, mid)
            verdict: str = verdict_word(cmp.verdict, metric_of(run, benchmark, metric))  # as the tables word it
        elif v.baseline:
            mid = lo = hi = 0.0
            verdict = "baseline"
        else:
            continue
        label = ", ".join(f"{k}={v.params[k]}" for k in others if k in v.params)
        series.setdefault(label, []).append((str(v.params[param]), mid, lo, hi, verdict))
    if sum(len(pts) for pts in series.values()) < 2:
        return None
    xs_text = [x for pts in series.values() for x, *_ in pts]
    numeric = all(_as_float(x) is not None for x in xs_text)
    categories = list(dict.fromkeys(xs_text))
    position = {x: (float(x) if numeric else float(categories.index(x))) for x in categories}
    for pts in series.values():
        pts.sort(key=lambda pt: position[pt[0]])
    title = f"{benchmark} · {metric} against {param}" + (f", a line per {', '.join(others)}" if others else "")
    c = Canvas(width=640, left=70, height=280, title=title)
    legend = _reserve_legend(c, list(series)) if len(series) > 1 else []
    keys = sorted(set(position.values()))
    xs = Scale.padded(keys, c.x0, c.x1, pad=0.04)
    delta = threshold * 100
    spread = [y for pts in series.values() for _, _, lo, hi, _ in pts for y in (lo, hi)]
    ys = Scale.padded(spread + [0.0, delta, -delta], c.y0, c.y1)
    c.rect(c.x0, ys(delta), c.x1 - c.x0, ys(-delta) - ys(delta), "#55a868", 0.12, tip=f"±{delta:g}% noise band")
    c.line(c.x0, ys(0), c.x1, ys(0), "#333", 1, dash="3,3")
    colors = {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(series)}
    for label, pts in series.items():
        color = colors[label]
        band = [(xs(position[x]), ys(hi)) for x, _, _, hi, _ in pts] + \
               [(xs(position[x]), ys(lo)) for x, _, lo, _, _ in reversed(pts)]
        c.polygon(band, color, 0.25 if len(series) == 1 else 0.12)
        c.polyline([(xs(position[x]), ys(mid)) for x, mid, *_ in pts], color, 2)
        for x, mid, _, _, verdict in pts:
            where = f"{label}, " if label else ""
            c.circle(xs(position[x]), ys(mid), 3.5, color, 1.0, tip=f"{where}{param}={x}: {format_percent(mid / 100)} ({verdict})")
    _legend(c, legend, colors)
    ticks = keys if len(keys) <= 12 else None
    c.x_axis(xs, lambda t: f"{t:g}" if numeric else categories[int(round(t))] if 0 <= round(t) < len(categories) else "",
             label=param, ticks=ticks)
    c.y_axis(ys, lambda t: f"{t:+g}%", label="change vs baseline")
    return c.render("sweep")


def latency_plot(run: Run, benchmark: str) -> str | None:
    try:
        metrics = run.benchmark(benchmark).metrics
    except KeyError:
        return None
    pcts = sorted((float(mm.group(1)), m.name) for m in metrics if (mm := LATENCY_METRIC.match(m.name)))
    if len(pcts) < 2:
        return None
    c = Canvas(width=640, left=80, height=300, title=f"{benchmark}: latency percentiles")
    positions = list(range(len(pcts)))
    xs = Scale(-0.3, len(pcts) - 0.7, c.x0, c.x1)
    colors = _colors(run)
    lines = []
    per_block = {name: replicate_values(run, benchmark, name) for _, name in pcts}
    for v in run.variants:
        med, q1, q3 = [], [], []
        for _, name in pcts:
            vals = list(per_block[name].get(v.name, {}).values())
            if not vals:
                break
            med.append(statistics.median(vals))
            if len(vals) >= 2:
                q = statistics.quantiles(vals, n=4, method="inclusive")
                q1.append(q[0])
                q3.append(q[2])
            else:
                q1.append(vals[0])
                q3.append(vals[0])
        if len(med) == len(pcts):
            lines.append((v.name, med, q1, q3))
    if not lines:
        return None
    legend = _reserve_legend(c, [name for name, *_ in lines], variant_labels(run))
    ys = Scale.padded([x for _, _, a, b in lines for x in a + b] + [0.0], c.y0, c.y1)
    for name, med, q1, q3 in lines:
        color = colors[name]
        c.polygon([(xs(p), ys(h)) for p, h in zip(positions, q3)] + [(xs(p), ys(lo)) for p, lo in reversed(list(zip(positions, q1)))], color, 0.18)
        c.polyline([(xs(p), ys(m)) for p, m in zip(positions, med)], color, 2)
        for p, m, (pct, _) in zip(positions, med, pcts):
            c.circle(xs(p), ys(m), 3, color, 1.0, tip=f"{name} p{pct:g}: {format_value(m, 's')}")
    _legend(c, legend, colors)
    c.x_axis(xs, lambda t: f"p{pcts[int(round(t))][0]:g}" if 0 <= round(t) < len(pcts) else "", label="percentile",
             ticks=[float(p) for p in positions])
    c.y_axis(ys, axis_formatter(ys.lo, ys.hi, "s"), label="latency")
    return c.render("latency")


def drift_plot(run: Run, benchmark: str, metric: str) -> str | None:
    samples = sorted((s for s in run.samples if s.benchmark == benchmark and s.metric == metric and not s.warmup),
                     key=sample_order_key)
    if len(samples) < 2:
        return None
    m = metric_of(run, benchmark, metric)
    colors = _colors(run)
    c = Canvas(width=720, left=80, height=260, title=f"{benchmark} · {metric} in run order")
    legend = _reserve_legend(c, [v.name for v in run.variants if any(s.variant == v.name for s in samples)],
                             variant_labels(run))
    xs = Scale(-0.5, len(samples) - 0.5, c.x0, c.x1)
    ys = Scale.padded([s.value for s in samples], c.y0, c.y1)
    for i, s in enumerate(samples):
        c.circle(xs(i), ys(s.value), 2.6, colors.get(s.variant, "#888"), 0.8,
                 tip=f"#{i} block {s.block} {s.variant}: {format_value(s.value, m.unit)}")
    _legend(c, legend, colors)
    c.x_axis(xs, lambda t: f"{t:g}", label="sample, in the order measured")
    c.y_axis(ys, axis_formatter(ys.lo, ys.hi, m.unit), label=metric)
    return c.render("drift")


_Legend = list[tuple[float, float, str, str]]


def _reserve_legend(c: Canvas, names: Sequence[str], labels: Labels | None = None) -> _Legend:
    """Lay the legend out in rows across the plot's width (each entry measured) and move the plot
    area down to make room; call before any scale is made from `c.y1`.

    Returns (x, y, name, text) per entry."""
    layout: _Legend = []
    x, y = c.x0 + 6, 17.0
    for name in names:
        text = fit_width(labels(name) if labels else name, 10, _LABEL_LIMIT)
        step = 14 + text_width(text, 10) + 14
        if layout and x + step > c.x1:
            x, y = c.x0 + 6, y + 14
        layout.append((x, y, name, text))
        x += step
    c.top = max(c.top, int(y) + 11)
    return layout


def _legend(c: Canvas, layout: _Legend, colors: dict[str, str]) -> None:
    for x, y, name, text in layout:
        c.rect(x, y - 9, 10, 10, colors.get(name, "#888"))
        c.text(x + 14, y, text, size=10, tip=name)
