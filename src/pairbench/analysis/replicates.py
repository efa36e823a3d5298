"""The one reduction: the non-warmup samples of one process, then of one block, reduced to one value.

A process whose series reached a steady state after a warm-up (`Run.steady_states`) counts from it.

METHOD §1: for times the arithmetic mean of per-iteration values (= total time / total ops when
loop counts are equal), for rates the harmonic mean (benchmark-ips#149: the arithmetic mean of
rates overstates them); several replicates in one block are averaged the same way. Every figure
of a report (the main table, sweep tables, micro lines, plots, the suite summary) starts from
these values, so two tables never show the same metric reduced two ways. The statistic a table
shows of them is `Spread.median`. Imports the model only, so reporters and progress views can use
it without numpy.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pairbench.analysis.inverse import INVERSE_METRICS, is_inverse
from pairbench.model import Run, Spread

__all__ = ["STATISTIC", "Spread", "process_values", "reduce_values", "replicate_values", "spread_of", "spreads"]

STATISTIC = "median"
"""What every table shows of a variant's replicate values (named in headers)."""


def reduce_values(values: Sequence[float], direction: str) -> float:
    """Mean of times, harmonic mean of positive rates (METHOD §1); NaN without values."""
    if not values:
        return math.nan
    if direction == "higher" and all(v > 0 for v in values):
        return len(values) / sum(1.0 / v for v in values)
    return sum(values) / len(values)


def _direction(run: Run, benchmark: str, metric: str) -> str:
    try:
        return run.benchmark(benchmark).metric(metric).direction
    except KeyError:
        return "lower"


def process_values(run: Run, benchmark: str, metric: str) -> dict[str, dict[tuple[int, int], float]]:
    """One value per (variant, process): variant -> (block, replicate) -> value.

    Args:
        run: the run holding the samples.
        benchmark: benchmark name.
        metric: metric name (its direction picks arithmetic or harmonic means).

    Returns:
        variant name -> (block, replicate) -> reduced value, in increasing order.
    """
    direction = _direction(run, benchmark, metric)
    # a process's steady state starts at this sample: its warm-up (a JIT's) is left out
    starts = {(st.variant, st.block, st.replicate): st.warmup_iterations for st in run.steady_states
              if st.benchmark == benchmark and metric in st.metrics and st.warmup_iterations}
    groups: dict[str, dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in run.samples:
        if s.warmup or s.benchmark != benchmark or s.metric != metric or not math.isfinite(s.value):
            continue
        if s.iteration < starts.get((s.variant, s.block, s.replicate), 0):
            continue
        groups[s.variant][(s.block, s.replicate)].append(s.value)
    return {variant: {key: reduce_values(procs[key], direction) for key in sorted(procs)}
            for variant, procs in groups.items()}


def replicate_values(run: Run, benchmark: str, metric: str) -> dict[str, dict[int, float]]:
    """One value per (variant, block): its processes' values reduced again the same way.

    Returns:
        variant name -> block -> value, blocks in increasing order.
    """
    direction = _direction(run, benchmark, metric)
    out: dict[str, dict[int, float]] = {}
    for variant, procs in process_values(run, benchmark, metric).items():
        by_block: dict[int, list[float]] = defaultdict(list)
        for (block, _), value in procs.items():
            by_block[block].append(value)
        out[variant] = {block: reduce_values(by_block[block], direction) for block in sorted(by_block)}
    return out


def spread_of(benchmark: str, metric: str, variant: str, values: Sequence[float]) -> Spread | None:
    """The Spread of per-block values (None without values)."""
    vals = list(values)
    if not vals:
        return None
    if len(vals) < 2:
        q1 = q3 = vals[0]
    else:
        q = statistics.quantiles(vals, n=4, method="inclusive")
        q1, q3 = q[0], q[2]
    return Spread(benchmark, metric, variant, len(vals), statistics.median(vals), q1, q3, min(vals), max(vals))


def spreads(run: Run) -> dict[tuple[str, str, str], Spread]:
    """(benchmark, metric, variant) -> Spread of the per-block replicate values; a rate that is
    1 / a time per op (`analysis.inverse`) gets the time's, inverted, so that their medians agree
    (a median of an even count averages two values, which inverting does not keep)."""
    pairs = sorted({(s.benchmark, s.metric) for s in run.samples if not s.warmup})
    out: dict[tuple[str, str, str], Spread] = {}
    values = {(bench, metric): replicate_values(run, bench, metric) for bench, metric in pairs}
    for (bench, metric), by_variant in values.items():
        time = INVERSE_METRICS.get(metric, "")
        inverse = (bench, time) in values and is_inverse(by_variant, values[(bench, time)])
        for variant, per_block in by_variant.items():
            sp = spread_of(bench, metric, variant, list(per_block.values()))
            if inverse:
                t = spread_of(bench, time, variant, list(values[(bench, time)][variant].values()))
                sp = None if t is None else Spread(bench, metric, variant, t.n, 1.0 / t.median, 1.0 / t.q3,
                                                   1.0 / t.q1, 1.0 / t.maximum, 1.0 / t.minimum)
            if sp is not None:
                out[(bench, metric, variant)] = sp
    return out
