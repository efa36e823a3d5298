"""The Python API: what the CLI does, for notebooks and CI scripts (docs/api.md).

A comparison is the CLI's own subcommand: keyword options are turned into that subcommand's flags
(`runs=5` is `--runs 5`, `no_history=True` is `--no-history`, a list repeats a flag), parsed and
checked by its parser, and measured by its handler through `pipeline.run_pipeline`, so the API
cannot drift from the command line. The run comes back as the model (`Run`) read from its run
file; reports are rendered through the exporter table; the history store is opened as `history`
reads it. Bad options raise `UserError` with the CLI's one-line message.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Iterator

from pairbench.errors import UserError
from pairbench.model import Benchmark, Comparison, Run, Sample, Variant

if TYPE_CHECKING:
    from pairbench.store.history import History

__all__ = [
    "Benchmark",
    "Comparison",
    "Run",
    "Sample",
    "UserError",
    "Variant",
    "compare_commands",
    "compare_http",
    "compare_micro",
    "export",
    "formats",
    "load_run",
    "measure",
    "open_history",
    "regressions",
    "render",
    "run_suite",
]

MEASURING = ("cmd", "micro", "http", "run", "demo")
"""The subcommands `measure` runs (the others read saved results: use load_run, render, open_history)."""


def compare_commands(*commands: str, echo: bool = False, **options: Any) -> Run:
    """`pairbench cmd COMMAND...`: whole commands, the first the baseline (hyperfine style).

    Args:
        commands: shell command lines, as given to `pairbench cmd`.
        echo: print the terminal report (and warnings) as the CLI does.
        options: the flags of `pairbench cmd --help` by their Python names (`runs`, `warmup`,
            `command_name=["a", "b"]`, `parameter_list=[("N", "1,2")]`, `no_history=True`...).

    Returns:
        The measured run, with its samples and comparisons.
    """
    return measure("cmd", *commands, echo=echo, **options)


def compare_micro(*targets: str, echo: bool = False, **options: Any) -> Run:
    """`pairbench micro TARGET...`: .py/.yml benchmark files or statements, in each interpreter
    given by `python=[...]` or `ruby=[...]` (the options of `pairbench micro --help`)."""
    return measure("micro", *targets, echo=echo, **options)


def compare_http(*servers: str, echo: bool = False, **options: Any) -> Run:
    """`pairbench http --server CMD...`: a server per variant (`{port}` is replaced), loaded in
    interleaved rounds (the options of `pairbench http --help`: `url`, `requests`, `concurrency`...)."""
    if servers:
        options["server"] = [*servers, *_as_list(options.get("server", []))]
    return measure("http", echo=echo, **options)


def run_suite(file: str | os.PathLike[str] | None = None, *, echo: bool = False, **options: Any) -> Run:
    """`pairbench run [FILE]`: a suite file (default ./pairbench.toml) with its variants and sweeps."""
    return measure("run", *([os.fspath(file)] if file is not None else []), echo=echo, **options)


def measure(subcommand: str, *arguments: str, echo: bool = False, **options: Any) -> Run:
    """Run a measuring subcommand as the CLI would and return its run.

    Args:
        subcommand: one of `MEASURING`.
        arguments: its positional arguments.
        echo: print what the CLI prints; otherwise nothing is printed.
        options: its flags by their Python names. `export_json` keeps the run file there;
            without it the file is written to a temporary directory and removed.

    Raises:
        UserError: an unknown subcommand or option, a bad value (the CLI's message), or a run
            that cannot be made.
    """
    if subcommand not in MEASURING:
        raise UserError(f"measure {subcommand!r}: valid subcommands are {', '.join(MEASURING)}")
    with tempfile.TemporaryDirectory(prefix="pairbench-") as tmp:
        options.setdefault("export_json", os.path.join(tmp, "run.json"))
        options.setdefault("no_progress", True)
        args = _parse(subcommand, [str(a) for a in arguments], options)
        with _streams(echo):
            args.handler(args)
        return load_run(args.export_json)


def regressions(run: Run) -> list[Comparison]:
    """The comparisons `--fail-on-regression` fails on: slower beyond the noise band."""
    return [c for c in run.comparisons if c.verdict == "slower" and c.meaningful]


def load_run(path: str | os.PathLike[str]) -> Run:
    """A run file (any version, migrated) as the model: `.variants`, `.samples`, `.comparisons`..."""
    from pairbench.store.runfile import load_run as load

    return load(path)


def formats() -> tuple[str, ...]:
    """The report formats `render` and `export` know (the exporter table's names)."""
    from pairbench.report.exporters import EXPORTERS

    return tuple(EXPORTERS)


def render(run: Run, fmt: str = "markdown", *, title: str = "pairbench report", width: int | None = None) -> str:
    """The text of one report format of `run` (`formats()` lists them).

    Args:
        width: columns of the terminal format (None: rich's default).
    """
    from pairbench.report.exporters import ExportOptions, render_export

    return render_export(run, fmt, ExportOptions(title=title, width=width))


def export(run: Run, fmt: str, target: str | os.PathLike[str], *, title: str = "pairbench report") -> None:
    """Write one report format of `run` to a file ('-' for standard output), as `--export-*` does."""
    from pairbench.report.exporters import ExportOptions, export as write

    write(run, fmt, os.fspath(target), ExportOptions(title=title))


def open_history(location: str | os.PathLike[str] | None = None) -> History:
    """The history store (a path or postgresql:// URL; default: where the CLI records), read-only
    in intent: `.runs()`, `.benchmarks()`, `.series(benchmark, metric)`. Use it as a context manager.

    Raises:
        UserError: no store there, or history turned off.
    """
    from pairbench.store.history import open_history as open_store

    return open_store(os.fspath(location) if location is not None else None, create=False)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _parse(subcommand: str, arguments: list[str], options: dict[str, Any]) -> argparse.Namespace:
    """The subcommand's parsed flags, from keyword options, by the CLI's own parser."""
    from pairbench.cli import build_parser

    argv = [subcommand]
    parser = build_parser(argv)
    sub = _subparser(parser, subcommand)
    argv += _flags(subcommand, sub, options)
    if any(a.startswith("-") for a in arguments):
        argv.append("--")
    argv += arguments
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return parser.parse_args(argv)
    except SystemExit:
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        message = lines[-1].split("error: ", 1)[-1] if lines else "invalid options"
        raise UserError(f"{subcommand}: {message}") from None


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen: argparse.ArgumentParser = action.choices[name]
            return chosen
    raise UserError(f"no subcommand {name!r}")  # pragma: no cover - the table always has them


def _flags(subcommand: str, parser: argparse.ArgumentParser, options: dict[str, Any]) -> list[str]:
    """`--flag value` words for each option, in the form its argparse action takes."""
    by_dest: dict[str, argparse.Action] = {}
    for known in parser._actions:
        if known.option_strings and known.dest != "help":
            by_dest.setdefault(known.dest, known)
    words: list[str] = []
    for name, value in options.items():
        action = by_dest.get(name)
        if action is None:
            raise UserError(f"{subcommand}: unknown option {name!r}; valid: {', '.join(sorted(by_dest))}")
        flag = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
        if value is None or value is False:
            continue
        if action.nargs == 0:
            words.append(flag)
            continue
        repeated = isinstance(action, (argparse._AppendAction, argparse._ExtendAction))
        for item in _as_list(value) if repeated else [value]:
            many = action.nargs not in (None, "?")
            words += [flag, *(str(v) for v in _as_list(item))] if many else [flag, str(item)]
    return words


@contextlib.contextmanager
def _streams(echo: bool) -> Iterator[None]:
    """The CLI's output rules: names escaped on the way out, and the signal policy (Ctrl-C keeps
    what was measured); with echo off, everything printed is dropped."""
    from pairbench import interrupts
    from pairbench.report.escape import VisibleStream

    out: Any = sys.stdout if echo else io.StringIO()
    err: Any = sys.stderr if echo else io.StringIO()
    with contextlib.redirect_stdout(VisibleStream(out)), contextlib.redirect_stderr(VisibleStream(err, stderr=True)):
        with interrupts.installed():
            yield
