"""The sweep report: per benchmark and metric, one row per sweep value, the best value, a trend.

Renders the SweepTables the analysis made (analysis.sweep): each row's value is the main
table's figure (the comparison's `candidate_value`, the baseline's `baseline_value`), and its
ratio, CI and verdict are the run's Comparison of that point with the baseline, so a figure or a
verdict here never differs from the same comparison in the main table.

The cells and sentences are made here once (`sweep_title`, `sweep_header`, `sweep_cells`,
`sweep_lines`); the terminal, Markdown and HTML only lay them out, so every format shows the
same numbers.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pairbench.analysis.replicates import STATISTIC
from pairbench.model import Run
from pairbench.summaries import SweepRow, SweepTable
from pairbench.report.format import format_exact_percent, format_percent, format_ratio, format_value
from pairbench.report.summary import FIGURES_CAPTION, figure_text

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["render_sweeps", "sweep_title", "sweep_header", "sweep_cells", "sweep_lines", "BEST_MARK"]

_CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
BEST_MARK = " ★"
"""Appended to the verdict of the best point."""


def _correction_line(t: SweepTable) -> str:
    band = f"noise band ±{t.threshold * 100:g}%"
    if t.correction in _CORRECTION_NAMES:
        return (f"ratios, CIs and verdicts are the run's comparisons, as in the main table: "
                f"{_CORRECTION_NAMES[t.correction]}-corrected across all {t.family} primary comparisons of the run, "
                f"CIs adjusted; {band}")
    return (f"ratios, CIs and verdicts are the run's comparisons, as in the main table "
            f"(not corrected for multiplicity); {band}")


def sweep_title(t: SweepTable) -> str:
    """`loop · time · app`: the benchmark, the metric and the swept base variant."""
    return f"{t.benchmark} · {t.metric.name} · {t.base}"


def sweep_header(t: SweepTable) -> list[str]:
    """The column heads: the sweep parameters, the value, the ratio, the CI, the verdict."""
    level = int(round(t.confidence * 100))
    return [*t.params, f"{t.metric.name} (value)", f"ratio to {t.baseline}",
            f"{level}% CI" + (" (adj.)" if t.correction != "none" else ""), "verdict"]


def _figure(t: SweepTable, r: SweepRow) -> float | None:
    """The row's figure: its comparison's `candidate_value`, the baseline's `baseline_value`."""
    if r.comparison is not None:
        return r.comparison.candidate_value
    if r.variant != t.baseline:
        return None
    return next((x.comparison.baseline_value for x in t.rows if x.comparison is not None), None)


def sweep_cells(t: SweepTable) -> list[list[str]]:
    """One row of text cells per sweep point, in the order of `sweep_header`."""
    rows = []
    for r in t.rows:
        cells = [r.params.get(p, "") for p in t.params]
        cells.append(figure_text(_figure(t, r), r.spread, t.metric.unit))
        cells.append(format_ratio(r.ratio))
        cells.append(f"[{format_ratio(r.ci[0])}, {format_ratio(r.ci[1])}]" if r.ci else "–")
        mark = BEST_MARK if r.variant == t.best else ""
        cells.append((r.verdict if r.comparison is not None or r.variant == t.baseline else "–") + mark)
        rows.append(cells)
    return rows


def sweep_lines(t: SweepTable) -> list[str]:
    """The sentences under the table: the correction, the best point against the runner-up, the trends."""
    level = int(round(t.confidence * 100))
    lines = [_correction_line(t), f"{FIGURES_CAPTION}; ± half the interquartile range", _best_sentence(t)]
    for fit in t.trends:
        lo, hi = fit.ci if fit.ci else (float("nan"), float("nan"))
        where = f" ({fit.held})" if fit.held else ""
        lines.append(
            f"trend over {fit.parameter}{where}: {_per_unit(fit.percent_per_unit)} {t.metric.name} per unit, "
            f"{level}% CI [{_per_unit((math.exp(lo) - 1) * 100)}, {_per_unit((math.exp(hi) - 1) * 100)}], "
            f"R² {fit.r_squared:.2f} over {fit.n} values (fit of ln {t.metric.name} (value) on {fit.parameter})"
        )
    return lines


def render_sweeps(run: Run, console: Console) -> None:
    """Print the sweep tables the analysis stored in the run."""
    from rich.table import Table

    for t in run.sweeps:
        header = sweep_header(t)
        table = Table(title=f"sweep: {sweep_title(t)}", title_justify="left", show_edge=False, pad_edge=False)
        for i, head in enumerate(header):
            table.add_column(head, justify="left" if i == len(header) - 1 else "right")
        for cells in sweep_cells(t):
            table.add_row(*cells)
        console.print(table)
        for line in sweep_lines(t):
            console.print("  " + line)
        console.print()


def _pct(x: float) -> str:
    """A percent (7.4 -> `+7.4%`), by the one rule of report/format.py."""
    return format_percent(x / 100)


def _per_unit(x: float) -> str:
    """A percent per unit of a parameter, which over large values (sizes, counts) is tiny: two
    significant figures below 0.05% (`+0.00051%`), never `0.00%` for a real slope."""
    return format_exact_percent(x / 100)


def _best_sentence(t: SweepTable) -> str:
    best = t.row(t.best) if t.best is not None else None
    if best is None or best.spread is None:
        return "best: not enough data"
    label = _label(best, t.params)
    shown = _figure(t, best)  # the table's figure, by which the best was chosen
    # `★ best:` says what the mark on its row is
    text = (f"{BEST_MARK.strip()} best: {label} ({format_value(shown, t.metric.unit)})" if shown is not None
            else f"{BEST_MARK.strip()} best: {label} ({STATISTIC} {format_value(best.spread.median, t.metric.unit)})")
    if t.runner_up is None:
        return text
    other = _label(t.row(t.runner_up), t.params)
    pr = t.best_vs_runner_up
    ci = pr.verdict_ci if pr is not None else None  # the interval its verdict rests on, as the table's
    if pr is None or ci is None or pr.ratio is None:
        return text + f"; runner-up {other}: too few paired blocks to tell them apart"
    level = f"{int(round(t.confidence * 100))}% CI" + (" (adj.)" if pr.adjusted_ci is not None else "")
    worse = "higher" if t.metric.direction == "lower" else "lower"
    change = (pr.ratio - 1) * 100
    span = f"[{_pct((ci[0] - 1) * 100)}, {_pct((ci[1] - 1) * 100)}]"
    if t.distinguishable:
        return (text + f"; distinguishable from the runner-up {other}, whose {t.metric.name} is {_pct(change)} "
                f"({level} {span}, {pr.method or 'paired'} over {pr.n} blocks; {worse} is worse)")
    return (text + f"; NOT distinguishable from the runner-up {other}: {_pct(change)}, "
            f"{level} {span} includes 0 ({pr.method or 'paired'} over {pr.n} blocks)")


def _label(row: SweepRow, params: tuple[str, ...]) -> str:
    inner = ", ".join(f"{p}={row.params[p]}" for p in params if p in row.params)
    return inner or row.variant
