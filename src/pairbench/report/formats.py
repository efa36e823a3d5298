"""The names of the report formats: the one list, light enough for `--help` to read.

The exporter table (report/exporters.py `EXPORTERS`) has one function per name here, in this
order; the measuring commands make their `--export-FORMAT FILE` flags from `EXPORTED` and
`pairbench report` its `--format` choices and flags from `FILE_FORMATS`, without importing report
code. tests/unit/test_word_lists.py fails when the table, the flags or the docs drift from it.
"""

from __future__ import annotations

__all__ = ["FORMATS", "EXPORTED", "RUN_FILE", "FILE_FORMATS"]

RUN_FILE = "json"
"""The run file's format: a measuring command saves it while measuring (`--export-json`, a run setting)."""

FORMATS: dict[str, str | None] = {
    # format -> the help of its `--export-FORMAT FILE` flag on the measuring commands (None: no such flag)
    "terminal": None,  # what a command prints
    "markdown": "also write a Markdown report ('-' for standard output)",
    "html": "also write an HTML report with plots",
    RUN_FILE: None,
    "csv": "also write hyperfine's summary CSV: one row per command, times in seconds",
    "samples-csv": "also write every sample as CSV, one per row",
    "asciidoc": "also write the results table as AsciiDoc",
    "orgmode": "also write the results table as an Emacs org-mode table",
}
"""Every report format by name, in the exporter table's order."""

EXPORTED: tuple[str, ...] = tuple(name for name, help in FORMATS.items() if help)
"""The formats a measuring command also writes after its terminal report (`--export-FORMAT FILE`)."""

FILE_FORMATS: tuple[str, ...] = (*EXPORTED, RUN_FILE)
"""The formats a saved run can be written as (`pairbench report --format F`, `--export-F FILE`)."""
