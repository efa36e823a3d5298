"""Bootstrap over blocks: the BCa interval of a mean, and resampling weights shared across series.

Methods and references:
- BCa (bias-corrected and accelerated) percentile interval, with the acceleration from the
  jackknife (Efron, JASA 1987; Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, §14.3);
  10,000 resamples with a fixed seed (criterion.rs uses 100,000; METHOD §3).
- The "expanded" percentile levels of Hesterberg ("What Teachers Should Know About the
  Bootstrap", The American Statistician 69(4), 2015, §5): the nominal z is replaced by
  sqrt(n/(n-1))·t_{n-1}, which removes the percentile bootstrap's known narrowness for small n.
  Without it a bootstrap interval of 10 blocks is ~18% narrower than the t interval for normal
  data and the "disagree by more than 10% of the width" check would fire on every small run.
- Resampling whole blocks keeps the correlation of everything measured in one block
  (Kalibera & Jones, ISMM 2013: resample at the highest level).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pairbench.stats._dist import norm_cdf, norm_ppf, t_ppf

__all__ = ["BOOTSTRAP_RESAMPLES", "BootstrapInterval", "bca_mean_interval", "resample_counts"]

BOOTSTRAP_RESAMPLES = 10_000
"""Resamples for bootstrap intervals (METHOD §3)."""


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A bootstrap CI of a mean with the BCa constants (for diagnostics)."""

    estimate: float
    low: float
    high: float
    confidence: float
    bias: float
    """z0, the bias correction."""
    acceleration: float
    resamples: int


@lru_cache(maxsize=64)
def resample_counts(n: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """How often each of n blocks appears in each resample: a (resamples, n) array, rows sum to n.

    Cached and read-only: with a fixed seed the same blocks are drawn every time, so many
    comparisons of the same size share one matrix and a mean is one matrix-vector product.
    """
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples) * n)[:, None]
    counts = np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)
    counts.setflags(write=False)
    return counts


def bca_mean_interval(d: Sequence[float] | np.ndarray, confidence: float = 0.95, *,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                      expanded: bool = True) -> BootstrapInterval:
    """BCa bootstrap CI of the mean of d, resampling its elements (blocks).

    Args:
        d: one value per block (log-differences).
        confidence: two-sided coverage.
        resamples: bootstrap resamples.
        seed: fixed seed, so the same data always give the same interval.
        expanded: use Hesterberg's small-sample expanded levels.

    Returns:
        The interval; degenerate (low = high = mean) when d has no spread.
    """
    x = np.asarray(d, dtype=float)
    n = x.size
    if n < 2:
        raise ValueError(f"a bootstrap interval needs at least 2 values, got {n}")
    theta = float(x.mean())
    if np.ptp(x) == 0:
        return BootstrapInterval(theta, theta, theta, confidence, 0.0, 0.0, resamples)
    # einsum, not `@`: a matrix-vector product goes to multi-threaded BLAS, which on a busy 2-core
    # machine spins and runs 2-10x slower than this single-threaded loop.
    boot = np.einsum("ij,j->i", resample_counts(n, resamples, seed), x) / n
    # Bias correction: share of resampled means below the estimate (ties count half).
    below = float(np.count_nonzero(boot < theta)) + 0.5 * float(np.count_nonzero(boot == theta))
    prop = min(max(below / resamples, 0.5 / resamples), 1 - 0.5 / resamples)
    z0 = norm_ppf(prop)
    # Acceleration from the jackknife of the mean.
    jack = (x.sum() - x) / (n - 1)
    dev = jack.mean() - jack
    denom = 6.0 * float(np.sum(dev * dev)) ** 1.5
    acc = float(np.sum(dev ** 3)) / denom if denom > 0 else 0.0
    alpha = 1 - confidence
    if expanded:
        z = math.sqrt(n / (n - 1)) * t_ppf(1 - alpha / 2, n - 1)
    else:
        z = norm_ppf(1 - alpha / 2)
    levels = []
    for zz in (-z, z):
        num = z0 + zz
        levels.append(norm_cdf(z0 + num / (1 - acc * num)))
    lo, hi = _quantiles(boot, levels)
    return BootstrapInterval(theta, float(lo), float(hi), confidence, z0, acc, resamples)


def _quantiles(x: np.ndarray, levels: list[float]) -> tuple[float, float]:
    """Order statistics at round(level·(R-1)), by one partial sort (np.quantile is several times slower).

    With 10,000 resamples, interpolating between neighbours would move an end by less than the
    Monte Carlo error, so it is not done.
    """
    n = x.size
    ks = [min(max(int(round(q * (n - 1))), 0), n - 1) for q in levels]
    part = np.partition(x, sorted(set(ks)))
    return float(part[ks[0]]), float(part[ks[1]])
