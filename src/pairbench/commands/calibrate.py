"""`pairbench calibrate`: how small a change this machine can tell from noise, and the band to use.

The flags become a `Calibration`; the flow (flows/calibrate.py) runs the command (or a suite's
benchmarks under its baseline) against a copy of itself and stores the answer, which
`--threshold auto` on any measuring command reads back.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import fake_from, positive_float

__all__ = ["register", "DEFAULT_BUDGET"]

DEFAULT_BUDGET = 60.0

EPILOG = """examples:
  pairbench calibrate 'python3 bench.py'                 # 60 s of A/A, then the answer in words
  pairbench calibrate --max-time 120 --benchmark parse './parse big.json'
  pairbench calibrate --suite pairbench.toml --only 'parse*'
  pairbench cmd --threshold auto 'old/bin/tool' 'new/bin/tool'   # uses the stored band δ

The result is stored in the history store per machine, benchmark name and metric.
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "calibrate",
        help="measure a command against itself: the smallest change this machine can tell from noise",
        description="Run a command (or a suite's benchmarks) against a copy of itself, interleaved as a real "
                    "comparison, and report the noise, the smallest detectable change and the band δ to use.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("command", nargs="?", metavar="COMMAND", help="the command to calibrate (or --suite)")
    p.add_argument("--suite", metavar="FILE", help="calibrate the benchmarks of a suite file, under its baseline")
    p.add_argument("--only", metavar="GLOB", help="with --suite: only the benchmarks whose name matches")
    p.add_argument("--benchmark", default="command", metavar="NAME",
                   help="name the calibration is stored under; `cmd --benchmark NAME` finds it (default: command)")
    p.add_argument("--max-time", type=positive_float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"the budget: measured for this long, and the band is set for it (default {DEFAULT_BUDGET:g})")
    p.add_argument("-w", "--warmup", type=int, default=1, metavar="N", help="warm-up runs per copy (default 1)")
    p.add_argument("-S", "--shell", default="default", metavar="SHELL", help="'none' runs the command without a shell")
    p.add_argument("-N", dest="shell", action="store_const", const="none", help="same as --shell=none")
    p.add_argument("--metric", action="append", default=[], metavar="NAME=REGEX",
                   help="a number the command prints (as in `cmd`); calibrated too")
    p.add_argument("--seed", type=int, help="seed of the random order")
    p.add_argument("--history", metavar="PATH_OR_URL", help="history store (SQLite path or postgresql:// URL)")
    p.add_argument("--no-history", action="store_true", help="report only; store nothing")
    p.add_argument("--export-json", metavar="FILE", help="write the A/A run file here")
    p.add_argument("--no-progress", action="store_true", help="no live progress bar")
    p.add_argument("--debug-fake", nargs="?", const="", default=None, metavar="FACTORS", help=argparse.SUPPRESS)
    p.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from pairbench.flows.calibrate import Calibration, calibrate

    return calibrate(Calibration(
        max_time=args.max_time, command=args.command, suite=args.suite, only=args.only, benchmark=args.benchmark,
        warmup=args.warmup, shell=args.shell, metrics=tuple(args.metric), seed=args.seed, history=args.history,
        store=not args.no_history, export_json=args.export_json, progress=not args.no_progress,
        fake=fake_from(args)))
