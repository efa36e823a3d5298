"""What the analysis derives from a Run beyond its comparisons: the sweep tables, the suite summary and
the differential profiles (analysis/profiles.py's figures, stored so that reports only read them).

Data only, as model.py, beside it so that the model stays one screenful of the core types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from pairbench.model import Comparison, Metric, Spread

__all__ = ["SweepRow", "SweepTrend", "SweepTable", "SuiteSummary", "FrameDifference", "ProfileDifference"]


@dataclass(frozen=True, slots=True)
class SweepRow:
    """One point of a sweep: its values and, unless it is the baseline, the run's comparison of it."""

    variant: str
    params: Mapping[str, str]
    """The sweep coordinates of this point."""
    spread: Spread | None
    """Its per-block values, as the main table shows them."""
    comparison: Comparison | None = None
    """The analysis's comparison with the baseline (the main table's), None for the baseline row."""

    @property
    def verdict(self) -> str:
        if self.comparison is None:
            return "baseline"
        return self.comparison.verdict

    @property
    def ratio(self) -> float | None:
        return 1.0 if self.comparison is None else self.comparison.ratio

    @property
    def ci(self) -> tuple[float, float] | None:
        """The CI the verdict rests on (adjusted when the run corrected for multiplicity)."""
        return None if self.comparison is None else self.comparison.verdict_ci


@dataclass(frozen=True, slots=True)
class SweepTrend:
    """A least-squares fit of ln(value) (each point's ratio to the baseline) on one numeric sweep parameter."""

    parameter: str
    held: str
    """The other coordinates held fixed (`jit=on`), or empty."""
    slope: float
    """Change of ln(value) per unit of the parameter."""
    ci: tuple[float, float] | None
    r_squared: float
    n: int

    @property
    def percent_per_unit(self) -> float:
        return (math.exp(self.slope) - 1.0) * 100.0


@dataclass(frozen=True, slots=True)
class SweepTable:
    """One benchmark × metric × swept base variant: every point, the best one, the trends."""

    benchmark: str
    metric: Metric
    base: str
    """The swept base variant (`patched`)."""
    params: tuple[str, ...]
    """Sweep names, the table's leading columns."""
    baseline: str
    rows: tuple[SweepRow, ...]
    family: int
    """Comparisons in the multiplicity family the verdicts were corrected over (1: none)."""
    correction: str = "none"
    """`holm`, `bh` or `none`: the run's correction, the same as the main table's."""
    best: str | None = None
    """Variant with the best median."""
    runner_up: str | None = None
    best_vs_runner_up: Comparison | None = None
    """runner-up ÷ best, paired over blocks (the analysis's paired comparison, unadjusted)."""
    trends: tuple[SweepTrend, ...] = ()
    confidence: float = 0.95
    threshold: float = 0.01

    @property
    def distinguishable(self) -> bool | None:
        c = self.best_vs_runner_up
        if c is None or c.ci is None:
            return None
        return c.significant

    def row(self, variant: str) -> SweepRow:
        for r in self.rows:
            if r.variant == variant:
                return r
        raise KeyError(variant)


@dataclass(frozen=True, slots=True)
class SuiteSummary:
    """Geometric mean over benchmarks of one candidate's primary-metric ratios (METHOD §6)."""

    candidate: str
    baseline: str
    ratio: float
    """Geometric mean of candidate ÷ baseline, oriented so that below 1 is better (rates inverted)."""
    ci: tuple[float, float]
    """Block-bootstrap CI that keeps benchmarks measured in one block together."""
    confidence: float
    benchmarks: int
    blocks: int
    reached_confidence: float | None = None
    """Set when the blocks are too few for `confidence`: `ci` is then the signed-rank interval of the
    per-block suite differences at this, the most they reach (as a comparison's `reached_ci`)."""
    left_out: tuple[str, ...] = ()
    """Benchmarks with a value of 0 or less, compared by their means: a geometric mean cannot hold them."""


@dataclass(frozen=True, slots=True)
class FrameDifference:
    """One frame's part of a difference, in seconds per run (candidate minus baseline)."""

    frame: str
    self_s: float
    """Change of the time spent in the frame itself."""
    total_s: float
    """Change of the time spent in the frame and what it calls."""
    self_share: float | None
    """self_s over the measured difference (1.0: all of it); None when that difference is about zero."""
    total_share: float | None
    interval: tuple[float, float] | None
    """Interval of self_s across the profiling blocks (None with one block)."""
    baseline_s: float
    """The baseline's self time in the frame, per run."""
    noise: bool = False
    """The blocks disagree on its sign (its interval holds zero): noise, not a cause."""


@dataclass(frozen=True, slots=True)
class ProfileDifference:
    """Where one candidate differs from the baseline on one benchmark."""

    benchmark: str
    baseline: str
    candidate: str
    sampler: str
    metric: str
    """The timed metric the shares are of (time, or the primary metric without one)."""
    baseline_s: float
    candidate_s: float
    frames: tuple[FrameDifference, ...]
    """Every frame that changed, largest self change first."""
    blocks: int
    """Profiling blocks paired."""
    samples: tuple[float, float]
    """The weight (samples or instructions) of the baseline's and the candidate's profiles."""
    too_short: bool = False
    """Fewer than MIN_SAMPLES samples on a side: the frames say too little."""
    unit: str = "s"
    """The unit of `metric` (the frames' changes are in it)."""
    per: str = "run"
    """What one value is of: a run (a command) or an operation (micro)."""
    significant: bool = True
    """The verdict found a difference (faster or slower); else the shares are left out."""
    files: Mapping[str, str] = field(default_factory=dict)
    """File names shown under another name in both sides' frames (`script_alias`)."""

    @property
    def difference_s(self) -> float:
        return self.candidate_s - self.baseline_s

    def added(self, count: int = 5) -> list[FrameDifference]:
        """The frames that take the most added time (self), largest first."""
        return [f for f in sorted(self.frames, key=lambda f: -f.self_s) if f.self_s > 0][:count]

    def removed(self, count: int = 5) -> list[FrameDifference]:
        """The frames that give back the most time (self), largest first."""
        return [f for f in sorted(self.frames, key=lambda f: f.self_s) if f.self_s < 0][:count]
