"""Replicate values: the non-warmup samples of one process (and of one block) reduced to one value.

METHOD §1: for times the arithmetic mean of per-iteration values (= total time / total ops when
loop counts are equal), for rates the harmonic mean (benchmark-ips#149: the arithmetic mean of
rates overstates them); several replicates in one block are averaged the same way. Imports the
model only, so reporters and progress views can use it without numpy.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from pairbench.model import Run

__all__ = ["replicate_values"]


def _reduce(values: Sequence[float], direction: str) -> float:
    if direction == "higher" and all(v > 0 for v in values):
        return len(values) / sum(1.0 / v for v in values)
    return sum(values) / len(values)


def replicate_values(run: Run, benchmark: str, metric: str) -> dict[str, dict[int, float]]:
    """One value per (variant, block) from the non-warmup samples of one benchmark's metric.

    Args:
        run: the run holding the samples.
        benchmark: benchmark name.
        metric: metric name (its direction picks arithmetic or harmonic means).

    Returns:
        variant name -> block -> value, blocks in increasing order.
    """
    try:
        direction = run.benchmark(benchmark).metric(metric).direction
    except KeyError:
        direction = "lower"
    groups: dict[str, dict[int, dict[int, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for s in run.samples:
        if s.warmup or s.benchmark != benchmark or s.metric != metric:
            continue
        if not math.isfinite(s.value):
            continue
        groups[s.variant][s.block][s.replicate].append(s.value)
    out: dict[str, dict[int, float]] = {}
    for variant, blocks in groups.items():
        per_block: dict[int, float] = {}
        for block in sorted(blocks):
            reps = [_reduce(vals, direction) for _, vals in sorted(blocks[block].items())]
            per_block[block] = _reduce(reps, direction)
        out[variant] = per_block
    return out
