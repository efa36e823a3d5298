"""How many samples a micro worker process takes: chosen from the run's own variance components.

Why: in CPython micro-benchmarks the spread between processes (memory layout, hash seeds, what
the machine did while that process ran) usually dominates the spread of samples within one
process, and the process, not the sample, is the unit a paired interval is made of
(analysis/replicates.py). A block's log-ratio then varies as

    var(d) = 2 (s2_between + s2_within / k)

for k measured samples per process, and a block costs (c_process + k c_sample) per variant, where
c_process is everything a process spends besides its measured samples (start-up, imports, set-up,
warm-up samples, the empty loop). The interval's width per second of measuring is smallest where
(c_process + k c_sample)(s2_between + s2_within / k) is, at the classic two-stage optimum
(Cochran, "Sampling Techniques", 3rd ed. 1977, §10.6: optimum sub-sample size)

    k* = sqrt((c_process / c_sample) * (s2_within / s2_between)).

pyperf fixes k = 3 (20 processes); pairbench starts at `DEFAULT_SAMPLES` for `PILOT_BLOCKS` blocks,
then takes the integer k in [MIN_SAMPLES, MAX_SAMPLES] that minimises that product. The variance
components are read on log time per op, from the pilot's complete blocks: s2_within pooled over
processes, s2_between from the block × variant table of process means (two-way residual: a state of
the machine shared by a block's processes cancels in the paired ratio, so it must not count), less
the share the within-process spread explains. The choice depends on spreads and costs only, never
on the difference between the variants, and is the same for every variant of a block, so the blocks
stay paired and the verdict's error rate is that of any fixed k (tests/unit/test_sample_plan.py).
This module imports nothing but the standard library (runners never import stats).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["DEFAULT_SAMPLES", "MAX_SAMPLES", "MIN_SAMPLES", "PILOT_BLOCKS", "SamplePlan", "SamplePlans",
           "VarianceComponents", "best_samples", "plan_samples", "planning_block", "variance_components"]

DEFAULT_SAMPLES = 5
"""Measured samples per process in the pilot blocks (and the plan when the pilot cannot tell)."""
PILOT_BLOCKS = 3
"""Complete blocks read before the plan is made: with two variants, 2 degrees of freedom for the
between-process spread (the square root in k* halves the error of the estimate's logarithm) and 4
processes past the first block, whose allocation pass must not count as a process's cost."""
MIN_SAMPLES = 2
"""Fewest samples per process: a process's own spread stays measurable, and a steady state found
anywhere in its batches leaves a measured sample (after CPython's 1 warm-up sample too: 24 batches,
analysis/steady_state.py keeps the last sample)."""
MAX_SAMPLES = 7
"""Most samples per process. With at most 2 warm-up samples a process stays under the 10 values a
steady-state classification needs when its samples cannot be split in batches (a pyperf benchmark
that times itself, an op of one loop): 10 samples of a loaded machine's wall clock read as
"slowdown" or "no steady state" here, in two of the four processes a plan of 10 made, one losing 7
of its 10 samples. With the pilot's 2 degrees of freedom the between-process spread may also read 0
by chance (k* unbounded); the plan made again on more blocks (`planning_block`) corrects it, and
this bounds what the blocks in between cost."""


@dataclass(frozen=True, slots=True)
class VarianceComponents:
    """The two levels of spread of log time per op, from complete blocks."""

    within: float
    """Variance of a process's samples around its own mean, pooled over processes."""
    between: float
    """Variance of process means not shared by a block's processes, less what `within` explains (>= 0)."""
    within_df: int
    between_df: int
    samples: float
    """Harmonic mean of the measured samples per process the pilot took."""


@dataclass(frozen=True, slots=True)
class SamplePlan:
    """Samples per process from `PILOT_BLOCKS` on, and what chose them (said under -v)."""

    samples: int
    """Measured samples per process in later blocks."""
    optimum: float
    """k* unrounded and unbounded (inf when the processes did not differ beyond their samples)."""
    components: VarianceComponents
    process_s: float
    """Seconds a process spends besides its measured samples (median of the pilot's, first block left out)."""
    sample_s: float
    """Seconds of one measured sample (wall clock, median)."""
    pilot_blocks: int

    def describe(self) -> str:
        """One sentence for -v: the plan and the figures it came from."""
        c = self.components
        optimum = "unbounded" if math.isinf(self.optimum) else f"{self.optimum:.2g}"
        return (f"{self.samples} samples per process from block {self.pilot_blocks + 1} on (the {self.pilot_blocks} "
                f"blocks before took {c.samples:.2g}): spread within a process {_percent(c.within)}, between "
                f"processes {_percent(c.between)}; a process costs {self.process_s:.3g} s beside its samples, a sample "
                f"{self.sample_s:.3g} s; k* = sqrt(cost ratio × variance ratio) = {optimum}, kept within "
                f"{MIN_SAMPLES}-{MAX_SAMPLES}")


def _percent(variance: float) -> str:
    return f"{100.0 * math.sqrt(max(variance, 0.0)):.2g}%"


def variance_components(processes: Mapping[tuple[int, str], Sequence[float]]) -> VarianceComponents | None:
    """Within- and between-process variance of log values, from the blocks every variant completed.

    Args:
        processes: (block, variant) -> one process's measured values (time per op, > 0).

    Returns:
        The components, or None without two complete blocks of processes with two values each.
    """
    logs = {key: [math.log(v) for v in values if v > 0 and math.isfinite(v)] for key, values in processes.items()}
    logs = {key: xs for key, xs in logs.items() if len(xs) >= 2}
    variants = sorted({v for _, v in logs})
    blocks = sorted(b for b in {b for b, _ in logs} if all((b, v) in logs for v in variants))
    if len(blocks) < 2 or not variants:
        return None
    cells = [logs[(b, v)] for b in blocks for v in variants]
    within_ss = sum(sum((x - statistics.fmean(xs)) ** 2 for x in xs) for xs in cells)
    within_df = sum(len(xs) - 1 for xs in cells)
    within = within_ss / within_df
    means = {(b, v): statistics.fmean(logs[(b, v)]) for b in blocks for v in variants}
    grand = statistics.fmean(means.values())
    row = {b: statistics.fmean(means[(b, v)] for v in variants) for b in blocks}
    col = {v: statistics.fmean(means[(b, v)] for b in blocks) for v in variants}
    if len(variants) > 1:  # the block's shared state cancels in a paired ratio: the two-way residual
        residual_ss = sum((means[(b, v)] - row[b] - col[v] + grand) ** 2 for b in blocks for v in variants)
        between_df = (len(blocks) - 1) * (len(variants) - 1)
    else:
        residual_ss = sum((means[(b, v)] - col[v]) ** 2 for b in blocks for v in variants)
        between_df = len(blocks) - 1
    k_harmonic = len(cells) / sum(1.0 / len(xs) for xs in cells)
    between = max(residual_ss / between_df - within / k_harmonic, 0.0)
    return VarianceComponents(within, between, within_df, between_df, k_harmonic)


def best_samples(components: VarianceComponents, process_s: float, sample_s: float,
                 low: int = MIN_SAMPLES, high: int = MAX_SAMPLES) -> tuple[int, float]:
    """(the integer k in [low, high] with the narrowest interval per second, the unbounded k*).

    Minimises (process_s + k sample_s)(between + within / k): the variance of a block's paired
    log-ratio times what the block costs.
    """
    if components.within <= 0.0:
        return low, 0.0
    if components.between <= 0.0:
        return high, math.inf
    optimum = math.sqrt(max(process_s, 0.0) / max(sample_s, 1e-12) * components.within / components.between)

    def cost(k: int) -> float:
        return (process_s + k * sample_s) * (components.between + components.within / k)

    return min(range(low, high + 1), key=cost), optimum


def plan_samples(processes: Mapping[tuple[int, str], Sequence[float]], process_s: Sequence[float],
                 sample_s: Sequence[float], pilot_blocks: int = PILOT_BLOCKS) -> SamplePlan | None:
    """The plan from the pilot's processes and costs (None when they cannot tell).

    Args:
        processes: (block, variant) -> measured values of that process (time per op).
        process_s: seconds each pilot process spent besides its measured samples.
        sample_s: seconds each pilot process spent per measured sample.
        pilot_blocks: the blocks read (said in the plan).
    """
    components = variance_components(processes)
    if components is None or not process_s or not sample_s:
        return None
    per_process, per_sample = statistics.median(process_s), statistics.median(sample_s)
    if per_sample <= 0.0:
        return None
    samples, optimum = best_samples(components, per_process, per_sample)
    return SamplePlan(samples, optimum, components, per_process, per_sample, pilot_blocks)


def planning_block(block: int) -> bool:
    """Whether the plan is made (again) before `block`: after PILOT_BLOCKS blocks, then each time
    the blocks read have doubled (3, 6, 12, 24...), so the estimate firms up and -v says each change once."""
    if block < PILOT_BLOCKS or block % PILOT_BLOCKS:
        return False
    n = block // PILOT_BLOCKS
    return n & (n - 1) == 0


class SamplePlans:
    """Per benchmark: every measured process's values and costs, and the samples per process planned from them."""

    def __init__(self) -> None:
        self._values: dict[str, dict[tuple[int, str], list[float]]] = {}
        self._costs: dict[str, list[tuple[float, float]]] = {}
        """benchmark -> (seconds besides the samples, seconds per sample) of each process measured
        without an allocation pass."""
        self._current: dict[str, int] = {}
        self._planned: dict[str, int] = {}
        """benchmark -> the block the plan was last made before."""

    def samples(self, benchmark: str) -> int:
        """Measured samples per process now: DEFAULT_SAMPLES until a plan says otherwise."""
        return self._current.get(benchmark, DEFAULT_SAMPLES)

    def record(self, benchmark: str, block: int, variant: str, values: Sequence[float], clocks: Any,
               took: float | None) -> None:
        """One measured process: its values (time per op) and its costs.

        Args:
            clocks: the harness's clocks around the measured samples (`{"wall": s, ...}`).
            took: seconds the whole process took, or None when it did more than a plain process
                (an allocation pass): its costs are then left out.
        """
        self._values.setdefault(benchmark, {})[(block, variant)] = list(values)
        wall = clocks.get("wall") if isinstance(clocks, Mapping) else None
        if took is None or not isinstance(wall, (int, float)) or wall <= 0 or not values:
            return
        self._costs.setdefault(benchmark, []).append((max(took - float(wall), 0.0), float(wall) / len(values)))

    def replan(self, benchmark: str, block: int) -> SamplePlan | None:
        """Before `block`: at a planning block, the plan from the blocks before it. Returns the plan
        when it is the first or changes the samples per process (to be said), else None."""
        if not planning_block(block) or self._planned.get(benchmark, -1) >= block:
            return None
        self._planned[benchmark] = block
        values = {key: v for key, v in self._values.get(benchmark, {}).items() if key[0] < block}
        costs = self._costs.get(benchmark, [])
        plan = plan_samples(values, [c[0] for c in costs], [c[1] for c in costs], block)
        if plan is None:
            return None
        first = benchmark not in self._current
        if not first and plan.samples == self._current[benchmark]:
            return None
        self._current[benchmark] = plan.samples
        return plan
