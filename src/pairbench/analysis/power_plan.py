"""A pilot run's samples (or a stored calibration) -> blocks and time to detect a given change.

`--plan EFFECT` measures a few blocks, then asks, for every candidate against the baseline on each
benchmark's primary metric, how many paired blocks find a change of EFFECT with 80% power
(stats/planning.py) and how long they take at the pilot's cost per block. The run then needs the
largest of them: every comparison is measured in every block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from pairbench.analysis.replicates import replicate_values
from pairbench.model import Run

__all__ = ["PLAN_POWER", "NoiseSource", "PlannedComparison", "RunPlan", "plan_comparisons"]

PLAN_POWER = 0.8
"""The power a plan is made for (the MDE every run file stores is at 80% too)."""


@dataclass(frozen=True, slots=True)
class NoiseSource:
    """The spread of one benchmark's paired log-ratios and what a block costs, from a calibration."""

    log_sd: float
    """SD of ln(candidate/baseline) per block."""
    blocks: int
    """Blocks the SD was estimated from."""
    label: str
    """Where it came from (`calibration #3 of 2026-12-01`)."""


@dataclass(frozen=True, slots=True)
class PlannedComparison:
    """The plan of one comparison (benchmark, primary metric, candidate against the baseline)."""

    benchmark: str
    metric: str
    baseline: str
    candidate: str
    log_sd: float
    """SD of the per-block log-ratios the plan rests on (nan: too few positive pairs)."""
    sd_blocks: int
    """Blocks that SD was estimated from."""
    blocks: int | None
    """Paired blocks for 80% power (None: not feasible, or no SD)."""
    blocks_low: int | None
    """The same at the low end of the SD's 90% interval."""
    blocks_high: int | None
    """... and at its high end (None: not feasible)."""
    source: str
    """`pilot of N blocks` or the calibration used."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What detecting `effect` takes for the whole run: its comparisons' plans and the time."""

    effect: float
    """The change to detect (fraction)."""
    comparisons: tuple[PlannedComparison, ...]
    block_s: float
    """Seconds one block of the whole run takes (every variant and benchmark once)."""
    startup_s: float
    """Seconds spent before the first block (preparing, calibrating loops, warm-ups)."""

    @property
    def blocks(self) -> int | None:
        """Blocks the run needs: the most any comparison needs (None: one is not feasible)."""
        counts = [c.blocks for c in self.comparisons]
        if not counts or any(n is None for n in counts):
            return None
        return max(n for n in counts if n is not None)

    def seconds(self, blocks: int | None) -> float:
        """Time `blocks` blocks take, start-up included (inf when not feasible)."""
        return math.inf if blocks is None else self.startup_s + blocks * self.block_s


def _log_sd(base: Mapping[int, float], cand: Mapping[int, float]) -> tuple[float, int]:
    common = [k for k in sorted(set(base) & set(cand)) if base[k] > 0 and cand[k] > 0]
    d = [math.log(cand[k]) - math.log(base[k]) for k in common]
    if len(d) < 2:
        return math.nan, len(d)
    mean = sum(d) / len(d)
    return math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1)), len(d)


def plan_comparisons(run: Run, effect: float, *, confidence: float = 0.95, correction: str = "holm",
                     calibrated: Mapping[str, NoiseSource] | None = None) -> tuple[PlannedComparison, ...]:
    """One plan per candidate and benchmark, on the benchmark's primary metric.

    Args:
        run: the pilot run (its samples); with `calibrated`, only its variants and benchmarks are read.
        effect: the change to detect (fraction).
        confidence: the verdict's CI level.
        correction: holm, bh or none: with a correction the comparisons are planned at α/m.
        calibrated: benchmark name -> stored noise, used instead of the pilot's samples.
    """
    from pairbench.stats.planning import plan_blocks

    base = run.baseline.name
    candidates = [v.name for v in run.variants if v.name != base]
    judged = [b for b in run.benchmarks if b.metrics and not b.metrics[0].exact and b.metrics[0].direction != "none"]
    m = len(candidates) * len(judged) if correction != "none" else 1
    out = []
    for bench in judged:
        metric = bench.metrics[0].name
        noise = (calibrated or {}).get(bench.name)
        values = replicate_values(run, bench.name, metric) if noise is None else {}
        for cand in candidates:
            if noise is not None:
                sd, k, source = noise.log_sd, noise.blocks, noise.label
            else:
                sd, k = _log_sd(values.get(base, {}), values.get(cand, {}))
                source = f"pilot of {k} blocks"
            plan = plan_blocks(sd, effect, sd_blocks=k, confidence=confidence, power=PLAN_POWER, comparisons=m)
            out.append(PlannedComparison(bench.name, metric, base, cand, sd, k, plan.blocks, plan.blocks_low,
                                         plan.blocks_high, source))
    return tuple(out)
