"""An A/A run's samples -> the noise calibration of each benchmark and metric (`pairbench calibrate`).

The run compares a variant with a copy of itself (the baseline and one candidate, interleaved as
any run). Each benchmark's share of a block's wall time is its share of the measured `time`
values (an equal share when it has none), so a suite's budgets are per benchmark, as `cmd` would
spend them on that benchmark alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from pairbench.analysis.replicates import replicate_values
from pairbench.model import Metric, Run

if TYPE_CHECKING:
    from pairbench.stats.calibration import NoiseCalibration

__all__ = ["MetricCalibration", "calibrate_run"]


@dataclass(frozen=True, slots=True)
class MetricCalibration:
    """The calibration of one benchmark and metric."""

    benchmark: str
    metric: Metric
    noise: NoiseCalibration
    primary: bool
    """The benchmark's first metric (the one `--threshold auto` reads)."""


def _block_seconds(run: Run) -> dict[str, float]:
    blocks = int(run.metadata.get("blocks") or 0)
    elapsed = float(run.metadata.get("elapsed_s") or 0.0)
    per_block = elapsed / blocks if blocks else 0.0
    spent = {b.name: sum(s.value for s in run.samples if s.benchmark == b.name and s.metric == "time"
                         and not s.warmup and math.isfinite(s.value) and s.value > 0) for b in run.benchmarks}
    total = sum(spent.values())
    if total <= 0:
        return {b.name: per_block / len(run.benchmarks) for b in run.benchmarks}
    return {name: per_block * t / total for name, t in spent.items()}


def calibrate_run(run: Run, budgets: Sequence[float]) -> list[MetricCalibration]:
    """One calibration per benchmark and judged metric with enough positive A/A pairs.

    Args:
        run: a finished A/A run (its baseline and one copy).
        budgets: the budgets in seconds to report.
    """
    from pairbench.stats.calibration import noise_calibration

    base = run.baseline.name
    copy = next(v.name for v in run.variants if v.name != base)
    seconds = _block_seconds(run)
    out = []
    for bench in run.benchmarks:
        for i, metric in enumerate(bench.metrics):
            if metric.direction == "none" or metric.exact:
                continue
            values = replicate_values(run, bench.name, metric.name)
            a, b = values.get(base, {}), values.get(copy, {})
            common = [k for k in sorted(set(a) & set(b)) if a[k] > 0 and b[k] > 0]
            if len(common) < max(2, len(set(a) & set(b)) // 2):
                continue  # mostly zero (the system time of a tiny command): no log-scale spread to speak of
            noise = noise_calibration([a[k] for k in common], [b[k] for k in common], seconds[bench.name], budgets)
            out.append(MetricCalibration(bench.name, metric, noise, i == 0))
    return out
