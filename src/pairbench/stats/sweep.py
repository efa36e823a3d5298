"""Statistics for sweep reports: per-setting estimates, corrected CIs, the trend over a parameter.

Methods (METHOD.md §2, §6); the paired comparisons and Holm's p-values are stats.compare's and
stats.multiplicity's:
- A setting's estimate is the geometric mean of its per-block values with a t interval on the
  log scale (logs, because effects on run time are multiplicative).
- Many settings compared with one baseline are a family: Holm's procedure adjusts the p-values;
  the matching simultaneous CIs are Bonferroni's, at level 1 − α/m, which METHOD.md §6 allows
  "for simplicity" (a little wider than Holm's decisions). `bonferroni_ci` widens a CI made at
  the plain level, keeping its centre on the log scale.
- The trend is an ordinary least-squares fit of ln(estimate) on the parameter's value; the slope
  is reported as a percent change per unit with a t interval on k − 2 degrees of freedom.

Floats in, dataclasses out; no formatting and no Run here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from pairbench.stats._dist import t_ppf

__all__ = ["Estimate", "Trend", "geometric_estimate", "bonferroni_ci", "trend_fit"]


@dataclass(frozen=True, slots=True)
class Estimate:
    value: float
    """Geometric mean."""
    ci: tuple[float, float] | None
    """None with fewer than 2 values."""
    n: int


@dataclass(frozen=True, slots=True)
class Trend:
    slope: float
    """Change of ln(value) per unit of the parameter."""
    ci: tuple[float, float] | None
    r_squared: float
    n: int

    @property
    def percent_per_unit(self) -> float:
        return (math.exp(self.slope) - 1.0) * 100.0


def _t(df: int, confidence: float) -> float:
    return t_ppf(0.5 + confidence / 2.0, df)


def _logs(values: Sequence[float]) -> list[float]:
    return [math.log(v) for v in values if v > 0 and math.isfinite(v)]


def geometric_estimate(values: Sequence[float], confidence: float = 0.95) -> Estimate | None:
    """Geometric mean with a t interval on logs; None when no value is positive."""
    logs = _logs(values)
    n = len(logs)
    if n == 0:
        return None
    mean = sum(logs) / n
    if n < 2:
        return Estimate(math.exp(mean), None, n)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    h = _t(n - 1, confidence) * sd / math.sqrt(n)
    return Estimate(math.exp(mean), (math.exp(mean - h), math.exp(mean + h)), n)


def bonferroni_ci(ratio: float, ci: tuple[float, float], n: int, m: int, confidence: float = 0.95) -> tuple[float, float]:
    """Widen a CI made on the log scale at `confidence` to level 1 − α/m (same centre, t-based)."""
    if m <= 1 or n < 2 or ratio <= 0 or ci[0] <= 0:
        return ci
    alpha = 1.0 - confidence
    scale = _t(n - 1, 1.0 - alpha / m) / _t(n - 1, confidence)
    centre = math.log(ratio)
    lo = centre - (centre - math.log(ci[0])) * scale
    hi = centre + (math.log(ci[1]) - centre) * scale
    return (math.exp(lo), math.exp(hi))


def trend_fit(xs: Sequence[float], ys: Sequence[float], confidence: float = 0.95) -> Trend | None:
    """OLS of ln(y) on x; None with fewer than 3 points or no spread in x."""
    pts = [(x, math.log(y)) for x, y in zip(xs, ys) if y > 0 and math.isfinite(x)]
    k = len(pts)
    if k < 3:
        return None
    mx = sum(x for x, _ in pts) / k
    my = sum(y for _, y in pts) / k
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    slope = sxy / sxx
    resid = [y - (my + slope * (x - mx)) for x, y in pts]
    sse = sum(r * r for r in resid)
    syy = sum((y - my) ** 2 for _, y in pts)
    r2 = 1.0 - sse / syy if syy > 0 else 1.0
    se = math.sqrt(sse / (k - 2) / sxx)
    h = _t(k - 2, confidence) * se
    return Trend(slope, (slope - h, slope + h), r2, k)
