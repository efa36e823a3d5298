"""hyperfine's per-command figures: the terminal lines of a single command (`pairbench cmd 'sleep
0.3'`, hyperfine's most common use), from the measured (non-warm-up) runs."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from pairbench.model import Benchmark, Run
from pairbench.report.format import format_value

__all__ = ["CommandStats", "command_stats", "render_command_figures"]


@dataclass(frozen=True, slots=True)
class CommandStats:
    """One command's figures over its measured (non-warm-up) runs, in the metric's unit."""

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


def _time_metric(bench: Benchmark) -> str | None:
    """`time` where the kind records it, else the benchmark's first metric."""
    names = [m.name for m in bench.metrics]
    return "time" if "time" in names else (names[0] if names else None)


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
        unit = next((m.unit for m in bench.metrics if m.name == _time_metric(bench)), "s")
        spread = f" ± {format_value(stats.stddev, unit)}" if stats.stddev is not None else ""
        cpu = ""
        if stats.user is not None or stats.system is not None:
            cpu = f"    [User: {format_value(stats.user, 's')}, System: {format_value(stats.system, 's')}]"
        lines += [
            f"Benchmark 1: {variant.name}" + (f" ({bench.name})" if len(run.benchmarks) > 1 else ""),
            f"  Time (mean ± σ):     {format_value(stats.mean, unit)}{spread}{cpu}",
            f"  Time (median):       {format_value(stats.median, unit)}",
            f"  Range (min … max):   {format_value(stats.low, unit)} … {format_value(stats.high, unit)}"
            f"    {stats.runs} run{'' if stats.runs == 1 else 's'}",
            "",
        ]
    return "\n".join(lines)
