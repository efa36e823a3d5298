"""The suite summary: per candidate, the geometric mean of its primary-metric ratios across the
benchmarks, with a block-bootstrap CI (computed once by analysis.suite_summary and stored in the
Run, METHOD.md §6; rendered here, never recomputed)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from pairbench.model import Run

__all__ = ["render_suite_summary"]


def render_suite_summary(run: Run, console: Console) -> None:
    """Print the summaries the analysis stored (made when the run has two or more benchmarks)."""
    rows = run.summaries
    if not rows:
        return
    from pairbench.report.format import format_change, format_ratio

    confidence = rows[0].confidence
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
                      format_change(r.ratio), str(r.benchmarks))
    console.print(table)
    console.print(f"  geometric mean of each candidate's primary-metric ratios over the benchmarks; CI from a bootstrap "
                  f"over blocks ({rows[0].blocks} blocks), keeping benchmarks measured "
                  "in the same block together; rates are inverted so every ratio reads lower = better")
