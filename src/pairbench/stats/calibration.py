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

__all__ = ["AACalibration", "BudgetNoise", "NoiseCalibration", "aa_calibration", "nice_band", "noise_calibration"]


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


# --- the noise of one machine and benchmark, from one long A/A run -----------------------------------

SUBRUNS = 20
"""Contiguous sub-runs an A/A run is cut into: with 20, the band is their largest standardized
distance, which a fresh run exceeds with probability at most 1/21 < 5% (see `noise_calibration`)."""

MIN_SUBRUN_BLOCKS = 6
"""A sub-run needs as many blocks as a verdict does (METHOD §1)."""

MIN_BLOCKS = 2 * MIN_SUBRUN_BLOCKS
"""Fewest A/A blocks a calibration can use: two sub-runs."""

_NICE = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
"""Steps of the recommended band per decade (0.8% -> 1%, 1.1% -> 1.5%)."""


@dataclass(frozen=True, slots=True)
class BudgetNoise:
    """What one time budget can resolve on this machine, for one benchmark and metric."""

    seconds: float
    """The budget."""
    blocks: int
    """Blocks (A and A once each) that fit in it at the measured cost per block."""
    mde: float
    """Smallest change (fraction) found with 80% power in that many blocks; inf below 6 blocks."""
    band: float
    """±δ (fraction) that keeps A/A false alarms (whole CI beyond ±δ) at or below the target."""
    delta: float
    """The band to use: the larger of `mde` and `band`, rounded up to 1, 1.5, 2, 3, 5 or 7 × 10^k %."""


@dataclass(frozen=True, slots=True)
class NoiseCalibration:
    """One benchmark and metric measured against itself, and what that says about budgets and bands."""

    blocks: int
    """Paired A/A blocks measured."""
    block_seconds: float
    """Measured wall time of one block (both copies, overheads included)."""
    replicate_sd: float
    """Spread of one replicate: SD of ln(value) within each copy, pooled (≈ the CV)."""
    ratio_sd: float
    """SD of the paired log-ratios ln(A'/A) over blocks."""
    subruns: int
    """Contiguous sub-runs the blocks were cut into (0: too few blocks for a band)."""
    subrun_blocks: int
    """Blocks of the shortest sub-run."""
    subrun_alarms: int
    """Sub-runs whose own 95% CI excluded a ratio of 1 (A/A false alarms at δ = 0)."""
    shift: float
    """How far the whole run's 95% CI of A'/A lies from 1 (fraction; 0 when it contains 1)."""
    excess: float
    """The sub-runs' chosen distance of their CIs from 0, in standard errors (nan without sub-runs)."""
    target: float
    """The false-alarm rate the bands are set for."""
    budgets: tuple[BudgetNoise, ...]
    """One entry per budget asked, shortest first."""

    def at(self, seconds: float) -> BudgetNoise:
        """The entry of budget `seconds` (KeyError if it was not asked)."""
        for b in self.budgets:
            if b.seconds == seconds:
                return b
        raise KeyError(seconds)


def nice_band(fraction: float) -> float:
    """The smallest of 1, 1.5, 2, 3, 5, 7 × 10^k percent at or above `fraction` (as a fraction)."""
    if not math.isfinite(fraction):
        return math.inf
    pct = max(fraction * 100.0, 0.1)
    decade = 10.0 ** math.floor(math.log10(pct))
    for step in _NICE + (10.0,):
        value = step * decade
        if value >= pct * (1 - 1e-9):
            return round(value / 100.0, 12)
    return 10.0 * decade / 100.0  # pragma: no cover - the loop always ends at 10 × decade


def _standardized_excess(d: Sequence[float], confidence: float) -> tuple[float, bool]:
    """How far a sub-run's t CI lies beyond 0, in standard errors: max(0, |t| - t_crit); and whether it excludes 0."""
    from pairbench.stats._dist import t_ppf

    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    crit = t_ppf(0.5 + confidence / 2, n - 1)
    if var <= 0:
        return (0.0, False) if mean == 0 else (math.inf, True)
    t = abs(mean) / math.sqrt(var / n)
    return max(0.0, t - crit), t > crit


