"""The suite summary: per candidate, the geometric mean of its primary-metric ratios across the
benchmarks, with a block-bootstrap CI (computed by analysis.suite_summary, METHOD.md §6)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from pairbench.model import Run

__all__ = ["render_suite_summary"]


def render_suite_summary(run: Run, console: Console) -> None:
    """Print the summary when the run has two or more benchmarks (with one it repeats the table)."""
    if len(run.benchmarks) < 2 or not run.comparisons:
        return
    from pairbench.analysis import suite_summary
    from pairbench.report.units import format_percent, format_ratio

    confidence = float((run.metadata.get("options") or {}).get("confidence") or 0.95)
    rows = suite_summary(run, run.comparisons, confidence=confidence)
    if not rows:
        return
    level = int(round(confidence * 100))
    table = Table(title="suite summary",
                  title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("candidate")
    table.add_column(f"vs {rows[0].baseline}", justify="right")
    table.add_column(f"{level}% CI", justify="right")
    table.add_column("change", justify="right")
    table.add_column("benchmarks", justify="right")
    for r in rows:
        table.add_row(r.candidate, format_ratio(r.ratio), f"[{format_ratio(r.ci[0])}, {format_ratio(r.ci[1])}]",
                      format_percent(r.ratio - 1), str(r.benchmarks))
    console.print(table)
    console.print(f"  geometric mean of each candidate's primary-metric ratios over the benchmarks; CI from a bootstrap "
                  f"over blocks ({rows[0].blocks} blocks), keeping benchmarks measured "
                  "in the same block together; rates are inverted so every ratio reads lower = better")
