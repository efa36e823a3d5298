"""`pairbench asv`: an asv benchmark suite, unchanged, compared across interpreters or environments.

    pairbench asv benchmarks --python venv-main --python venv-branch -n main -n branch

Top-level imports stay light (`pairbench --help` must not import numpy or scipy).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_run_options
from pairbench.commands.pytest import add_variant_flags

__all__ = ["register", "run_asv"]

EPILOG = """examples:
  pairbench asv benchmarks --python venv-main --python venv-branch -n main -n branch
  pairbench asv benchmarks --env '' --env 'MYLIB_NO_C=1' -b 'bench_io.*'

Every time_* and track_* function or method of the directory's modules is a benchmark, one per
combination of its params, named as asv names it (module.Class.time_x(10, 'a')); setup, teardown
and setup_cache run as in asv. Each variant needs the project only: asv itself is not used.
"""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "asv",
        help="run an asv benchmark suite unchanged under each variant (interpreters, virtualenvs, env)",
        description="Time the time_* benchmarks (and read the track_* ones) of an asv benchmark directory in "
        "each variant's interpreter, "
        "in worker processes interleaved across variants.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="DIR", help="asv benchmark directories (asv.conf.json's benchmark_dir)")
    add_variant_flags(p)
    add_run_options(p, warmup=0)
    p.set_defaults(handler=run_asv)


def run_asv(args: argparse.Namespace) -> int:
    from pairbench.commands.pytest import run_pytest

    return run_pytest(args, harness="asv")
