"""`pairbench calibrate`: how small a change this machine can tell from noise, and the band to use.

The command (or a suite's benchmarks under its baseline) runs against a copy of itself, interleaved
and paired as a real comparison, for the whole budget. The answer (stats/calibration.py) is stored
in the history per machine, benchmark and metric; `--threshold auto` on any measuring command
reads it back (`auto_threshold`).
"""

from __future__ import annotations

import argparse
import dataclasses
import socket
import sys
from typing import Any

from pairbench.commands.common import positive_float

__all__ = ["register", "auto_threshold", "DEFAULT_BUDGET", "REPORTED_BUDGETS"]

DEFAULT_BUDGET = 60.0
REPORTED_BUDGETS = (20.0, 60.0)
"""Budgets always reported beside the one asked (a quick check and a usual CI job)."""
COPY_SUFFIX = " (copy)"

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
    p.add_argument("-S", "--shell", default="sh", metavar="SHELL", help="'none' runs the command without a shell")
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


def _command_run(args: argparse.Namespace) -> Any:
    """The A/A run of one command, built by `cmd`'s own parser so both read the command alike."""
    from pairbench.commands import cmd

    parser = argparse.ArgumentParser(prog="pairbench calibrate")
    cmd.register(parser.add_subparsers())
    argv = ["cmd", args.command, args.command, "-n", "A", "-n", "A" + COPY_SUFFIX, "--benchmark", args.benchmark,
            "--shell", args.shell] + [x for m in args.metric for x in ("--metric", m)]
    return cmd.build_command_run(parser.parse_args(argv))


def _suite_run(args: argparse.Namespace) -> Any:
    """The A/A run of a suite's selected benchmarks: its baseline against a copy of it."""
    from pairbench.builds import resolve_builds
    from pairbench.commands.common import new_run
    from pairbench.suite import load_suite, select_benchmarks

    suite = select_benchmarks(load_suite(args.suite), args.only)
    built, notices = resolve_builds([suite.baseline])
    if not built:
        from pairbench.errors import UserError

        raise UserError(f"the baseline {suite.baseline.name} could not be built: "
                        + "; ".join(n.message for n in notices))
    base = built[0]
    copy = dataclasses.replace(base, name=base.name + COPY_SUFFIX, baseline=False)
    return new_run([base, copy], list(suite.benchmarks))


def _handle(args: argparse.Namespace) -> int:
    from pairbench.analysis.calibration import calibrate_run
    from pairbench.commands.common import fake_from, observer_for
    from pairbench.errors import UserError
    from pairbench.pipeline import make_runners
    from pairbench.report.calibration import render_calibration
    from pairbench.session import RunOptions, execute
    from pairbench.stats.calibration import MIN_BLOCKS

    if bool(args.command) == bool(args.suite):
        raise UserError("give one command to calibrate, or --suite FILE (not both)")
    if args.only and not args.suite:
        raise UserError("--only selects benchmarks of a --suite file")
    if args.warmup < 0:
        raise UserError(f"--warmup must be 0 or more (got {args.warmup})")
    run = _suite_run(args) if args.suite else _command_run(args)
    run.metadata["calibration"] = True
    options = RunOptions(runs=MIN_BLOCKS, warmup=args.warmup, max_time=args.max_time, seed=args.seed,
                         export_json=args.export_json, history=args.history, record_history=False,
                         stop_early=False, threshold=0.0)
    runners = make_runners(run, options.seed, fake=fake_from(args))
    observer = observer_for(args)
    try:
        execute(run, runners, options, observer=observer)
    finally:
        close = getattr(observer, "close", None)
        if close is not None:
            close()
    budgets = sorted(set(REPORTED_BUDGETS) | {float(args.max_time)})
    results = calibrate_run(run, budgets)
    if not results:
        raise UserError("the A/A run gave no positive values to calibrate (did the command run?)")
    host = str(run.metadata.get("hostname") or socket.gethostname())
    for notice in run.notices:
        if notice.kind in ("machine-busy", "frequency-scaling", "swap"):
            print(f"warning: {notice.message}; {notice.hint}", file=sys.stderr)
    print(render_calibration(results, float(args.max_time), host))
    if not args.no_history:
        print(_store(run, results, float(args.max_time), host, args.history))
    return 0


