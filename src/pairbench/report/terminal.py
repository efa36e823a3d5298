"""The terminal table: per benchmark, each variant's figure (the values the ratio compares) and
spread, the ratio to the baseline with its CI and the verdict, then the verdicts in words and the
noise warnings."""

from __future__ import annotations

import io
from typing import Callable, Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pairbench.analysis.replicates import replicate_values, spread_of
from pairbench.model import Benchmark, Comparison, Metric, Notice, Run
from pairbench.report.captions import SPREAD_CAPTION, table_caption
from pairbench.report.escape import visible
from pairbench.report.summary import (
    FIGURES_CAPTION,
    ci_header,
    ci_mixed,
    ci_text,
    exact_change,
    figure_text,
    metric_of,
    ratio_text,
    sentence_of,
    spread_text,
)
from pairbench.report.wording import verdict_word

__all__ = ["render_terminal", "variant_summary", "print_table", "table_title", "VERDICT_STYLE", "VALUES_CAPTION",
           "INFO_KINDS", "SECONDARY_COMMAND_METRICS"]

VALUES_CAPTION = FIGURES_CAPTION + "; " + SPREAD_CAPTION
"""Says which statistic the value columns are, and the spread beside them (`table_caption` leaves the
spread out of a table that shows none, and adds the marks a table uses)."""

SECONDARY_COMMAND_METRICS = frozenset({"user", "sys", "rss", "exit_code"})
"""The command kind's metrics beside its primary `time` (its SECONDARY_METRICS: a report reads no
runner; tests/unit/test_word_lists.py checks the two agree): with sentences for the primary metric
only, theirs are left out."""

# Notices that explain what happened rather than warn about the results.
INFO_KINDS = frozenset({"adaptive", "budget", "stop", "shim-resolved", "machines", "threshold-auto", "instructions",
                        "shell", "no-shell", "steady-state",
                        "stats:steady-state", "sample-plan"})

VERDICT_STYLE = {  # the verdict's colour, in the table and its sentence
    "faster": "bold green",
    "slower": "bold red",
    "same": "cyan",
    "inconclusive": "yellow",
    "exact": "",
    "insufficient": "dim",
}


def variant_summary(run: Run, bench: Benchmark, metric: Metric, variant: str, value: float | None = None) -> str:
    """`12.3 ms ± 1.4%`: the figure beside the ratio (`value`; the median of the per-block values
    without one) and half the interquartile range."""
    values = list(replicate_values(run, bench.name, metric.name).get(variant, {}).values())
    spread = spread_of(bench.name, metric.name, variant, values)
    return figure_text(value, spread, metric.unit) if value is not None else spread_text(spread, metric.unit)


def _comparison_cells(c: Comparison, metric: Metric, mixed: bool = False) -> tuple[str, str, Text]:
    if c.verdict == "exact" and c.delta is not None:  # a run file before version 3
        return ("Δ " + exact_change(c, metric.unit), "exact", Text("exact", style=""))
    word: str = verdict_word(c.verdict, metric)
    if c.exact:
        return ("Δ " + exact_change(c, metric.unit), "exact",
                Text(f"{word} (exact)", style=VERDICT_STYLE.get(c.verdict, "")))
    if c.verdict in ("faster", "slower") and not c.meaningful:
        word += " (< δ?)"
    if c.verdict == "inconclusive" and c.more_runs:
        word += f" (+{c.more_runs})"
    return ratio_text(c), ci_text(c, mixed), Text(word, style=VERDICT_STYLE.get(c.verdict, ""))


