"""Entry point: parse, dispatch to a subcommand, turn user errors into one line and an exit code.

Exit codes:
    0    ok
    1    user error (one `error: ...` line on stderr), or nothing could be compared
    2    usage error (argparse), or no command given (the help is printed)
    3    a regression, with `--fail-on-regression`
    129  stopped by SIGHUP  } what was measured is analysed, printed and kept in the run file
    130  stopped by SIGINT  } (status "interrupted"); a second signal cuts short the wait for
    143  stopped by SIGTERM } the replicate in flight, never the analysis (pairbench.interrupts)
    141  the output pipe was closed (`pairbench history | head -1`): the rest is dropped quietly,
         the command still finishes (run file, history), and exits as one killed by SIGPIPE would
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from pairbench import __version__, interrupts
from pairbench.commands import COMMAND_MODULES, COMMAND_SUMMARIES
from pairbench.errors import Interrupted, UserError

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any, Iterator, Sequence

__all__ = ["main", "build_parser", "subcommand_parser"]

EXIT_OK = 0
EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_REGRESSION = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE


def subcommand_parser(subcommand: str) -> argparse.ArgumentParser:
    """The parser of one subcommand alone, built by its module's `register` (for the Python API)."""
    module = next((m for m, (name, _) in COMMAND_SUMMARIES.items() if name == subcommand), subcommand)
    subparsers = argparse.ArgumentParser(prog="pairbench").add_subparsers()
    importlib.import_module(f"pairbench.commands.{module}").register(subparsers)
    parser: argparse.ArgumentParser = subparsers.choices[subcommand]
    return parser


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser, with every subcommand that has landed.

    Given the command line, only the subcommand it names is built in full; the others get their
    name and one-line help alone (what `pairbench --help` and "invalid choice" show). Building
    all ~200 options cost more than the interpreter's own start-up.
    """
    parser = argparse.ArgumentParser(
        prog="pairbench",
        description="Is this change faster? Interleaved A/B benchmarks with confidence intervals and verdicts.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pairbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for module_name in COMMAND_MODULES:
        summary = COMMAND_SUMMARIES.get(module_name)
        if wanted is not None and summary is not None and wanted != summary[0]:
            sub.add_parser(summary[0], outline=True, help=summary[1])  # listed without importing it
            continue
        try:
            module = importlib.import_module(f"pairbench.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"pairbench.commands.{module_name}":
                raise
            continue
        outline = _Outline()
        if wanted is not None and summary is None:
            module.register(outline)
        if wanted is None or summary is not None or wanted in outline.names:
            module.register(sub)
        else:
            for name, kwargs in outline.parsers:
                sub.add_parser(name, outline=True, **kwargs)
    return parser


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's, sized without shutil: shutil.get_terminal_size imports shutil and its
    compression modules, a fifth of `pairbench --help`."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_terminal_columns() - 2)


def _terminal_columns() -> int:
    """COLUMNS, else the width of standard output's terminal, else 80 (shutil's rule)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser; with `outline`, only a name in the list of commands.

    An outline is never asked to parse (the command line names another subcommand), so it skips
    argparse's set-up: ten of them cost a tenth of `pairbench --help`.
    """

    def __init__(self, *args: Any, outline: bool = False, **kwargs: Any) -> None:
        if outline:
            self.prog = kwargs.get("prog") or ""
            return
        super().__init__(*args, **kwargs)


class _Outline:
    """Stands in for the subparsers of `register`: keeps each subcommand's name and help only."""

    def __init__(self) -> None:
        self.parsers: list[tuple[str, dict[str, Any]]] = []
        self.names: set[str] = set()

    def add_parser(self, name: str, **kwargs: Any) -> _Ignored:
        kept: dict[str, Any] = {k: kwargs[k] for k in ("help", "aliases") if k in kwargs}
        self.parsers.append((name, kept))
        self.names |= {name, *kept.get("aliases", ())}
        return _Ignored()


class _Ignored:
    """A subcommand's parser while only its name is wanted: every call is accepted and dropped,
    every attribute is another such stand-in, and it holds nothing (`in`, `for`)."""

    def __getattr__(self, name: str) -> _Ignored:
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        """Dropped too, even `__class__` (a register that swaps its parser's class)."""

    def __call__(self, *args: Any, **kwargs: Any) -> _Ignored:
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __contains__(self, item: object) -> bool:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command under the signal policy; the exit codes are in the module docstring."""
    from pairbench.report.escape import VisibleStream

    # Names with control characters (ESC, OSC, newlines) from flags or others' run files are shown
    # escaped wherever they are printed (report/escape.py).
    stdout, stderr = sys.stdout, sys.stderr
    shown = VisibleStream(stdout), VisibleStream(stderr, stderr=True)
    sys.stdout, sys.stderr = shown
    try:
        with interrupts.installed():
            try:
                code = _main(argv)
            except BrokenPipeError:  # a write that went around the streams
                _drop_stdout()
                return EXIT_BROKEN_PIPE
        # The streams dropped what followed a closed pipe; the command still finished its work
        # (run file, history), and exits as a program killed by SIGPIPE would, unless a signal stopped it.
        if code < 128 and any(stream.pipe_closed for stream in shown):
            return EXIT_BROKEN_PIPE
        return code
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: Sequence[str] | None) -> int:
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return EXIT_USAGE  # no command: a usage error, as argparse's own
        if getattr(args, "plain_text", False):
            from pairbench.report.escape import VisibleStream

            # Its output has no styling of its own, only names from files: every control is escaped.
            for stream in (sys.stdout, sys.stderr):
                if isinstance(stream, VisibleStream):
                    stream.styled = False
        code: int = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not as a warning at exit
        return code
    except (KeyboardInterrupt, Interrupted) as exc:  # before UserError: Interrupted is one
        interrupts.shield()
        message = str(exc) if isinstance(exc, Interrupted) and str(exc) else f"interrupted by {interrupts.signal_name()}"
        print(f"\n{message}", file=sys.stderr)
        return interrupts.exit_code()
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR


def _drop_stdout() -> None:
    """The reader went away: what is still buffered goes to /dev/null, so exit does not complain."""
    from pairbench.report.escape import drop_stream

    drop_stream(sys.stdout)
