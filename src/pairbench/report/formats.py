"""The names of the report formats: the one list, light enough for `--help` to read.

The exporter table (report/exporters.py `EXPORTERS`) has one function per name here, in this
order; the measuring commands make their `--export-FLAG FILE` flags from `EXPORTED` (the flag is
the format's name, or its hyperfine spelling in `FLAG_NAMES`), `pairbench report` takes the same
flags and any of `FILE_FORMATS` for `--format`, without importing report code.
tests/unit/test_word_lists.py fails when the table, the flags or the docs drift from it.
"""

from __future__ import annotations

__all__ = ["FORMATS", "EXPORTED", "RUN_FILE", "FILE_FORMATS", "FLAG_NAMES", "export_flag"]

RUN_FILE = "json"
"""The run file's format: a measuring command saves it while measuring (`--export-json`, a run setting)."""

FORMATS: dict[str, str | None] = {
    # format -> the help of its `--export-FLAG FILE` flag on the measuring commands (None: no such flag)
    "terminal": None,  # what a command prints
    "markdown": None,  # the full Markdown report: `pairbench report`'s default and `--markdown`
    "markdown-table": "also write hyperfine's Markdown table (Command, Mean ± σ, Min, Max, Relative) and "
                      "each verdict with its CI ('-' for standard output)",
    "html": "also write an HTML report with plots",
    RUN_FILE: None,
    "csv": "also write hyperfine's summary CSV: one row per command, times in seconds",
    "samples-csv": "also write every sample as CSV, one per row",
    "asciidoc": "also write the results table as AsciiDoc",
    "orgmode": "also write the results table as an Emacs org-mode table",
    "pyperf": "also write pyperf's JSON, one file per variant: FILE with the variant's name before its "
              "suffix (r.json: r.NAME.json), so that `python -m pyperf compare_to` reads them",
    "bmf": "also write Bencher Metric Format JSON: one benchmark per variant, BENCHMARK/VARIANT",
    "github-benchmark": "also write github-action-benchmark's JSON (tool 'customSmallerIsBetter'; metrics where "
                        "more is better go to FILE with '.bigger' before its suffix, for 'customBiggerIsBetter')",
}
"""Every report format by name, in the exporter table's order."""

FLAG_NAMES: dict[str, str] = {"markdown-table": "markdown"}
"""Formats whose flag is spelled otherwise: `--export-markdown` is hyperfine's table, as in hyperfine."""


def export_flag(fmt: str) -> str:
    """The `--export-FLAG` of a format (`markdown-table` -> `--export-markdown`)."""
    return f"--export-{FLAG_NAMES.get(fmt, fmt)}"


EXPORTED: tuple[str, ...] = tuple(name for name, help in FORMATS.items() if help)
"""The formats a measuring command also writes after its terminal report (`--export-FLAG FILE`)."""

FILE_FORMATS: tuple[str, ...] = tuple(name for name in FORMATS if name != "terminal")
"""The formats a saved run can be written as (`pairbench report --format F`)."""