def render_terminal(run: Run, console: Console, sentences: str = "primary",
                    after: Sequence[Callable[[Run, Console], None]] = (),
                    diagnostics: Console | None = None) -> None:
    """Print the results of `run` in full (`-v`, and the saved report; the short answer is report/brief.py).

    Args:
        run: a finished (or interrupted) run with comparisons.
        console: where to print (tests pass a fixed-width, colourless console).
        sentences: "primary" prints the verdict sentence of each benchmark's first metric and of
            custom metrics; "all" of every comparison; "none" skips them.
        after: views printed after the tables and before the warnings (sweep tables, suite summary).
        diagnostics: where warnings, notes and the run file's path go (the CLI passes stderr, so
            that `pairbench cmd ... > results.txt` holds the results only); default `console`.
    """
    for line in _executables(run):
        console.print(Text(line, style="dim"))
    for bench in run.benchmarks:
        if len(run.variants) < 2:
            # One variant (an ab-style run of one server): its figures are its kind's view; an
            # empty comparison table would only suggest that something is missing.
            console.print(Text(f"{table_title(run, bench)}: one variant ({visible(run.baseline.name)}), nothing to compare"))
            continue
        print_table(run, bench, console, table_caption(run, bench, FIGURES_CAPTION))
        if sentences != "none":
            _print_sentences(run, bench, console, sentences)
        console.print()
    for view in after:
        view(run, console)
    _print_notices(run, diagnostics or console)
    if run.status != "complete":
        console.print(Text(f"run {run.status}: results above use the samples measured so far", style="bold yellow"))
    path = run.metadata.get("run_file")
    if path:
        (diagnostics or console).print(Text(f"run file: {visible(str(path))}", style="dim"))


_Row = tuple[Text, str, Text, str, str, str, Text]
"""metric, baseline value, candidate, candidate value, ratio, CI, verdict."""


def table_title(run: Run, bench: Benchmark) -> str:
    blocks = run.metadata.get("blocks")
    title = visible(bench.name)
    if blocks is not None:
        title += f"  ({blocks} block{'' if blocks == 1 else 's'}, {bench.kind})"
    return title


def _rows(run: Run, bench: Benchmark, mixed: bool) -> list[_Row]:
    baseline = run.baseline.name
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in run.comparisons}
    rows: list[_Row] = []
    for metric in bench.metrics:
        if metric.direction == "none":
            continue
        shown_base = None
        for v in run.variants:
            if v.name == baseline:
                continue
            comp = by_key.get((bench.name, metric.name, v.name))
            ratio, ci, verdict = _comparison_cells(comp, metric, mixed) if comp else ("–", "–", Text("–"))
            # The baseline's figure once per metric, again only where a candidate compared other blocks
            base_text = variant_summary(run, bench, metric, baseline, comp.baseline_value if comp else None)
            base_cell = base_text if base_text != shown_base else ""
            shown_base = base_text
            # Names as Text: escaped, and never read as console markup ("[red]" is a valid name).
            rows.append((Text(visible(metric.name)), base_cell, Text(visible(v.name)),
                         variant_summary(run, bench, metric, v.name, comp.candidate_value if comp else None),
                         ratio, ci, verdict))
    return rows


