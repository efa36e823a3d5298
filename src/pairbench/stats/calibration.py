"""A/A calibration: how often identical variants are called different, and the band that stops it.

Method (METHOD §7; faster-cpython/ideas#480): compare a variant with itself (A vs A, interleaved
like any run). Every significant A/A result is a false positive. Such a result would also be
called *meaningful* at a band δ when its whole CI lies beyond ±δ, i.e. when δ is below the
CI's distance from 0, min(|L|, |U|) on the percent scale. The band that keeps meaningful false
alarms at or below a rate q is therefore the (1 - q) quantile of those distances (0 for
non-significant results), taken as the order statistic ceil((1-q)·k) of k results. With few A/A
comparisons this is coarse; the count is reported with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.stats.compare import PairedResult

__all__ = ["AACalibration", "aa_calibration"]


@dataclass(frozen=True, slots=True)
class AACalibration:
    """What A/A comparisons say about the noise band."""

    comparisons: int
    """A/A comparisons with a CI (insufficient ones are left out)."""
    false_positive_rate: float
    """Share of them whose CI excludes a ratio of 1."""
    band: float
    """Smallest ±δ (fraction) at which at most `target` of them would be called meaningful."""
    target: float
    """The false-alarm rate the band is set for (0.05)."""
    max_shift: float
    """The largest distance of an A/A CI from 0 (fraction): a systematic A-vs-A effect if large."""


def aa_calibration(results: Sequence[PairedResult], target: float = 0.05) -> AACalibration:
    """Summarise A/A comparisons (one variant against itself) into a false-positive rate and a band.

    Args:
        results: compare_paired (or compare_unpaired) results of identical variants.
        target: acceptable rate of meaningful false alarms.

    Returns:
        The calibration; rate and band are nan without any usable result.
    """
    if not 0 < target < 1:
        raise ValueError(f"target {target!r} must be in (0, 1), e.g. 0.05")
    dists: list[float] = []
    for r in results:
        if r.ci is None or r.verdict == "insufficient":
            continue
        lo, hi = r.ci[0] - 1.0, r.ci[1] - 1.0
        dists.append(min(abs(lo), abs(hi)) if (lo > 0 or hi < 0) else 0.0)
    k = len(dists)
    if k == 0:
        return AACalibration(0, math.nan, math.nan, target, math.nan)
    ordered = sorted(dists)
    # A result is called meaningful when its distance exceeds δ: δ = the ceil((1-q)k)-th smallest
    # distance leaves at most floor(q·k) results above it.
    idx = max(math.ceil((1 - target) * k) - 1, 0)
    return AACalibration(k, sum(1 for d in dists if d > 0) / k, ordered[idx], target, ordered[-1])
