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
         as a program killed by SIGPIPE would
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from typing import Sequence

from pairbench import __version__, interrupts
from pairbench.commands import COMMAND_MODULES
from pairbench.errors import Interrupted, UserError

__all__ = ["main", "build_parser"]

EXIT_OK = 0
EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_REGRESSION = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every subcommand that has landed."""
    parser = argparse.ArgumentParser(
        prog="pairbench",
        description="Is this change faster? Interleaved A/B benchmarks with confidence intervals and verdicts.",
    )
    parser.add_argument("--version", action="version", version=f"pairbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"pairbench.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"pairbench.commands.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command under the signal policy; the exit codes are in the module docstring."""
    from pairbench.report.escape import VisibleStream

    # Names with control characters (ESC, OSC, newlines) from flags or others' run files are shown
    # escaped wherever they are printed (report/escape.py).
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(stdout), VisibleStream(stderr, stderr=True)
    try:
        with interrupts.installed():
            try:
                return _main(argv)
            except BrokenPipeError:
                _drop_stdout()
                return EXIT_BROKEN_PIPE
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return EXIT_USAGE  # no command: a usage error, as argparse's own
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
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
