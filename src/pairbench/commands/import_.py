"""`pairbench import FILE...`: pyperf or hyperfine JSON files become run files (and history entries).

A pairbench run file given here is only recorded in the history (for a run whose recording failed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
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
    p.add_argument("-o", "--output", metavar="RUN", help="run file to write (only with one FILE)")
    p.add_argument("--format", choices=("auto", "pyperf", "hyperfine"), default="auto", help="input format (default: detect)")
    p.add_argument("--name", metavar="VARIANT", help="variant name for pyperf results (default: the file name)")
    p.add_argument("--benchmark", metavar="NAME", help="benchmark name for hyperfine results (default: hyperfine)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--no-history", action="store_true", help="do not record in the history")
    add_history_option(p)
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from pairbench.commands.reading import warn
    from pairbench.errors import UserError
    from pairbench.importers import detect_format, import_file
    from pairbench.store.history import record_run
    from pairbench.store.journal import parse_document
    from pairbench.store.runfile import load_run, write_run

    if args.output and len(args.files) > 1:
        raise UserError("-o/--output takes one input FILE; without it each FILE gets FILE.run.json")
    for path in args.files:
        try:
            doc, _ = parse_document(Path(path).read_text(encoding="utf-8"))  # a run's journal too
        except (OSError, UnicodeDecodeError, ValueError):
            doc = None  # gzip or broken: import_file says what is wrong
        if detect_format(doc) == "pairbench":
            run = load_run(path)
            out = None
        else:
            run = import_file(path, fmt=args.format, name=args.name, benchmark=args.benchmark)
            out = Path(args.output) if args.output else Path(path).with_name(Path(path).name.split(".")[0] + ".run.json")
            if out.exists() and not args.force:
                raise UserError(f"{out} exists; pass --force to overwrite it or -o to choose another name")
            write_run(out, run)
        if not args.no_history:
            source = run.metadata.get("imported_from") or "pairbench"
            notice = record_run(run, args.history, source=f"import {source}" if out else "import")
            if notice:
                warn(notice.message)
        n_bench = len(run.benchmarks)
        what = f"wrote {out}" if out else f"{path} is a run file"
        recorded = "" if args.no_history else "; recorded in the history"
        print(f"{what}: {len(run.variants)} variants, {n_bench} benchmarks, "
              f"{sum(not s.warmup for s in run.samples)} samples{recorded}", file=sys.stdout)
    return 0
