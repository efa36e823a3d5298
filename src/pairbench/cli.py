"""Entry point: parse, dispatch to a subcommand, turn user errors into one line and an exit code.

Exit codes: 0 ok, 1 user error, 2 usage error (argparse), 3 a regression with
`--fail-on-regression`, 130 interrupted by Ctrl-C (what was measured is kept).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from pairbench import __version__
from pairbench.commands import COMMAND_MODULES
from pairbench.errors import Interrupted, UserError

__all__ = ["main", "build_parser"]

EXIT_OK = 0
EXIT_USER_ERROR = 1
EXIT_REGRESSION = 3
EXIT_INTERRUPTED = 130


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
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USER_ERROR
    try:
        code: int = args.handler(args)
        return code
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except (KeyboardInterrupt, Interrupted) as exc:
        message = str(exc) if isinstance(exc, Interrupted) and str(exc) else "interrupted"
        print(f"\n{message}", file=sys.stderr)
        return EXIT_INTERRUPTED
