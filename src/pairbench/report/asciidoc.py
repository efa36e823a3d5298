"""An AsciiDoc report (hyperfine's --export-asciidoc): the rows of the Markdown table, per kind.

The rows come from `summary_rows`, which builds the cells of the Markdown report's table (the value,
change, ratio, the CI the verdict rests on, n, verdict) as plain text; the org-mode exporter uses
it too, so the markup formats never disagree about a figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.model import Comparison, Run
from pairbench.report.kinds import kind_title, kinds_in_order
from pairbench.report.captions import figures_caption
from pairbench.report.summary import FIGURES_CAPTION, change_text, ci_header, ci_mixed, ci_text, figures, ratio_text, spreads, value_rows
from pairbench.report.wording import verdict_word

__all__ = ["SummaryTable", "summary_tables", "render_asciidoc"]

COLUMNS = ("Benchmark", "Metric", "Variant", "Value", "Change", "Ratio", "{ci}", "n", "Verdict")
"""The Markdown report's columns; `{ci}` is the CI header (`95% CI`, `95% CI (adj.)`)."""


@dataclass(frozen=True, slots=True)
class SummaryTable:
    """One kind's table: a title, the header and the rows of plain-text cells."""

    title: str
    """The kind's title (`Command benchmarks`)."""
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = FIGURES_CAPTION
    """What the values are and what the CI header's mark means (`figures_caption`)."""


def summary_tables(run: Run) -> list[SummaryTable]:
    """A table per benchmark kind, with the Markdown report's rows (run.variants' order)."""
    comps = list(run.comparisons)
    kinds = {b.name: b.kind for b in run.benchmarks}
    tables = []
    for kind in kinds_in_order(b.kind for b in run.benchmarks):
        own = [c for c in comps if kinds.get(c.benchmark, "command") == kind]
        header = tuple(ci_header(own) if col == "{ci}" else col for col in COLUMNS)
        tables.append(SummaryTable(kind_title(kind), header, tuple(_rows(run, kind, own)), figures_caption(run, own)))
    return tables


def _rows(run: Run, kind: str, comparisons: list[Comparison]) -> list[tuple[str, ...]]:
    spread = spreads(run)
    shown = figures(run, comparisons)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons}
    mixed = ci_mixed(comparisons)
    rows: list[tuple[str, ...]] = []
    for b in (b for b in run.benchmarks if b.kind == kind):
        for m in b.metrics:
            for row in value_rows(run, b.name, m, by_key, shown, spread):
                c = row.comparison
                rows.append((
                    b.name, m.name, row.variant + (" (baseline)" if row.baseline else ""),
                    row.value, change_text(c, m.unit),
                    ratio_text(c) if c is not None else "", ci_text(c, mixed) if c is not None else "",
                    row.n,
                    verdict_word(c.verdict, m) + (" (exact)" if c.exact else "") if c is not None else "",
                ))
    return rows


def _cell(text: str) -> str:
    """A cell AsciiDoc keeps in its column and shows literally: `|` and attribute references escaped."""
    return " ".join(text.split()).replace("|", "\\|").replace("{", "\\{")


def render_asciidoc(run: Run, *, title: str = "pairbench report") -> str:
    """The report as AsciiDoc: a heading, the status, and one table per kind."""
    out = [f"= {_cell(title)}", "", f"Status: {_cell(run.status)}"]
    if run.variants:
        out[-1] += f" · Baseline: {_cell(run.baseline.name)}"
    out.append("")
    for table in summary_tables(run):
        out += [f"== {_cell(table.title)}", "", f'[cols="{",".join(["<"] * 3 + [">"] * 4 + ["<", "<"])}",options="header"]',
                "|==="]
        out.append(" ".join(f"| {_cell(h)}" for h in table.header))
        out += [" ".join(f"| {_cell(c)}" for c in row) for row in table.rows]
        out += ["|===", "", _cell(table.caption), ""]
    return "\n".join(out).rstrip() + "\n"