def _store(run: Any, results: list[Any], budget: float, host: str, location: str | None) -> str:
    """Record every metric's calibration; the line that says where (or why not)."""
    from pairbench.machine import machine_fingerprint
    from pairbench.store.calibrations import CalibrationRecord, record_calibration
    from pairbench.store.history import HistoryError, open_history

    fingerprint = machine_fingerprint(run.metadata)
    ids = []
    try:
        with open_history(location) as history:
            for c in results:
                row = c.noise.at(budget)
                details = {"budgets": [dataclasses.asdict(b) for b in c.noise.budgets],
                           "subruns": c.noise.subruns, "subrun_blocks": c.noise.subrun_blocks,
                           "subrun_alarms": c.noise.subrun_alarms, "shift": c.noise.shift,
                           "excess": c.noise.excess, "target": c.noise.target, "primary": c.primary,
                           "command": str(run.variants[0].command)}
                ids.append(record_calibration(history, CalibrationRecord(
                    hostname=host, benchmark=c.benchmark, metric=c.metric.name, budget_s=budget,
                    blocks=c.noise.blocks, block_s=c.noise.block_seconds, replicate_sd=c.noise.replicate_sd,
                    ratio_sd=c.noise.ratio_sd, mde=row.mde, band=row.band, delta=row.delta,
                    fingerprint=fingerprint, run_file=str(run.metadata.get("run_file", "")), details=details)))
            where = history.location
    except (HistoryError, OSError) as exc:
        return f"warning: the calibration was not stored: {exc}"
    names = ", ".join(f"'{b}'" for b in dict.fromkeys(c.benchmark for c in results))
    return (f"stored as calibration #{ids[0]} in {where}; `--threshold auto` uses it for benchmark {names} "
            f"on {host}")


def auto_threshold(run: Any, options: Any, location: str | None) -> Any:
    """`--threshold auto`: the options with δ from the newest calibration of each benchmark's first metric.

    One band serves the whole run, so with several benchmarks the widest of their bands is used.
    Each calibration used is named in a notice, and one made before the machine's kernel, CPU or
    governor last changed gets a warning. No calibration is a UserError that says how to make one.
    """
    import time

    from pairbench.errors import UserError
    from pairbench.machine import fingerprint_changes, machine_fingerprint
    from pairbench.model import Notice
    from pairbench.store.calibrations import latest_calibration
    from pairbench.store.history import open_history

    host = str(run.metadata.get("hostname") or socket.gethostname())
    now = machine_fingerprint(run.metadata)
    found = []
    with open_history(location) as history:
        for bench in run.benchmarks:
            metric = bench.metrics[0].name
            rec = latest_calibration(history, host, bench.name, metric)
            if rec is None:
                raise UserError(
                    f"--threshold auto: no calibration of benchmark {bench.name!r} (`{metric}`) on {host} in "
                    f"{history.location}; run `pairbench calibrate --benchmark {bench.name!r} COMMAND` first, "
                    "or give --threshold PCT")
            if rec.delta is None:
                raise UserError(f"--threshold auto: calibration #{rec.id} of {bench.name!r} could not set a band "
                                f"({rec.blocks} blocks in {rec.budget_s:g} s); calibrate with a longer --max-time")
            found.append(rec)
    delta = max(r.delta for r in found if r.delta is not None)
    for rec in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(rec.recorded_at))
        run.notices.append(Notice(
            "threshold-auto", f"noise band δ = ±{delta * 100:g}% (--threshold auto): calibration #{rec.id} of "
            f"`{rec.metric}` on {host}, {when}, set δ = ±{(rec.delta or 0) * 100:g}% for a {rec.budget_s:g} s budget",
            "", rec.benchmark))
        changes = fingerprint_changes(dict(rec.fingerprint), now)
        if changes:
            run.notices.append(Notice(
                "calibration-stale", f"calibration #{rec.id} is older than this machine's last change "
                f"({'; '.join(changes)})", f"run `pairbench calibrate --benchmark {rec.benchmark!r}` again",
                rec.benchmark))
    return dataclasses.replace(options, threshold=delta * 100.0)
