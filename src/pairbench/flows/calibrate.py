"""The calibrate flow: how small a change this machine can tell from noise, and the band to use.

The command (or a suite's benchmarks under its baseline) runs against a copy of itself, interleaved
and paired as a real comparison, for the whole budget. The answer (stats/calibration.py) is stored
in the history per machine, benchmark and metric; `--threshold auto` on any measuring command
reads it back (flows/threshold.py).
"""

from __future__ import annotations

import dataclasses
import socket
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["Calibration", "calibrate", "REPORTED_BUDGETS"]

REPORTED_BUDGETS = (20.0, 60.0)
"""Budgets always reported beside the one asked (a quick check and a usual CI job)."""
COPY_SUFFIX = " (copy)"


@dataclass(frozen=True, slots=True)
class Calibration:
    """What `pairbench calibrate` is asked: one command (or a suite's benchmarks) against itself."""

    max_time: float
    """The budget in seconds: measured for this long, and the band is set for it."""
    command: str | None = None
    """The command to calibrate (or `suite`)."""
    suite: str | None = None
    """A suite file whose benchmarks are calibrated under its baseline."""
    only: str | None = None
    """With `suite`: only the benchmarks whose name matches."""
    benchmark: str = "command"
    """The name the calibration is stored under (`cmd --benchmark NAME` finds it)."""
    warmup: int = 1
    shell: str = "default"
    metrics: tuple[str, ...] = ()
    """--metric NAME=REGEX specs of numbers the command prints, calibrated too."""
    seed: int | None = None
    history: str | None = None
    store: bool = True
    """Record the answer in the history store (False: report only)."""
    export_json: str | None = None
    """Where the A/A run file goes."""
    progress: bool = True
    fake: tuple[float, ...] | None = None
    """Scripted timings (--debug-fake), no process runs."""


def _command_run(c: Calibration) -> Any:
    """The A/A run of one command, built by `cmd`'s own builder so both read the command alike."""
    from pairbench.flows.builders.command import CommandSettings, command_run

    command = str(c.command)
    return command_run([command, command], ["A", "A" + COPY_SUFFIX], CommandSettings(metrics=c.metrics, shell=c.shell),
                       benchmark=c.benchmark)


def _suite_run(c: Calibration) -> Any:
    """The A/A run of a suite's selected benchmarks: its baseline against a copy of it."""
    from pairbench.builds import resolve_builds
    from pairbench.flows.builders.common import new_run
    from pairbench.suite import load_suite, select_benchmarks

    suite = select_benchmarks(load_suite(str(c.suite)), c.only)
    built, notices = resolve_builds([suite.baseline])
    if not built:
        from pairbench.errors import UserError

        raise UserError(f"the baseline {suite.baseline.name} could not be built: "
                        + "; ".join(n.message for n in notices))
    base = built[0]
    copy = dataclasses.replace(base, name=base.name + COPY_SUFFIX, baseline=False)
    return new_run([base, copy], list(suite.benchmarks))


def calibrate(c: Calibration) -> int:
    """Measure the A/A run for the whole budget, print the answer and store it; the exit code."""
    from pairbench.analysis.calibration import calibrate_run
    from pairbench.errors import UserError
    from pairbench.flows.measure import make_runners, observer_for
    from pairbench.report.calibration import render_calibration
    from pairbench.runners.options import FakeOptions
    from pairbench.session import RunOptions, execute
    from pairbench.stats.calibration import MIN_BLOCKS

    if bool(c.command) == bool(c.suite):
        raise UserError("give one command to calibrate, or --suite FILE (not both)")
    if c.only and not c.suite:
        raise UserError("--only selects benchmarks of a --suite file")
    if c.warmup < 0:
        raise UserError(f"--warmup must be 0 or more (got {c.warmup})")
    run = _suite_run(c) if c.suite else _command_run(c)
    run.metadata["calibration"] = True
    options = RunOptions(runs=MIN_BLOCKS, warmup=c.warmup, max_time=c.max_time, seed=c.seed,
                         export_json=c.export_json, history=c.history, record_history=False,
                         stop_early=False, threshold=0.0)
    runners = make_runners(run, options.seed, fake=FakeOptions(factors=c.fake) if c.fake is not None else None)
    observer = observer_for("auto", c.progress, options)
    try:
        execute(run, runners, options, observer=observer)
    finally:
        close = getattr(observer, "close", None)
        if close is not None:
            close()
    budgets = sorted(set(REPORTED_BUDGETS) | {float(c.max_time)})
    results = calibrate_run(run, budgets)
    if not results:
        raise UserError("the A/A run gave no positive values to calibrate (did the command run?)")
    host = str(run.metadata.get("hostname") or socket.gethostname())
    for notice in run.notices:
        if notice.kind in ("machine-busy", "frequency-scaling", "swap"):
            print(f"warning: {notice.message}; {notice.hint}", file=sys.stderr)
    print(render_calibration(results, float(c.max_time), host))
    if c.store:
        print(_store(run, results, float(c.max_time), host, c.history))
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
