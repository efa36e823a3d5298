"""Plain-text tables for the commands that read saved results (`compare`, `history`).

Columns are padded to their widest cell and trailing blanks trimmed, so the output pastes into a
tracker as it looks in the terminal. The commands gather the data; the layout lives here.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from pairbench.model import Comparison, Run
from pairbench.report.format import format_change, format_ci_percent, format_percent, format_ratio, format_value
from pairbench.report.summary import FIGURES_CAPTION, exact_change, figures, metric_of, percent_shown, spreads, value_text
from pairbench.report.wording import reached_label

__all__ = ["format_table", "render_unpaired_table", "render_many_table", "geomean_rows", "stored_geomeans",
           "GEOMEANS_KEY", "render_history_runs", "render_trend", "format_when"]


GEOMEANS_KEY = "geomeans"
"""Metadata key under which `compare` of three or more sides stores its geomean rows."""


def format_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows (the first is the header) as left-aligned columns, one line each."""
    if not rows:
        return ""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows) + "\n"


def format_when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def render_unpaired_table(merged: Run, comparisons: Sequence[Comparison], labels: tuple[str, str],
                          confidence: float) -> str:
    """`pairbench compare`: each benchmark and metric with the two figures the change compares
    (`FIGURES_CAPTION`), the change, its CI and verdict."""
    spread = spreads(merged)
    rows = [("benchmark", "metric", labels[0], labels[1], "change", f"{round(confidence * 100)}% CI", "n", "verdict")]
    for c in comparisons:
        m = metric_of(merged, c.benchmark, c.metric)
        sa, sb = spread.get((c.benchmark, c.metric, labels[0])), spread.get((c.benchmark, c.metric, labels[1]))
        a = c.baseline_value if c.baseline_value is not None else (sa.median if sa else None)
        b = c.candidate_value if c.candidate_value is not None else (sb.median if sb else None)
        rows.append((c.benchmark, c.metric, format_value(a, m.unit) if a is not None else "–",
                     format_value(b, m.unit) if b is not None else "–", _change(c, m.unit),
                     _ci(c), str(c.n), _verdict(c)))
    return format_table(rows) + _caption(comparisons)


def _ci(c: Comparison) -> str:
    """The CI as percent changes; too few runs for the header's level: the interval at the level they reach."""
    if not percent_shown(c):
        return "–"
    if c.verdict == "insufficient" and c.reached_ci is not None and c.reached_confidence is not None:
        return f"{format_ci_percent(c.reached_ci)} at {reached_label(c.reached_confidence)}"
    return format_ci_percent(c.ci)


def _caption(comparisons: Sequence[Comparison]) -> str:
    return f"{FIGURES_CAPTION}\n" if comparisons else ""


def _change(c: Comparison, unit: str) -> str:
    """`+10.2%`; an exact count's difference beside its percent; `–` beside a zero baseline."""
    if c.exact and c.delta is not None:
        return exact_change(c, unit)
    if percent_shown(c):
        assert c.ratio is not None
        return format_change(c.ratio)
    return f"{c.delta:+g}" if c.delta is not None else "–"


def _verdict(c: Comparison) -> str:
    return f"{c.verdict} (exact)" if c.exact else c.verdict


def render_many_table(merged: Run, comparisons: Sequence[Comparison], labels: Sequence[str],
                      geomeans: Mapping[str, tuple[int, Mapping[str, float]]]) -> str:
    """`pairbench compare A B C...`: a column of figures per side (`figures`), each other side's change against
    the first with its verdict, and a geomean row per metric (benchstat's layout).

    Args:
        merged: one variant per side, named by `labels` (the first is the reference).
        comparisons: each side against the first.
        geomeans: metric -> (benchmarks, label -> geometric mean of the figures).
    """
    spread = spreads(merged)
    shown = figures(merged, comparisons)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons}
    base = labels[0]
    header = ["benchmark", "metric", base]
    for label in labels[1:]:
        header += [label, f"vs {base}"]
    rows = [header]
    for bench in merged.benchmarks:
        for m in bench.metrics:
            if m.direction == "none" or not any((bench.name, m.name, x) in by_key for x in labels[1:]):
                continue
            row = [bench.name, m.name, value_text(shown, spread, (bench.name, m.name, base), m.unit)]
            for label in labels[1:]:
                c = by_key.get((bench.name, m.name, label))
                row.append(value_text(shown, spread, (bench.name, m.name, label), m.unit))
                row.append(_change_cell(c, m.unit))
            rows.append(row)
    rows += geomean_rows(merged, labels, geomeans)
    return format_table(rows) + _caption(comparisons)


def geomean_rows(merged: Run, labels: Sequence[str],
                 geomeans: Mapping[str, tuple[int, Mapping[str, float]]]) -> list[list[str]]:
    """The geomean rows of `render_many_table` (and of the Markdown and HTML of `compare`):
    `geomean (N)`, the metric, the first side's value, then each other side's value and change."""
    base = labels[0]
    rows = []
    for metric, (count, values) in geomeans.items():
        units = {m.unit for b in merged.benchmarks for m in b.metrics if m.name == metric}
        ratio_only = len(units) != 1  # a geomean of ratios across metrics: no value to show
        unit = units.pop() if len(units) == 1 else ""
        row = [f"geomean ({count})", metric, "1" if ratio_only else format_value(values[base], unit)]
        for label in labels[1:]:
            ratio = values[label] / values[base]
            row += [format_ratio(ratio) if ratio_only else format_value(values[label], unit),
                    format_change(ratio)]
        rows.append(row)
    return rows


def stored_geomeans(run: Run) -> dict[str, tuple[int, dict[str, float]]]:
    """The geomeans `compare` stored in the merged run's metadata (empty for any other run)."""
    stored = run.metadata.get(GEOMEANS_KEY) or {}
    return {metric: (int(g["benchmarks"]), {str(k): float(v) for k, v in g["values"].items()})
            for metric, g in stored.items()}


def _change_cell(c: Comparison | None, unit: str = "") -> str:
    """`+10.2% slower`, `~ same`: the change and the comparison's verdict."""
    if c is None:
        return "–"
    return f"{_change(c, unit)} {_verdict(c)}"


def render_history_runs(runs: Sequence[Any]) -> str:
    """`pairbench history`: recorded runs, one line each (runs as the history store lists them)."""
    rows = [("id", "recorded", "commit", "host", "status", "source", "variants", "benchmarks", "samples")]
    for r in runs:
        benches = ", ".join(r.benchmarks)
        rows.append((str(r.id), format_when(r.recorded_at), r.git_commit[:10], r.hostname, r.status, r.source,
                     ", ".join(r.variants)[:40], benches if len(benches) <= 50 else benches[:49] + "…", str(r.samples)))
    return format_table(rows)


def render_trend(points: Sequence[Any], change_points: Mapping[int, Any], unit: str) -> str:
    """`pairbench history --benchmark`: a metric's median per run, its step from the previous run,
    and the change points found (index -> an object with `change` and `z`)."""
    rows = [("run", "recorded", "commit", "n", "median", "vs previous", "")]
    prev = None
    for i, p in enumerate(points):
        med = p.median
        change = format_change(med / prev) if prev else ""
        cp = change_points.get(i)
        mark = f"<- change point: {format_percent(cp.change)} (z={cp.z:.1f})" if cp is not None else ""
        commit = (p.variant_commit or p.git_commit)[:10]
        rows.append((str(p.run_id), format_when(p.recorded_at), commit, str(len(p.values)), format_value(med, unit),
                     change, mark))
        prev = med
    return format_table(rows)
