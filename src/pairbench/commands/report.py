"""`pairbench report RUN --markdown [FILE] --html FILE`: render a saved run for people."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "handle"]


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "report", help="render a saved run as Markdown (for trackers) or HTML (with plots)",
        description="Render a run file. Without --markdown or --html, prints Markdown.",
    )
    # Optional here only so that `--markdown RUN` can be read as meant (reclaim_positionals).
    p.add_argument("run_file", metavar="RUN", nargs="?", help="a pairbench run file (or a pyperf/hyperfine JSON file)")
    p.add_argument("--markdown", nargs="?", const="-", metavar="FILE",
                   help="write Markdown to FILE (default: standard output)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML page with plots to FILE")
    p.add_argument("--title", default="pairbench report", help="heading of the report")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pairbench.commands.reading import load_results, reclaim_positionals
    from pairbench.report.exporters import ExportOptions, export

    reclaim_positionals(args, ["run_file"], ["RUN"])
    run = load_results(args.run_file)
    markdown = args.markdown if (args.markdown or args.html) else "-"
    options = ExportOptions(title=args.title)
    for fmt, target in (("markdown", markdown), ("html", args.html)):
        if target:
            export(run, fmt, target, options, inputs=[args.run_file])
    return 0