def print_table(run: Run, bench: Benchmark, console: Console, caption: str | None = VALUES_CAPTION) -> None:
    """The table; or, when it cannot fit the width without cutting cells (a pipe is 80 columns
    wide, names can be long), one line per comparison that wraps and never truncates a verdict.

    Only `bench`'s metrics are shown (the short report passes a copy with fewer); `caption` None: none.
    """
    baseline = visible(run.baseline.name)
    title = table_title(run, bench)
    names = {m.name for m in bench.metrics}
    shown = [c for c in run.comparisons if c.benchmark == bench.name and c.metric in names]
    mixed = ci_mixed(shown)
    ci_label = ci_header(shown, _confidence(run))
    rows = _rows(run, bench, mixed)
    single = len(run.variants) == 2  # one candidate: name it in the header, not on every row
    table = Table(title=Text(title), title_justify="left", show_edge=False, pad_edge=False, expand=False,
                  caption=caption, caption_justify="left")
    # a metric's name and each figure keep their width: folded, `452329` read `45232` over `9`
    table.add_column("metric", overflow="fold", min_width=_longest_word(r[0].plain for r in rows))
    table.add_column(Text(f"{baseline} (baseline)"), justify="right", overflow="fold",
                     min_width=_longest_word(r[1] for r in rows))
    if not single:
        table.add_column("candidate", overflow="fold")
    table.add_column(rows[0][2] if single and rows else "candidate value", justify="right", overflow="fold",
                     min_width=_longest_word(r[3] for r in rows))
    table.add_column("ratio", justify="right", no_wrap=True)
    table.add_column(ci_label, justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for metric, base, cand, value, ratio, ci, verdict in rows:
        cells: list[str | Text] = [metric, base]
        if not single:
            cells.append(cand)
        cells += [value, ratio, ci, verdict]
        table.add_row(*cells)
    if _fits(table, rows, console.width):
        console.print(table)
        return
    console.print(Text(title))
    last_base = ""
    for metric, base, cand, value, ratio, ci, verdict in rows:
        last_base = base or last_base
        line = Text("  ")
        line.append_text(metric)
        line.append(" · ")
        line.append_text(cand)
        if ci == "exact":  # an exact count: its change is a difference, with no interval
            change = f"{ratio}, "
        else:
            interval = f"interval {ci}" if ci.endswith("%") else f"{ci_label} {ci}"  # too few blocks: its own level
            change = f"ratio {ratio}, {interval}, "
        line.append(f": {value} vs {last_base} ({baseline}); {change}")
        line.append_text(verdict)
        console.print(line)
    if caption:
        console.print(Text(caption))


def _fits(table: Table, rows: list[_Row], width: int) -> bool:
    """True when the table at `width` shows every ratio, CI and verdict whole (rich cuts cells with
    "…" once the columns cannot shrink further), and every metric name and figure on one line."""
    scratch = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False, highlight=False)
    scratch.print(table)
    shown = scratch.file.getvalue()  # type: ignore[attr-defined]
    lines = shown.splitlines()
    words = {w for r in rows for w in (*r[0].plain.split(), *r[1].split(), *r[3].split())}
    return (all(r[4] in shown and r[5] in shown and r[6].plain in shown for r in rows)
            and all(any(w in line for line in lines) for w in words))


def _longest_word(cells: Iterable[str]) -> int:
    return max((len(w) for cell in cells for w in cell.split()), default=1)


def _print_sentences(run: Run, bench: Benchmark, console: Console, sentences: str) -> None:
    primary = bench.metrics[0].name if bench.metrics else ""
    for c in run.comparisons:
        if c.benchmark != bench.name:
            continue
        if sentences == "primary" and c.metric != primary and c.metric in SECONDARY_COMMAND_METRICS:
            continue
        sentence = sentence_of(c, metric_of(run, c.benchmark, c.metric))
        console.print(Text(f"  {visible(c.metric)}: {visible(sentence)}", style=VERDICT_STYLE.get(c.verdict, "")))
        for note in c.notes:
            console.print(Text(f"    note: {visible(note)}", style="dim"))


def _print_notices(run: Run, console: Console) -> None:
    counts: dict[tuple[str, str, str, str, str], int] = {}
    for n in run.notices:
        key = (n.kind, n.message, n.hint, n.benchmark, n.variant)
        counts[key] = counts.get(key, 0) + 1
    for (kind, message, hint_text, bench_name, variant_name), times in counts.items():
        notice = Notice(kind, message + (f" (×{times})" if times > 1 else ""), hint_text, bench_name, variant_name)
        where = f" [{visible(notice.benchmark)}{' · ' + visible(notice.variant) if notice.variant else ''}]" \
            if notice.benchmark else ""
        hint = f" ({visible(notice.hint)})" if notice.hint else ""
        label, style = ("note", "dim") if notice.kind in INFO_KINDS else ("warning", "yellow")
        console.print(Text(f"{label}{where}: {visible(notice.message)}{hint}", style=style))


def _executables(run: Run) -> list[str]:
    """`name: /path/to/python3 (3.11.7, pyenv shim)` per variant whose executable was resolved."""
    lines = []
    for v in run.variants:
        exe = v.meta.get("executable")
        if not exe:
            continue
        facts = [str(v.meta["version"])] if v.meta.get("version") else []
        if v.meta.get("shim"):
            facts.append(f"{v.meta.get('shim_manager', 'version manager')} shim "
                         + ("unresolved" if v.meta.get("shim_unresolved") else "resolved"))
        lines.append(visible(f"{v.name}: {exe}" + (f" ({', '.join(facts)})" if facts else "")))
    return lines


def _confidence(run: Run) -> float:
    for c in run.comparisons:
        return c.confidence
    return float(run.metadata.get("options", {}).get("confidence", 0.95))
