"""`pairbench import FILE...`: other tools' results become run files (and history entries).

The formats are importers/formats.py's table: pyperf, hyperfine, pytest-benchmark, Google Benchmark,
criterion (a directory), Go's -bench text, asv and Bencher's BMF.

A pairbench run file given here is recorded in the history (for a run whose recording failed); one
cut short, or left by a killed run, is read as `report` reads it (what it holds, with a warning),
and `-o` writes it out whole.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "handle"]


def register(subparsers: Any) -> None:
    from pairbench.commands.reading import add_history_option
    from pairbench.importers.formats import FORMATS, IMPORTERS

    p: argparse.ArgumentParser = subparsers.add_parser(
        "import", help="turn other tools' results (pyperf, hyperfine, pytest-benchmark, Google Benchmark, "
                       "criterion, go test -bench, asv, Bencher) into run files and record them in the history",
        description="Write FILE's results as a pairbench run file (FILE stem + .run.json, or -o) and record it "
                    "in the history. Imported runs are not interleaved; compare them with `pairbench compare`.",
        epilog="formats: " + "; ".join(f"{name}: {importer.reads}" for name, importer in IMPORTERS.items()),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="a results file (or criterion's directory) of a format "
                                                            "below, or a pairbench run file to record")
    p.add_argument("-o", "--output", metavar="RUN", help="run file to write (only with one FILE; for a pairbench run "
                                                          "file, the run it holds, salvaged if cut short)")
    p.add_argument("--format", choices=("auto", *FORMATS), default="auto", help="input format (default: detect)")
    p.add_argument("--name", metavar="VARIANT", help="variant name of a file holding one variant (default: the file "
                                                     "name; asv: the commit)")
    p.add_argument("--benchmark", metavar="NAME", help="benchmark name for hyperfine results (default: hyperfine)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--no-history", action="store_true", help="do not record in the history")
    add_history_option(p)
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pairbench.flows.saved import import_files

    return import_files(list(args.files), output=args.output, fmt=args.format, name=args.name,
                        benchmark=args.benchmark, force=args.force, record=not args.no_history, history=args.history)
