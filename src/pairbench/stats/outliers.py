"""Outliers, skew and bimodality flags for a sample.

Method: modified z-scores with the median absolute deviation, `z = 0.6745 (x - median) / MAD`,
flagged when |z| > 3.5 (Iglewicz & Hoaglin, "How to Detect and Handle Outliers", 1993; the same
rule as hyperfine:src/outlier_detection.rs). When MAD is 0 (more than half the values equal) the
mean absolute deviation times 1.2533 stands in for it, so one stray value is still caught.
Skew: the adjusted Fisher-Pearson coefficient G1 flagged when |G1| > 2 SE(G1) (Joanes & Gill
1998 for G1 and its standard error). Bimodality: the sample bimodality coefficient
BC = (G1² + 1) / (G2 + 3(n-1)²/((n-2)(n-3))) > 5/9 (SAS; Pfister et al., Front. Psychol. 2013).
Outliers are reported, never dropped (METHOD §7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dataclasses import dataclass

import numpy as np

from pairbench.stats._order import median
__all__ = [
    "TwoGroups",
    "two_groups",
    "OUTLIER_Z",
    "bimodal_flag",
    "MIN_MODE",
    "MIN_MODE_SHARE",
    "two_levels",
    "bimodality_coefficient",
    "mad_zscores",
    "outlier_mask",
    "skew_flag",
    "skewness",
]

OUTLIER_Z = 3.5
"""Modified z-score above which a value is an outlier (Iglewicz & Hoaglin's recommendation)."""

_MAD_TO_Z = 0.6745
"""Φ⁻¹(0.75): makes MAD comparable with a standard deviation for normal data."""

_MEANAD_TO_Z = 0.7979
"""sqrt(2/π): the same for the mean absolute deviation (fallback when MAD is 0)."""


def _median(x: np.ndarray) -> float:
    """np.median without its overhead (this runs for every comparison)."""
    s = np.sort(x)
    h = s.size // 2
    return float(s[h]) if s.size % 2 else float((s[h - 1] + s[h]) / 2)


def mad_zscores(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Modified z-scores; zeros when the sample has no spread at all."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return x
    med = _median(x)
    dev = np.abs(x - med)
    mad = _median(dev)
    if mad > 0:
        return _MAD_TO_Z * (x - med) / mad
    mean_ad = float(np.mean(dev))
    if mean_ad > 0:
        return _MEANAD_TO_Z * (x - med) / mean_ad
    return np.zeros_like(x)


def outlier_mask(values: Sequence[float] | np.ndarray, threshold: float = OUTLIER_Z) -> np.ndarray:
    """True where |modified z| exceeds `threshold`."""
    mask: np.ndarray = np.abs(mad_zscores(values)) > threshold
    return mask


def skewness(values: Sequence[float] | np.ndarray) -> float:
    """Adjusted Fisher-Pearson skewness G1 (nan below 3 values or without spread)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 3:
        return math.nan
    m = x - x.mean()
    m2 = float(np.mean(m * m))
    if m2 <= 0:
        return math.nan
    g1 = float(np.mean(m ** 3)) / m2 ** 1.5
    return float(g1 * math.sqrt(n * (n - 1)) / (n - 2))


def _excess_kurtosis(x: np.ndarray) -> float:
    n = x.size
    m = x - x.mean()
    m2 = float(np.mean(m * m))
    if m2 <= 0 or n < 4:
        return math.nan
    g2 = float(np.mean(m ** 4)) / (m2 * m2) - 3.0
    return ((n + 1) * g2 + 6) * (n - 1) / ((n - 2) * (n - 3))


def skew_flag(values: Sequence[float] | np.ndarray) -> bool:
    """True when the skewness is more than twice its standard error."""
    x = np.asarray(values, dtype=float)
    n = x.size
    g1 = skewness(x)
    if math.isnan(g1):
        return False
    se = math.sqrt(6.0 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
    return abs(g1) > 2 * se


def bimodality_coefficient(values: Sequence[float] | np.ndarray) -> float:
    """Sample bimodality coefficient (nan below 4 values); above 5/9 suggests two modes."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 4:
        return math.nan
    g1 = skewness(x)
    g2 = _excess_kurtosis(x)
    if math.isnan(g1) or math.isnan(g2):
        return math.nan
    return (g1 * g1 + 1) / (g2 + 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3)))


MIN_MODE = 2
"""Values a group needs to be called a mode: a bimodality flag raised by one far value alone is
that value being an outlier (reported as such), not two groups."""
MIN_MODE_SHARE = 0.05
"""The share of the values a group needs as well: 2 far blocks of 586 raise the coefficient as two
groups would, and are outliers too (MAD z > 3.5 rarely marks more than a few percent)."""


def bimodal_flag(values: Sequence[float] | np.ndarray, min_n: int = 10) -> bool:
    """True when BC > 5/9 on at least `min_n` values (fewer give too many false flags)."""
    x = np.asarray(values, dtype=float)
    if x.size < min_n:
        return False
    bc = bimodality_coefficient(x)
    return not math.isnan(bc) and bc > 5.0 / 9.0


@dataclass(frozen=True, slots=True)
class TwoGroups:
    """The values split at their widest gap: what a bimodality flag observed, for the reader."""

    n_low: int
    n_high: int
    low: float
    """Median of the lower group."""
    high: float
    """Median of the upper group."""


def two_levels(groups: TwoGroups) -> bool:
    """Whether a bimodality flag's split is two levels of the values, not a few far ones."""
    smaller = min(groups.n_low, groups.n_high)
    return smaller >= max(MIN_MODE, math.ceil(MIN_MODE_SHARE * (groups.n_low + groups.n_high)))


def two_groups(values: Sequence[float] | np.ndarray) -> TwoGroups:
    """Split sorted values at the largest gap between neighbours (needs at least 2 values)."""
    x = np.sort(np.asarray(values, dtype=float))
    if x.size < 2:
        raise ValueError(f"two groups need at least 2 values, got {x.size}")
    cut = int(np.argmax(np.diff(x))) + 1
    return TwoGroups(cut, int(x.size - cut), median(x[:cut]), median(x[cut:]))
