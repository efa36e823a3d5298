"""`pairbench import FILE...`: pyperf or hyperfine JSON files become run files (and history entries).

A pairbench run file given here is recorded in the history (for a run whose recording failed); one
cut short, or left by a killed run, is read as `report` reads it (what it holds, with a warning),
and `-o` writes it out whole.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "handle"]


def register(subparsers: Any) -> None:
    from pairbench.commands.reading import add_history_option

    p: argparse.ArgumentParser = subparsers.add_parser(
        "import", help="turn pyperf or hyperfine JSON results into run files and record them in the history",
        description="Write FILE's results as a pairbench run file (FILE stem + .run.json, or -o) and record it "
                    "in the history. Imported runs are not interleaved; compare them with `pairbench compare`.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="pyperf JSON (.json or .json.gz), hyperfine --export-json, "
                                                            "or a pairbench run file to record")
    p.add_argument("-o", "--output", metavar="RUN", help="run file to write (only with one FILE; for a pairbench run "
                                                          "file, the run it holds, salvaged if cut short)")
    p.add_argument("--format", choices=("auto", "pyperf", "hyperfine"), default="auto", help="input format (default: detect)")
    p.add_argument("--name", metavar="VARIANT", help="variant name for pyperf results (default: the file name)")
    p.add_argument("--benchmark", metavar="NAME", help="benchmark name for hyperfine results (default: hyperfine)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--no-history", action="store_true", help="do not record in the history")
    add_history_option(p)
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pathlib import Path
    from pairbench.commands.reading import warn
    from pairbench.errors import NotARunFile, UserError
    from pairbench.importers import import_file
    from pairbench.store.history import record_run
    from pairbench.store.runfile import write_run
    from pairbench.store.salvage import load_run_salvaging

    if args.output and len(args.files) > 1:
        raise UserError("-o/--output takes one input FILE; without it each FILE gets FILE.run.json")
    for path in args.files:
        try:
            loaded = load_run_salvaging(path)  # a run file, cut short or with a killed run's journal too
        except NotARunFile:
            loaded = None
        if loaded is not None:
            run = loaded.run
            for note in loaded.missing:
                warn(f"{path}: {note}")
            out = Path(args.output) if args.output else None  # -o writes the run whole (journal folded in)
        else:
            run = import_file(path, fmt=args.format, name=args.name, benchmark=args.benchmark)
            out = Path(args.output) if args.output else Path(path).with_name(Path(path).name.split(".")[0] + ".run.json")
        if out is not None:
            if out.exists() and not args.force:
                raise UserError(f"{out} exists; pass --force to overwrite it or -o to choose another name")
            write_run(out, run)
        if not args.no_history:
            source = run.metadata.get("imported_from") or "pairbench"
            notice = record_run(run, args.history, source="import" if loaded is not None else f"import {source}")
            if notice:
                warn(notice.message)
        to_stdout = out is not None and str(out) == "-"
        what = ("wrote standard output" if to_stdout else f"wrote {out}") if out else f"{path} is a run file"
        recorded = "" if args.no_history else "; recorded in the history"
        samples = sum(not s.warmup for s in run.samples)
        # With `-o -` standard output is the run file's alone: the summary goes to stderr.
        print(f"{what}: {_count(len(run.variants), 'variant')}, {_count(len(run.benchmarks), 'benchmark')}, "
              f"{_count(samples, 'sample')}{recorded}", file=sys.stderr if to_stdout else sys.stdout)
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
