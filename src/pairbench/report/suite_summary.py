"""The suite summary: per candidate, the geometric mean of its primary-metric ratios across the
benchmarks, with a block-bootstrap CI (computed once by analysis.suite_summary and stored in the
Run, METHOD.md §6; rendered here, never recomputed).

The cells and the note are made here once (`summary_header`, `summary_cells`, `summary_note`);
the terminal, Markdown and HTML lay them out, so every format shows the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pairbench.model import Run
from pairbench.summaries import SuiteSummary
from pairbench.report.format import format_change, format_ratio
from pairbench.report.wording import reached_label

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["render_suite_summary", "summary_header", "summary_cells", "summary_note", "SUMMARY_TITLE"]

SUMMARY_TITLE = "suite summary"


def summary_header(rows: Sequence[SuiteSummary]) -> list[str]:
    """Column heads: the candidate, its geometric-mean ratio to the baseline, the CI, the change, the count."""
    level = int(round(rows[0].confidence * 100))
    return ["candidate", f"vs {rows[0].baseline}", f"{level}% CI", "change", "benchmarks"]


def summary_cells(rows: Sequence[SuiteSummary]) -> list[list[str]]:
    """One row of text cells per candidate, in the order of `summary_header`."""
    return [[r.candidate, format_ratio(r.ratio), _ci(r), format_change(r.ratio), str(r.benchmarks)] for r in rows]


def _ci(r: SuiteSummary) -> str:
    """`[0.84, 0.89]`; with too few blocks for the header's level, `[...] at 87.5%`, the level reached."""
    text = f"[{format_ratio(r.ci[0])}, {format_ratio(r.ci[1])}]"
    return text if r.reached_confidence is None else f"{text} at {reached_label(r.reached_confidence)}"


def summary_note(rows: Sequence[SuiteSummary]) -> str:
    """What the figures are: which mean, which bootstrap, which way the ratios read."""
    ci = (f"CI from a bootstrap over blocks ({rows[0].blocks} blocks), keeping benchmarks measured in the same "
          "block together" if rows[0].reached_confidence is None else
          f"CI: the signed-rank interval of the per-block suite differences ({rows[0].blocks} blocks are too few "
          "for a bootstrap or the header's level)")
    out = (f"geometric mean of each candidate's primary-metric ratios over the benchmarks; {ci}; "
           "rates are inverted so every ratio reads lower = better")
    left = sorted({name for r in rows for name in r.left_out})
    if left:
        out += (f"; {', '.join(left)}: left out (a value of 0 or less: compared by its means, "
                "which a geometric mean cannot hold)")
    return out


def render_suite_summary(run: Run, console: Console) -> None:
    """Print the summaries the analysis stored (made when the run has two or more benchmarks)."""
    rows = run.summaries
    if not rows:
        return
    from rich.table import Table

    table = Table(title=SUMMARY_TITLE, title_justify="left", show_edge=False, pad_edge=False)
    for i, head in enumerate(summary_header(rows)):
        table.add_column(head, justify="left" if i == 0 else "right")
    for cells in summary_cells(rows):
        table.add_row(*cells)
    console.print(table)
    console.print("  " + summary_note(rows))
