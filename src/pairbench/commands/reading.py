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
    """A run file (a cut-short one yields what it holds, with a warning), or a pyperf/hyperfine JSON file."""
    from pairbench.errors import NotARunFile, UserError
    from pairbench.importers import detect_format, import_file, read_json
    from pairbench.store.salvage import load_run_salvaging

    try:
        loaded = load_run_salvaging(path)
    except NotARunFile as exc:
        try:
            doc = read_json(path)  # pyperf writes .json.gz too
        except UserError:
            raise exc from None
        if detect_format(doc) in ("pyperf", "hyperfine"):
            return import_file(path)
        raise
    for note in loaded.missing:
        warn(f"{path}: {note}")
    if loaded.missing and loaded.run.samples:
        _analyse_what_was_kept(loaded.run, path)
    return loaded.run


def _analyse_what_was_kept(run: Run, path: str) -> None:
    """A run that never finished (killed, or its file cut short) is analysed from the samples it
    kept, with the options it was started with and its CIs widened for the looks it had planned,
    so its report answers the question instead of showing medians alone."""
    from pairbench.errors import UserError
    from pairbench.session import RunOptions, finish_analysis

    given = run.metadata.get("options")
    given = given if isinstance(given, dict) else {}
    planned = run.metadata.get("adaptive")
    looks = planned.get("looks") if isinstance(planned, dict) else None
    try:
        options = RunOptions(threshold=float(given.get("threshold", 1.0)),
                             confidence=float(given.get("confidence", 0.95)),
                             correction=str(given.get("correction", "holm")))
    except (TypeError, ValueError, UserError):
        options = RunOptions()
    finish_analysis(run, options, len(looks) if isinstance(looks, list) and looks else 1)
    blocks = len({s.block for s in run.samples if not s.warmup and s.block >= 0})
    warn(f"{path}: analysed here from the {blocks} block{'s' if blocks != 1 else ''} it kept; a finished run "
         "would have measured more, so its verdicts may be inconclusive where the whole run's were not")


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
