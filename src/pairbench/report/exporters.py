"""The exporter table: every output format is one function of the same signature, and one writer
puts its text in a file or on standard output.

    exporter(run, out, options) -> None      writes the format of a finished Run to the text stream

A new format is one function here, one line in `EXPORTERS` and its name in report/formats.py
`FORMATS` (the one list of names, which the commands' flags are made from; docs/architecture.md).
The writer is the only place that opens a report file, and it never writes over an input.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TextIO

from pairbench.errors import UserError
from pairbench.model import Run, Variant

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["ExportOptions", "Exporter", "EXPORTERS", "SPLITS", "export", "render_export", "tagged", "write_text"]


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """What a format may need besides the run."""

    title: str = "pairbench report"
    """Heading of Markdown and HTML reports."""
    after: tuple[Callable[[Run, "Console"], None], ...] = ()
    """Terminal views printed after the tables (sweep tables, the suite summary)."""
    width: int | None = None
    """Terminal width when the output is not a terminal (None: rich's own choice)."""


Exporter = Callable[[Run, TextIO, ExportOptions], None]


def _terminal(run: Run, out: TextIO, options: ExportOptions) -> None:
    from rich.console import Console

    from pairbench.report.terminal import render_terminal

    after = options.after
    if run.profiles:  # a profiled run (--profile): where the difference is, under the verdicts
        from pairbench.report.profiles import render_where

        after = (*after, render_where)
    render_terminal(run, Console(file=out, width=options.width), after=after)


def _markdown(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.markdown import render_markdown

    out.write(render_markdown(run, title=options.title))


def _markdown_table(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.markdown_table import render_markdown_table

    out.write(render_markdown_table(run))


def _html(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.html import render_html

    out.write(render_html(run, title=options.title))


def _asciidoc(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.asciidoc import render_asciidoc

    out.write(render_asciidoc(run, title=options.title))


def _orgmode(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.orgmode import render_orgmode

    out.write(render_orgmode(run, title=options.title))


def _json(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.store.runfile import dumps_run

    out.write(dumps_run(run))


CSV_COLUMNS: tuple[str, ...] = ("benchmark", "variant", "metric", "value", "block", "replicate", "iteration",
                                "warmup", "time", "machine")


def _csv(run: Run, out: TextIO, options: ExportOptions) -> None:
    """hyperfine's `--export-csv`: one summary row per command, times in seconds."""
    from pairbench.report.command import write_summary_csv

    write_summary_csv(run, out)


def _samples_csv(run: Run, out: TextIO, options: ExportOptions) -> None:
    """Every sample, one per row (what hyperfine's summary leaves out)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in run.samples:
        writer.writerow([s.benchmark, s.variant, s.metric, repr(s.value), s.block, s.replicate, s.iteration,
                         int(s.warmup), s.time, s.machine])


def _pyperf(run: Run, out: TextIO, options: ExportOptions) -> None:
    import sys

    from pairbench.report.pyperf_export import left_out, render_pyperf

    for line in left_out(run):  # the file stays readable; the reader learns what it lacks
        print(f"warning: {line}", file=sys.stderr)
    out.write(render_pyperf(run))


def _bmf(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.trackers import render_bmf

    out.write(render_bmf(run))


def _github_benchmark(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.trackers import render_github_benchmark

    out.write(render_github_benchmark(run))


EXPORTERS: Mapping[str, Exporter] = {
    "terminal": _terminal,
    "markdown": _markdown,
    "markdown-table": _markdown_table,
    "html": _html,
    "json": _json,
    "csv": _csv,
    "samples-csv": _samples_csv,
    "asciidoc": _asciidoc,
    "orgmode": _orgmode,
    "pyperf": _pyperf,
    "bmf": _bmf,
    "github-benchmark": _github_benchmark,
}
"""Every output format by name, in the order of report/formats.py `FORMATS`."""


def render_export(run: Run, fmt: str, options: ExportOptions = ExportOptions()) -> str:
    """The text of one format (an unknown name lists the valid ones)."""
    exporter = EXPORTERS.get(fmt)
    if exporter is None:
        raise UserError(f"unknown report format {fmt!r}; valid: {', '.join(EXPORTERS)}")
    buffer = io.StringIO()
    exporter(run, buffer, options)
    return buffer.getvalue()


def _only_variant(run: Run, variant: Variant) -> Run:
    return dataclasses.replace(run, variants=[variant], samples=[s for s in run.samples if s.variant == variant.name],
                               comparisons=[], sweeps=[], summaries=[])


def _per_variant(run: Run) -> list[tuple[str, Run]]:
    """pyperf's `compare_to` compares files: one file per variant, tagged with its name."""
    if len(run.variants) < 2:
        return [("", run)]
    tags: list[str] = []
    for v in run.variants:
        tag = re.sub(r"[^A-Za-z0-9._=+-]+", "_", v.name).strip("._") or "variant"
        tags.append(tag if tag not in tags else f"{tag}_{len(tags) + 1}")
    return [(tag, _only_variant(run, v)) for tag, v in zip(tags, run.variants)]


def _by_direction(run: Run) -> list[tuple[str, Run]]:
    """github-action-benchmark reads a file as one direction: smaller-is-better in the file, bigger-is-
    better (rates) in the file tagged `bigger`, written only when the run has such a metric."""
    def keep(direction: str) -> Run:
        benches = [dataclasses.replace(b, metrics=tuple(m for m in b.metrics if m.direction == direction))
                   for b in run.benchmarks]
        return dataclasses.replace(run, benchmarks=benches)

    bigger = keep("higher")
    return [("", keep("lower"))] + ([("bigger", bigger)] if any(b.metrics for b in bigger.benchmarks) else [])


SPLITS: Mapping[str, Callable[[Run], list[tuple[str, Run]]]] = {
    "pyperf": _per_variant,
    "github-benchmark": _by_direction,
}
"""Formats a file holds only part of: (tag, part) per file; the tag goes before the file's suffix."""


def tagged(target: str, tag: str) -> str:
    """`r.json`, `head` -> `r.head.json` (no tag: the target itself)."""
    if not tag:
        return target
    path = Path(target)
    return str(path.with_name(f"{path.stem}.{tag}{path.suffix}")) if path.suffix else f"{target}.{tag}"


def export(run: Run, fmt: str, target: str, options: ExportOptions = ExportOptions(),
           inputs: Sequence[str] = ()) -> None:
    """Write one format of `run` to `target` ('-' for standard output), never over one of `inputs`;
    a format of `SPLITS` to one file per part (a stream, such as standard output, gets the whole text)."""
    split = SPLITS.get(fmt)
    if split is None or target == "-" or (os.path.exists(target) and not os.path.isfile(target)):
        # standard output, a FIFO or a device: the one stream gets the whole run's text
        write_text(target, render_export(run, fmt, options), inputs)
        return
    for tag, part in split(run):
        write_text(tagged(target, tag), render_export(part, fmt, options), inputs)


def write_text(target: str, text: str, inputs: Sequence[str] = ()) -> None:
    """The one writer of reports: standard output for '-', else the path through store/output.py
    (regular files replaced atomically, FIFOs and devices written through); never over an input."""
    from pairbench.store.output import open_output, resolve_target

    where = resolve_target(target)
    for src in inputs:
        try:
            if src and where.path is not None and where.path.exists() and os.path.samefile(where.path, src):
                raise UserError(f"{target} is the input file; give another path for the report")
        except OSError:
            pass
    with open_output(where) as fh:
        fh.write(text)
