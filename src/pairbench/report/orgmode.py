"""An Emacs org-mode report (hyperfine's --export-orgmode): the Markdown table's rows, per kind.

The rows are `report.asciidoc.summary_tables`, shared by the markup formats.
"""

from __future__ import annotations

from pairbench.model import Run
from pairbench.report.asciidoc import summary_tables

__all__ = ["render_orgmode"]


def _cell(text: str) -> str:
    """A cell org-mode keeps in its column: `|` is written as the entity `\\vert{}`."""
    return " ".join(text.split()).replace("|", "\\vert{}")


def render_orgmode(run: Run, *, title: str = "pairbench report") -> str:
    """The report as org-mode: a title, the status, and one table per kind."""
    out = [f"#+TITLE: {_cell(title)}", "", f"Status: {_cell(run.status)}"]
    if run.variants:
        out[-1] += f" · Baseline: {_cell(run.baseline.name)}"
    out.append("")
    for table in summary_tables(run):
        out += [f"* {_cell(table.title)}", ""]
        out.append("| " + " | ".join(_cell(h) for h in table.header) + " |")
        out.append("|" + "+".join("-" * (len(_cell(h)) + 2) for h in table.header) + "|")
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
        out += ["", _cell(table.caption), ""]
    return "\n".join(out).rstrip() + "\n"
