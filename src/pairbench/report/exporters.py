"""The exporter table: every output format is one function of the same signature, and one writer
puts its text in a file or on standard output.

    exporter(run, out, options) -> None      writes the format of a finished Run to the text stream

A new format is one function here, one line in `EXPORTERS` and its name in report/formats.py
`FORMATS` (the one list of names, which the commands' flags are made from; docs/architecture.md).
The writer is the only place that opens a report file, and it never writes over an input.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TextIO

from pairbench.errors import UserError
from pairbench.model import Run

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["ExportOptions", "Exporter", "EXPORTERS", "export", "render_export", "write_text"]


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

    render_terminal(run, Console(file=out, width=options.width), after=options.after)


def _markdown(run: Run, out: TextIO, options: ExportOptions) -> None:
    from pairbench.report.markdown import render_markdown

    out.write(render_markdown(run, title=options.title))


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


EXPORTERS: Mapping[str, Exporter] = {
    "terminal": _terminal,
    "markdown": _markdown,
    "html": _html,
    "json": _json,
    "csv": _csv,
    "samples-csv": _samples_csv,
    "asciidoc": _asciidoc,
    "orgmode": _orgmode,
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


def export(run: Run, fmt: str, target: str, options: ExportOptions = ExportOptions(),
           inputs: Sequence[str] = ()) -> None:
    """Write one format of `run` to `target` ('-' for standard output), never over one of `inputs`."""
    write_text(target, render_export(run, fmt, options), inputs)


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
