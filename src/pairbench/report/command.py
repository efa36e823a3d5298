"""hyperfine's per-command figures: the terminal lines of a single command (`pairbench cmd 'sleep
0.3'`, hyperfine's most common use) and the rows of hyperfine's summary CSV (`--export-csv`).

Both come from the same per-run times so that what the terminal says and what the CSV holds agree;
times stay in seconds in the CSV, as hyperfine writes them.
"""

from __future__ import annotations

import csv
import statistics
from dataclasses import dataclass
from typing import Sequence, TextIO

from pairbench.model import Benchmark, Run, Variant
from pairbench.report.format import format_value

__all__ = ["CommandStats", "command_stats", "command_column", "render_command_figures", "write_summary_csv", "CSV_HEADER"]

CSV_HEADER: tuple[str, ...] = ("command", "mean", "stddev", "median", "user", "system", "min", "max")
"""hyperfine's CSV columns (src/export/csv.rs), then one `parameter_NAME` column per -L/-P parameter."""


@dataclass(frozen=True, slots=True)
class CommandStats:
    """One command's figures over its measured (non-warm-up) runs, in seconds."""

    runs: int
    mean: float
    stddev: float | None
    """Sample standard deviation; None with a single run (hyperfine leaves it empty too)."""
    median: float
    low: float
    high: float
    user: float | None
    """Mean user CPU time; None when the runner does not record it."""
    system: float | None


def _values(run: Run, bench: str, variant: str, metric: str) -> list[float]:
    return [s.value for s in run.samples
            if s.benchmark == bench and s.variant == variant and s.metric == metric and not s.warmup]


TIME_METRICS = ("time", "time_per_op")
"""The metrics that are a time per run (a command's, a micro benchmark's per operation); an HTTP
benchmark has none, and its latency percentiles are not runs."""


def _time_metric(bench: Benchmark) -> str | None:
    names = {m.name for m in bench.metrics}
    return next((n for n in TIME_METRICS if n in names), None)


def command_stats(run: Run, bench: Benchmark, variant: str) -> CommandStats | None:
    """The figures of `variant` in `bench`; None when it has no measured run."""
    metric = _time_metric(bench)
    times = _values(run, bench.name, variant, metric) if metric else []
    if not times:
        return None
    user = _values(run, bench.name, variant, "user")
    system = _values(run, bench.name, variant, "sys")
    return CommandStats(
        runs=len(times), mean=statistics.fmean(times),
        stddev=statistics.stdev(times) if len(times) > 1 else None,
        median=statistics.median(times), low=min(times), high=max(times),
        user=statistics.fmean(user) if user else None, system=statistics.fmean(system) if system else None)


def render_command_figures(run: Run) -> str:
    """hyperfine's lines for a run of one command (several commands get the comparison table)."""
    if len(run.variants) != 1:
        return ""
    variant = run.variants[0]
    lines: list[str] = []
    for bench in run.benchmarks:
        stats = command_stats(run, bench, variant.name)
        if stats is None:
            continue
        spread = f" ± {format_value(stats.stddev, 's')}" if stats.stddev is not None else ""
        cpu = ""
        if stats.user is not None or stats.system is not None:
            cpu = f"    [User: {format_value(stats.user, 's')}, System: {format_value(stats.system, 's')}]"
        lines += [
            f"Benchmark 1: {variant.name}" + (f" ({bench.name})" if len(run.benchmarks) > 1 else ""),
            f"  Time (mean ± σ):     {format_value(stats.mean, 's')}{spread}{cpu}",
            f"  Time (median):       {format_value(stats.median, 's')}",
            f"  Range (min … max):   {format_value(stats.low, 's')} … {format_value(stats.high, 's')}"
            f"    {stats.runs} run{'' if stats.runs == 1 else 's'}",
            "",
        ]
    return "\n".join(lines)


def command_column(variant: Variant, bench: Benchmark, several: bool) -> str:
    """hyperfine's `command`: the name given with -n, else the command line with its parameters filled."""
    label = " ".join(f"{k}={v}" for k, v in variant.params.items())
    text = variant.name
    if variant.command and variant.name in (variant.command, label, f"{variant.command} {label}"):
        text = variant.command
        for key, value in variant.params.items():
            text = text.replace("{" + key + "}", str(value))
    return f"{bench.name}: {text}" if several else text


def _number(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def write_summary_csv(run: Run, out: TextIO, benchmarks: Sequence[Benchmark] | None = None) -> None:
    """One row per command (per benchmark of a suite), hyperfine's columns and order."""
    benches = list(benchmarks if benchmarks is not None else run.benchmarks)
    params: list[str] = []
    for v in run.variants:
        params += [k for k in v.params if k not in params]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_HEADER, *(f"parameter_{p}" for p in params)])
    for bench in benches:
        for variant in run.variants:
            stats = command_stats(run, bench, variant.name)
            if stats is None:
                continue
            writer.writerow([command_column(variant, bench, len(benches) > 1), repr(stats.mean),
                             _number(stats.stddev), repr(stats.median), _number(stats.user),
                             _number(stats.system), repr(stats.low), repr(stats.high),
                             *(str(variant.params.get(p, "")) for p in params)])