def _pooled_log_sd(a: Sequence[float], b: Sequence[float]) -> float:
    def var(xs: Sequence[float]) -> float:
        logs = [math.log(x) for x in xs]
        m = sum(logs) / len(logs)
        return sum((x - m) ** 2 for x in logs) / (len(logs) - 1)

    return math.sqrt((var(a) + var(b)) / 2)


def noise_calibration(baseline: Sequence[float], candidate: Sequence[float], block_seconds: float,
                      budgets: Sequence[float], *, target: float = 0.05, confidence: float = 0.95,
                      subruns: int = SUBRUNS) -> NoiseCalibration:
    """Calibrate from one A/A run: per-block values of a command and of itself, in block order.

    The band is not the t formula alone: the run is cut into contiguous sub-runs (so drift,
    bursts and heavy tails stay in them), each is judged like a real comparison, and its CI's
    distance from 0 is measured in its own standard errors. The ceil((1-q)(k+1))-th smallest of
    the k distances (the largest with k = 20) is exceeded by a fresh exchangeable run with
    probability at most q (the conformal rank argument); scaled by the standard error a budget's
    blocks give, it is the band for that budget. A shift of the whole run's CI from 0 (a slot or
    order effect that does not shrink with more blocks) is a floor under every band.

    Args:
        baseline: the first copy's value per block (> 0).
        candidate: the second copy's values for the same blocks.
        block_seconds: measured wall time of one block.
        budgets: budgets in seconds to report (e.g. 20, 60 and the one asked).
        target: false-alarm rate to keep the band at.
        confidence: CI level of the comparisons the band is for.
        subruns: sub-runs to cut the run into (fewer when blocks are short: at least 6 each).

    Returns:
        The calibration; bands are nan when fewer than 12 blocks were measured.
    """
    from pairbench.stats.verdict import min_detectable_effect

    if len(baseline) != len(candidate):
        raise ValueError(f"{len(baseline)} baseline values but {len(candidate)} candidate values")
    if any(not x > 0 for x in list(baseline) + list(candidate)):
        raise ValueError("A/A values must be positive")
    n = len(baseline)
    if n < 2:
        raise ValueError(f"a calibration needs at least 2 blocks, got {n}")
    d = [math.log(c) - math.log(b) for b, c in zip(baseline, candidate)]
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    k = min(subruns, n // MIN_SUBRUN_BLOCKS)
    excess: list[float] = []
    alarms = 0
    if k >= 2:
        edges = [round(i * n / k) for i in range(k + 1)]
        for lo, hi in zip(edges, edges[1:]):
            u, alarm = _standardized_excess(d[lo:hi], confidence)
            excess.append(u)
            alarms += alarm
    whole_u, _ = _standardized_excess(d, confidence)
    shift = whole_u * sd / math.sqrt(n)  # the whole run's CI distance from 0, on the log scale
    rank = math.ceil((1 - target) * (len(excess) + 1))
    quantile = sorted(excess)[min(rank, len(excess)) - 1] if excess else math.nan
    rows = []
    for seconds in sorted(set(float(s) for s in budgets)):
        blocks = int(seconds / block_seconds) if block_seconds > 0 else 0
        if blocks < MIN_SUBRUN_BLOCKS:
            rows.append(BudgetNoise(seconds, blocks, math.inf, math.inf, math.inf))
            continue
        se = sd / math.sqrt(blocks)
        mde = min_detectable_effect(se, confidence)
        band = math.expm1(max(quantile * se, shift)) if excess else math.nan
        rows.append(BudgetNoise(seconds, blocks, mde, band, nice_band(max(mde, band) if excess else mde)))
    return NoiseCalibration(
        blocks=n, block_seconds=block_seconds, replicate_sd=_pooled_log_sd(baseline, candidate), ratio_sd=sd,
        subruns=len(excess), subrun_blocks=min((hi - lo for lo, hi in zip(edges, edges[1:])), default=0) if k >= 2 else 0,
        subrun_alarms=alarms, shift=math.expm1(shift), excess=quantile, target=target, budgets=tuple(rows),
    )
