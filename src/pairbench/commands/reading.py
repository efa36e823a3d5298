"""Helpers shared by the commands that read saved results (report, compare, history, import).

Kept free of heavy imports: everything is imported inside the functions.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from pairbench.model import Run

__all__ = ["add_history_option", "load_results", "write_output", "warn", "reclaim_positionals"]


def add_history_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--history", metavar="PATH_OR_URL", default=None,
        help="history store: an SQLite file or a postgresql:// URL (default: $PAIRBENCH_HISTORY, "
             "else $XDG_DATA_HOME/pairbench/history.sqlite; PAIRBENCH_HISTORY=off disables recording)",
    )


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def load_results(path: str) -> Run:
    """A run file (a cut-short one yields what it holds, with a warning), or a pyperf/hyperfine JSON file
    (flows.saved.load_results)."""
    from pairbench.flows.saved import load_results as load

    return load(path, warn)


def write_output(target: str, text: str, inputs: list[str]) -> None:
    """Write a report to a file ('-' for stdout), never over one of the inputs (report.exporters' writer)."""
    from pairbench.report.exporters import write_text

    write_text(target, text, inputs)


def reclaim_positionals(args: argparse.Namespace, names: list[str], labels: list[str]) -> None:
    """`--markdown RUN`: argparse gives RUN to the optional FILE of --markdown; give it back.

    The positionals are optional in the parser for this reason: when one is missing and
    --markdown took a value, that value was the first input and the Markdown goes to stdout.
    """
    from pairbench.errors import UserError

    values = [getattr(args, n) for n in names]
    if None in values and args.markdown not in (None, "-"):
        values = [args.markdown] + [v for v in values if v is not None]
        args.markdown = "-"
        values += [None] * (len(names) - len(values))
    for name, value, label in zip(names, values, labels):
        if value is None:
            raise UserError(f"give {' and '.join(labels)}: the run file{'s' if len(labels) > 1 else ''} to read "
                            f"({label} is missing); --markdown FILE goes after them, or as --markdown=FILE")
        setattr(args, name, value)
