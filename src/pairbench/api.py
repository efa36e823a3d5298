"""The Python API: what the CLI does, for notebooks and CI scripts (docs/api.md).

A comparison is the CLI's own subcommand: keyword options are its long flags by their Python
names (`runs=5` is `--runs 5`, `no_history=True` is `--no-history`, a list repeats a flag, a tuple
gives a flag several values), parsed and checked by its parser into the same typed values the
command makes, then built by the same run builders (flows/builders/) and measured by the same
measuring flow (flows/measure.py), so the API cannot drift from the command line. The measured
Run comes back as the model; reports are rendered through the exporter table; the history store
is opened as `history` reads it. Bad options raise `UserError` with the CLI's one-line message.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Iterator

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
        options: its long flags by their Python names. `export_json` keeps the run file there;
            without it the file is written to a temporary directory and removed.

    Returns:
        The measured run (for `demo`, its first part), as measured: samples, comparisons, notices.

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
            return _MEASURES[subcommand](args)


def regressions(run: Run) -> list[Comparison]:
    """The comparisons `--fail-on-regression` fails on: slower beyond the noise band."""
    return [c for c in run.comparisons if c.verdict == "slower" and c.meaningful]


def load_run(path: str | os.PathLike[str]) -> Run:
    """A run file (any version, migrated) as the model: `.variants`, `.samples`, `.comparisons`..."""
    from pairbench.flows.saved import load_run as load

    return load(os.fspath(path))


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
    from pairbench.flows.saved import open_history as open_store

    return open_store(os.fspath(location) if location is not None else None, create=False)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _parse(subcommand: str, arguments: list[str], options: dict[str, Any]) -> argparse.Namespace:
    """The subcommand's parsed flags, from keyword options, by the subcommand's own parser."""
    parser = _subparser(subcommand)
    argv = _flags(parser, options)
    if any(a.startswith("-") for a in arguments):
        argv.append("--")
    argv += arguments
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args, extras = parser.parse_known_args(argv)
    except SystemExit:
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        message = lines[-1].split("error: ", 1)[-1] if lines else "invalid options"
        raise UserError(f"{subcommand}: {message}") from None
    if extras:
        unknown = [name for name in options if _flag(name) in extras]
        valid = ", ".join(sorted(k for k in vars(args) if k not in ("handler", "runs_given")))
        what = f"unknown option {unknown[0]!r}" if unknown else f"unrecognized arguments {' '.join(extras)!r}"
        raise UserError(f"{subcommand}: {what}; valid: {valid}")
    return args


def _subparser(subcommand: str) -> argparse.ArgumentParser:
    """The parser of one subcommand, built by its module's `register` as the CLI builds it."""
    from pairbench.cli import subcommand_parser

    return subcommand_parser(subcommand)


def _flag(name: str) -> str:
    """The long flag of an option: its Python name with `-` for `_` (`max_time` is `--max-time`)."""
    return "--" + name.replace("_", "-")


def _flags(parser: argparse.ArgumentParser, options: dict[str, Any]) -> list[str]:
    """`--flag value` words for each option: True is a switch, False and None leave the flag out; a
    flag that repeats (a list by default) takes a list, each item a value or a tuple of values; any
    other flag takes a value, or a tuple or list of its several values."""
    words: list[str] = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = _flag(name)
        if value is True:
            words.append(flag)
            continue
        if name == "ignore_failure":  # exit codes: hyperfine's `--ignore-failure=1,2` (the bare flag takes none)
            words.append(f"{flag}={','.join(str(c) for c in _as_list(value))}")
            continue
        repeated = isinstance(parser.get_default(name), list)
        for item in _as_list(value) if repeated else [value]:
            words += [flag, *(str(v) for v in _as_list(item))] if isinstance(item, (list, tuple)) else [flag, str(item)]
    return words


def _measure_cmd(args: argparse.Namespace) -> Run:
    from pairbench.commands.cmd import command_measuring, command_request
    from pairbench.flows.builders.command import command_run
    from pairbench.flows.measure import measure

    measuring = command_measuring(args)
    run = command_run(*command_request(args))
    measure(run, measuring)
    return run


def _measure_micro(args: argparse.Namespace) -> Run:
    from pairbench.commands.common import measuring_from, reports_from
    from pairbench.commands.micro import micro_settings
    from pairbench.flows.builders.micro import micro_run, micro_runner
    from pairbench.flows.measure import measure

    settings = micro_settings(args)
    with micro_runner(settings, args.seed) as runner:
        run = micro_run(settings, runner)
        measuring = measuring_from(args, reports=reports_from(args, suite_summary=len(run.benchmarks) > 1))
        measure(run, measuring, runners={"micro": runner})
    return run


def _measure_http(args: argparse.Namespace) -> Run:
    from pairbench.commands.common import measuring_from
    from pairbench.commands.http import http_settings
    from pairbench.flows.builders.http import http_run
    from pairbench.flows.measure import measure

    run, runner_options = http_run(http_settings(args))
    measure(run, measuring_from(args), kind_options={"http": runner_options})
    return run


def _measure_suite(args: argparse.Namespace) -> Run:
    from pairbench.commands.run import cluster_from, suite_measuring
    from pairbench.flows.builders.suite import suite_run
    from pairbench.flows.measure import measure

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    cluster = cluster_from(args)
    run, suite = suite_run(args.file, args.set, args.only, args.variants, args.cache_dir, say, build=cluster is None)
    measure(run, suite_measuring(args, run, suite), cluster=cluster)
    return run


def _measure_demo(args: argparse.Namespace) -> Run:
    from pairbench.commands.demo import run_demo

    return run_demo(args)[1][0]


_MEASURES: dict[str, Callable[[argparse.Namespace], Run]] = {
    "cmd": _measure_cmd, "micro": _measure_micro, "http": _measure_http, "run": _measure_suite, "demo": _measure_demo,
}
"""Each measuring subcommand's flags -> its builder -> the measuring flow; the run as measured."""


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
