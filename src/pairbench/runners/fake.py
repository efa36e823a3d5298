"""A runner with scripted timings, for tests of everything above the runners (no processes)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from pairbench.model import Benchmark, Notice, Profile, Sample, Variant
from pairbench.runners.base import Profiled, ProgressFn, Replicate

__all__ = ["FakeRunner"]


@dataclass
class FakeRunner:
    """Returns `base × factor[variant] × lognormal noise × drift(step)` for the benchmark's primary metric.

    Attributes:
        factors: true ratio of each variant to 1.0 (missing variants are 1.0).
        positional: the same by the variants' order (`--debug-fake 1,1.2`); used where `factors`
            names none.
        noise: standard deviation of the log noise.
        drift: multiplicative drift per measured step (0.001 = +0.1% per step), hitting every variant.
        fail_at: raise this exception at this step number (to test failures and Ctrl-C).
        step_seconds: how far each measurement moves `clock` (pass `clock=runner.clock` to the
            session): simulated time for tests of budgets, independent of how often it is read.
    """

    factors: Mapping[str, float] = field(default_factory=dict)
    positional: Sequence[float] = ()
    base: float = 0.1
    noise: float = 0.01
    drift: float = 0.0
    seed: int = 0
    fail_at: int | None = None
    fail_with: Callable[[], BaseException] = KeyboardInterrupt
    steps: int = 0
    closed: int = 0
    prepared: list[str] = field(default_factory=list)
    step_seconds: float | Mapping[str, float] = 0.0
    """Seconds one measurement takes: one figure, or one per variant."""
    now: float = 0.0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._order: dict[str, int] = {}

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        self.prepared.append(benchmark.name)
        self._order = {v.name: i for i, v in enumerate(variants)}
        return []

    def measure(
        self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool, progress: ProgressFn
    ) -> Replicate:
        if self.fail_at is not None and self.steps == self.fail_at:
            raise self.fail_with()
        self.steps += 1
        seconds = self.step_seconds
        self.now += seconds.get(variant.name, 0.0) if isinstance(seconds, Mapping) else seconds
        value = (
            self.base
            * self._factor(variant.name)
            * math.exp(self._rng.gauss(0.0, self.noise))
            * (1.0 + self.drift) ** self.steps
        )
        metric = benchmark.metrics[0].name
        if benchmark.metrics[0].direction == "higher":
            value = 1.0 / value
        progress(f"{variant.name} {value:.4g}")
        return Replicate(samples=[Sample(benchmark.name, variant.name, metric, value, block, warmup=warmup)])

    def profile(self, benchmark: Benchmark, variant: Variant, block: int, progress: ProgressFn) -> Profiled:
        """Scripted stacks with a known truth: a run is `main;setup` 30 and `main;work` 70 samples times
        the baseline's, and a variant's extra time (its factor) is all in `work`."""
        extra = 100.0 * (self._factor(variant.name) - 1.0)
        stacks = (("main;setup", 30.0), ("main;work", max(70.0 + extra, 1.0)))
        return Profiled(profile=Profile(benchmark.name, variant.name, block, "fake", "samples", stacks,
                                        seconds=self.base * self._factor(variant.name)))

    def clock(self) -> float:
        """The simulated time: the sum of the measurements' `step_seconds` so far."""
        return self.now

    def _factor(self, variant: str) -> float:
        if variant in self.factors:
            return self.factors[variant]
        i = self._order.get(variant, len(self.positional))
        return self.positional[i] if i < len(self.positional) else 1.0

    def close(self) -> None:
        self.closed += 1
