"""`pairbench report RUN [--format F] [--export-F FILE ...]`: render a saved run in any report format.

The formats are the exporter table's (report/exporters.py); the `--export-FLAG FILE` flags are the
measuring commands' (`--export-csv`, `--export-markdown`: hyperfine's), so what a run exported can be
made again from its file; `--markdown` and `--format markdown` give the full Markdown report.
"""

from __future__ import annotations

import argparse

from pairbench.report.formats import EXPORTED, FILE_FORMATS, FORMATS, RUN_FILE, export_flag

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "handle", "FILE_FORMATS"]


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "report", help="render a saved run as Markdown (for trackers) or HTML (with plots)",
        description="Render a run file. Without --markdown, --html, --format or --export-*, prints Markdown.",
    )
    # Optional here only so that `--markdown RUN` can be read as meant (reclaim_positionals).
    p.add_argument("run_file", metavar="RUN", nargs="?", help="a pairbench run file (or a pyperf/hyperfine JSON file)")
    p.add_argument("--markdown", nargs="?", const="-", metavar="FILE",
                   help="write Markdown to FILE (default: standard output)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML page with plots to FILE")
    p.add_argument("--format", choices=FILE_FORMATS, metavar="FORMAT",
                   help=f"print the report in FORMAT on standard output: {', '.join(FILE_FORMATS)}")
    for fmt in (*EXPORTED, RUN_FILE):  # the measuring commands' flags, with their meaning
        p.add_argument(export_flag(fmt), metavar="FILE", dest=f"export_{fmt.replace('-', '_')}",
                       help=(FORMATS[fmt] or "write the run file").replace("also write", "write"))
    p.add_argument("--title", default="pairbench report", help="heading of the report")
    p.set_defaults(handler=handle, plain_text=True)  # no styling of its own: every control in a name escaped


def _targets(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(format, target) for every report asked for; Markdown on standard output when none is."""
    asked = [("markdown", args.markdown), ("html", args.html), (args.format, "-" if args.format else None)]
    asked += [(fmt, getattr(args, f"export_{fmt.replace('-', '_')}")) for fmt in (*EXPORTED, RUN_FILE)]
    chosen = [(fmt, target) for fmt, target in asked if fmt and target]
    return chosen or [("markdown", "-")]


def handle(args: argparse.Namespace) -> int:
    from pairbench.commands.reading import load_results, reclaim_positionals
    from pairbench.errors import UserError
    from pairbench.report.exporters import ExportOptions, export

    reclaim_positionals(args, ["run_file"], ["RUN"])
    targets = _targets(args)
    if sum(target == "-" for _, target in targets) > 1:
        raise UserError("only one report can go to standard output; give the others a file")
    run = load_results(args.run_file)
    options = ExportOptions(title=args.title)
    for fmt, target in targets:
        export(run, fmt, target, options, inputs=[args.run_file])
    return 0
