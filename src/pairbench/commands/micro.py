"""`pairbench micro`: a snippet or benchmark file timed inside each variant's own interpreter.

    pairbench micro bench_dicts.py --python python3.11 --python /usr/bin/python3 --python pypy3
    pairbench micro benchmark/object_new.yml --ruby ruby --ruby 'ruby --yjit'
    pairbench micro benchmark/app_fib.rb --ruby ruby --ruby 'ruby --yjit'
    pairbench micro benchmark/ --ruby ruby --ruby 'ruby --yjit'
    pairbench micro -s 'd = {}' 'd["a"] = 1' --python python3.11 --python pypy3

Top-level imports stay light (`pairbench --help` must not import numpy or scipy).
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_plan_option, add_run_options, reports_from

__all__ = ["register", "micro_settings", "build_run", "run_micro"]

LOOPS_FROM_FILE = "file"
"""`--loops file`: each Ruby benchmark runs its YAML `loop_count` per sample."""


def _loops_arg(text: str) -> int | str:
    """`--loops N` (a whole number >= 1) or `--loops file` (loop_count of benchmark_driver files)."""
    if text.strip() == LOOPS_FROM_FILE:
        return LOOPS_FROM_FILE
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number >= 1, or 'file' for the "
                                         "loop_count of benchmark_driver .yml files")
    return value


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "micro",
        help="micro-benchmarks inside each variant's interpreter (Python, PyPy, Ruby)",
        description="Time a snippet (-s SETUP STMT) or the bench_* functions of a .py file / the "
        "benchmarks of a benchmark_driver .yml file in each variant's own interpreter, in worker "
        "processes interleaved across variants, with allocations per operation.",
    )
    p.add_argument("targets", nargs="*", metavar="FILE|DIR|STMT",
                   help="benchmark files (.py with bench_* functions or a pyperf script, .yml in "
                   "benchmark_driver format, .rb scripts), pyperformance bm_* directories, a directory or "
                   "quoted glob of them (Ruby's benchmark/, 'benchmark/vm_*.yml'), or statements to time")
    p.add_argument("-s", "--setup", action="append", default=[], metavar="SETUP",
                   help="setup code for the statements (repeatable, joined by newlines)")
    p.add_argument("--python", action="append", default=[], metavar="EXE",
                   help="a Python interpreter with its flags, e.g. 'python3.11 -X dev' (repeatable; first is the baseline)")
    p.add_argument("--ruby", action="append", default=[], metavar="'EXE FLAGS'",
                   help="a Ruby interpreter with its flags, e.g. 'ruby --yjit' (repeatable; first is the baseline)")
    p.add_argument("-n", "--name", action="append", default=[], metavar="NAME",
                   help="names of the variants, in the order given (default: the interpreter command)")
    p.add_argument("-b", "--bench", action="append", default=[], metavar="PATTERN",
                   help="only benchmarks whose name matches this glob or substring (repeatable)")
    p.add_argument("--samples", type=int, default=None,
                   help="measured samples per process (default: 5 in the first 3 blocks, then the number that "
                   "narrows the interval fastest, from the spread within and between processes and their costs)")
    p.add_argument("--warmup-samples", type=int, default=None,
                   help="warm-up samples per process, discarded (default: 1 on CPython, 2 where a JIT "
                   "warms up: PyPy, Ruby)")
    p.add_argument("--target-time", type=float, default=0.1,
                   help="seconds per sample used to calibrate the loop count (default 0.1)")
    p.add_argument("--loops", type=_loops_arg, default=None, metavar="N|file",
                   help="fixed loop count per sample (skips calibration); 'file': each Ruby benchmark's "
                   "loop_count from its .yml file (calibrated where it has none)")
    p.add_argument("--no-alloc", action="store_true", help="skip the allocation-counting pass")
    p.add_argument("--clock", choices=("auto", "cpu", "wall"), default="auto",
                   help="cpu: the worker's CPU time, blind to other processes on a shared machine; "
                   "wall: for operations that sleep, wait or use threads; auto (default): wall for "
                   "async functions and pyperf benchmarks, cpu otherwise")
    p.add_argument("--measure", default=None, metavar="WHAT",
                   help="time (default), instructions (per operation, counted exactly under perf or valgrind: "
                   "N against 2N ops), or both: instructions,time (the first is the primary metric)")
    # In-process warm-up samples absorb JIT and cache warm-up; a whole warm-up process would time
    # nothing the measured ones do not, so none by default.
    add_run_options(p, warmup=0)
    add_plan_option(p)
    p.set_defaults(handler=run_micro)


def micro_settings(args: argparse.Namespace) -> Any:
    """`micro`'s flags as the builder's typed settings (flows.builders.micro.MicroSettings)."""
    from pairbench.flows.builders.micro import MicroSettings

    return MicroSettings(targets=tuple(args.targets), setup=tuple(args.setup), python=tuple(args.python),
                         ruby=tuple(args.ruby), names=tuple(args.name), bench=tuple(args.bench), samples=args.samples,
                         warmup_samples=args.warmup_samples, target_time=args.target_time, loops=args.loops,
                         alloc=not args.no_alloc, clock=args.clock, measure=args.measure)


def build_run(args: argparse.Namespace, runner: Any) -> Any:
    """The Run to execute (flows.builders.micro.micro_run with the flags' settings)."""
    from pairbench.flows.builders.micro import micro_run

    return micro_run(micro_settings(args), runner)


def run_micro(args: argparse.Namespace) -> int:
    from pairbench.commands.common import measuring_from
    from pairbench.flows.builders.micro import micro_run, micro_runner
    from pairbench.flows.measure import measure

    settings = micro_settings(args)
    with micro_runner(settings, args.seed) as runner:
        run = micro_run(settings, runner)
        # several benchmarks get a suite summary (geometric mean with its CI), as pyperformance compare
        measuring = measuring_from(args, reports=reports_from(args, suite_summary=len(run.benchmarks) > 1))
        return measure(run, measuring, runners={"micro": runner})
