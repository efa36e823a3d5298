"""What the analysis derives from a Run beyond its comparisons: the sweep tables and the suite summary.

Data only, as model.py, beside it so that the model stays one screenful of the core types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from pairbench.model import Comparison, Metric, Spread

__all__ = ["SweepRow", "SweepTrend", "SweepTable", "SuiteSummary"]


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
    """A least-squares fit of ln(median) on one numeric sweep parameter."""

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
