"""Point estimates and descriptive summaries.

Methods: the mean of log-ratios (ratio of geometric means; Fleming & Wallace, CACM 1986) and the
Hodges-Lehmann estimators (Hodges & Lehmann, Ann. Math. Statist. 1963): the one-sample
pseudo-median, the median of the Walsh averages (d_i + d_j)/2 for i <= j, and the two-sample
shift, the median of all differences y_j - x_i. Summary statistics follow hyperfine and pyperf
(mean, median, stdev, MAD, quartiles, coefficient of variation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pairbench.stats._order import median as median_of, quantiles
from pairbench.stats.outliers import bimodal_flag, outlier_mask
from pairbench.stats.pairwise import difference_median, formed, walsh_median

__all__ = [
    "Summary",
    "hodges_lehmann",
    "hodges_lehmann_shift",
    "log_diffs",
    "log_values",
    "pairwise_differences",
    "summarize",
    "walsh_averages",
]


@dataclass(frozen=True, slots=True)
class Summary:
    """Descriptive statistics of one series of values (in their own unit)."""

    n: int
    mean: float
    median: float
    stdev: float
    """Sample standard deviation (n - 1); nan below 2 values."""
    mad: float
    """Median absolute deviation from the median (raw, not scaled to sigma)."""
    min: float
    max: float
    q1: float
    q3: float
    cv: float
    """stdev / mean (nan when the mean is 0)."""
    outliers: int
    """Values with |modified z| > 3.5."""
    bimodal: bool
    """Bimodality coefficient above 5/9 (with at least 10 values)."""


def summarize(values: Sequence[float] | np.ndarray) -> Summary:
    """Describe a series of values.

    Args:
        values: the measurements, any unit.

    Returns:
        A Summary; every field is nan (counts 0) for an empty series.
    """
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    if n == 0:
        nan = math.nan
        return Summary(0, nan, nan, nan, nan, nan, nan, nan, nan, nan, 0, False)
    mean = float(x.mean())
    stdev = float(x.std(ddof=1)) if n > 1 else math.nan
    median = median_of(x)
    q1, q3 = quantiles(x, [0.25, 0.75])
    return Summary(
        n=n,
        mean=mean,
        median=median,
        stdev=stdev,
        mad=median_of(np.abs(x - median)),
        min=float(x.min()),
        max=float(x.max()),
        q1=q1,
        q3=q3,
        cv=stdev / mean if mean != 0 and n > 1 else math.nan,
        outliers=int(outlier_mask(x).sum()),
        bimodal=bimodal_flag(x),
    )


def log_values(values: Sequence[float] | np.ndarray, what: str = "values") -> np.ndarray:
    """Natural logs of strictly positive values (ValueError naming `what` otherwise)."""
    x = np.asarray(values, dtype=float)
    if x.size and not np.all(np.isfinite(x) & (x > 0)):
        raise ValueError(f"{what}: ratios need finite values > 0, got {x[~(np.isfinite(x) & (x > 0))][:3].tolist()}")
    logs: np.ndarray = np.log(x)
    return logs


def log_diffs(baseline: Sequence[float], candidate: Sequence[float]) -> np.ndarray:
    """d_i = ln(c_i) - ln(b_i) for values aligned by block."""
    b = log_values(baseline, "baseline")
    c = log_values(candidate, "candidate")
    if b.shape != c.shape:
        raise ValueError(f"paired values need equal lengths, got {b.size} baseline and {c.size} candidate")
    d: np.ndarray = c - b
    return d


@lru_cache(maxsize=64)
def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n)


def walsh_averages(d: Sequence[float] | np.ndarray) -> np.ndarray:
    """Sorted (d_i + d_j)/2 over i <= j: n(n+1)/2 values."""
    x = np.asarray(d, dtype=float)
    i, j = _upper(x.size)
    return np.sort((x[i] + x[j]) / 2.0)


def hodges_lehmann(d: Sequence[float] | np.ndarray) -> float:
    """One-sample Hodges-Lehmann estimate: the median of the Walsh averages."""
    x = np.asarray(d, dtype=float)
    if x.size == 0:
        return math.nan
    if not formed(x.size * (x.size + 1) // 2) and np.all(np.isfinite(x)):
        return walsh_median(x)  # the same float, selected in O(n) memory (stats/pairwise.py)
    return median_of(walsh_averages(x))


def pairwise_differences(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> np.ndarray:
    """Sorted y_j - x_i over all pairs: m·n values."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    return np.sort(np.subtract.outer(b, a).ravel())


def hodges_lehmann_shift(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Two-sample Hodges-Lehmann shift of y relative to x: the median of all y_j - x_i.

    Many finite values are not formed in pairs but selected (stats/pairwise.py): the same float in
    O(m + n) memory.
    """
    if len(x) == 0 or len(y) == 0:
        return math.nan
    if not formed(len(x) * len(y)) and np.all(np.isfinite(x)) and np.all(np.isfinite(y)):
        return difference_median(x, y)
    return median_of(pairwise_differences(x, y))
