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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pairbench.stats._dist import norm_cdf, norm_ppf, t_ppf

__all__ = ["BOOTSTRAP_RESAMPLES", "BootstrapInterval", "bca_mean_interval", "bca_p_value", "drawn_sums",
           "release_resamples", "resample_counts", "resampled_sums"]

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


_CHUNK_ROWS = 64
"""Resamples drawn and multiplied at a time. Even: numpy draws bounded integers below 2**32 two to
a 64-bit word and drops a word's unused half at the end of a call, so even-sized draws continue
the stream one draw of the whole matrix makes (the same blocks as before it was drawn in chunks)."""


def _count_chunks(n: int, resamples: int, seed: int) -> Iterator[tuple[int, np.ndarray]]:
    """The rows of the (resamples, n) matrix of counts, `_CHUNK_ROWS` at a time: (first row, chunk)."""
    rng = np.random.default_rng(seed)
    offsets = (np.arange(_CHUNK_ROWS) * n)[:, None]
    for start in range(0, resamples, _CHUNK_ROWS):
        rows = min(_CHUNK_ROWS, resamples - start)
        idx = rng.integers(0, n, size=(rows, n)) + offsets[:rows]
        yield start, np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n)


@lru_cache(maxsize=2)
def resample_counts(n: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """How often each of n blocks appears in each resample: a (resamples, n) array, rows sum to n.

    Cached and read-only: with a fixed seed the same blocks are drawn every time. Small integers
    (uint8, wider when a block is drawn 256 times or more in one resample). The analysis itself
    never holds the whole matrix (`drawn_sums`); this is for code that wants it.
    """
    counts = np.empty((resamples, n), dtype=np.uint8)
    for start, chunk in _count_chunks(n, resamples, seed):
        top = int(chunk.max())
        if top > np.iinfo(counts.dtype).max:
            counts = counts.astype(np.min_scalar_type(max(top, n)))
        counts[start:start + chunk.shape[0]] = chunk
    counts.setflags(write=False)
    return counts


def drawn_sums(n: int, xs: Sequence[np.ndarray], resamples: int = BOOTSTRAP_RESAMPLES,
               seed: int = 0) -> list[np.ndarray]:
    """counts @ x for each x (a vector or a matrix of n rows), the counts drawn by chunks of rows.

    Why by chunks: the whole matrix of 10,000 x 300 blocks was 24 MB as float64, built through four
    arrays of that size, and cached, which made a 300-block run peak at ~140 MB; a chunk of 64 rows
    is 150 KB. Each chunk is turned into float64 and multiplied with einsum, not `@`: a matrix
    product goes to multi-threaded BLAS, which on a busy 2-core machine spins and runs 2-10x slower
    than einsum's single-threaded loop. Each row's sum is the one a single einsum over the whole
    float matrix gave, bit for bit (tests/unit/test_stats_bootstrap_memory.py).
    """
    outs = [np.empty((resamples, *x.shape[1:])) for x in xs]
    for start, chunk in _count_chunks(n, resamples, seed):
        weights = chunk.astype(float)
        rows = slice(start, start + chunk.shape[0])
        for x, out in zip(xs, outs):
            np.einsum("ij,j->i" if x.ndim == 1 else "ij,jk->ik", weights, x, out=out[rows])
    return outs


def resampled_sums(counts: np.ndarray, x: np.ndarray) -> np.ndarray:
    """counts @ x for a matrix of counts (`resample_counts`) held whole, by chunks as `drawn_sums`."""
    out = np.empty((counts.shape[0], *x.shape[1:]))
    for start in range(0, counts.shape[0], _CHUNK_ROWS):
        rows = slice(start, start + _CHUNK_ROWS)
        np.einsum("ij,j->i" if x.ndim == 1 else "ij,jk->ik", counts[rows].astype(float), x, out=out[rows])
    return out


@lru_cache(maxsize=4)
def _boot_means(data: bytes, resamples: int, seed: int) -> np.ndarray:
    """The resampled means of the float64 values in `data`, read-only.

    Cached: an interval and its p-value (bca_p_value) resample the same values.
    """
    x = np.frombuffer(data)
    (sums,) = drawn_sums(x.size, [x], resamples, seed)
    boot = sums / x.size
    boot.setflags(write=False)
    return boot


def release_resamples() -> None:
    """Drop what the resampling caches hold once an analysis is done: the next analysis is of
    other values, while the memory would sit under the run file, the history and the report."""
    resample_counts.cache_clear()
    _boot_means.cache_clear()


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
    theta, boot, z0, acc = _bca_setup(x, resamples, seed)
    if boot is None:
        return BootstrapInterval(theta, theta, theta, confidence, 0.0, 0.0, resamples)
    lo, hi = _quantiles(boot, _bca_levels(x.size, confidence, z0, acc, expanded))
    return BootstrapInterval(theta, float(lo), float(hi), confidence, z0, acc, resamples)


def bca_p_value(d: Sequence[float] | np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0,
                expanded: bool = True) -> float:
    """The p-value the BCa interval inverts: the smallest α whose 1 - α interval excludes 0.

    A verdict made on the bootstrap interval must agree with the p-value that multiplicity
    corrections use, so the p-value is read off the same intervals (nested in α, so the set of
    α that exclude 0 is an interval), by bisection on log α to a relative 1e-15.

    Args:
        d: one value per block (log-differences).
        resamples, seed, expanded: as for bca_mean_interval (the same values give the same intervals).

    Returns:
        p in [0, 1]: 0 when even the widest interval excludes 0, 1 when none does.
    """
    x = np.asarray(d, dtype=float)
    theta, boot, z0, acc = _bca_setup(x, resamples, seed)
    if boot is None:
        return 1.0 if theta == 0 else 0.0
    ordered = np.sort(boot)
    r = ordered.size

    def excludes(alpha: float) -> bool:
        ks = [min(max(int(round(q * (r - 1))), 0), r - 1) for q in _bca_levels(x.size, 1 - alpha, z0, acc, expanded)]
        return bool(ordered[ks[0]] > 0 or ordered[ks[1]] < 0)

    lo_a, hi_a = 1e-15, 1.0 - 1e-12
    if excludes(lo_a):
        return 0.0
    if not excludes(hi_a):
        return 1.0
    a, b = math.log(lo_a), math.log(hi_a)
    for _ in range(200):
        mid = (a + b) / 2
        if mid in (a, b):
            break
        if excludes(math.exp(mid)):
            b = mid
        else:
            a = mid
    return math.exp(b)


def _bca_setup(x: np.ndarray, resamples: int, seed: int) -> tuple[float, np.ndarray | None, float, float]:
    """The mean, the resampled means (None without spread), the bias correction z0 and the acceleration."""
    n = x.size
    if n < 2:
        raise ValueError(f"a bootstrap interval needs at least 2 values, got {n}")
    theta = float(x.mean())
    if np.ptp(x) == 0:
        return theta, None, 0.0, 0.0
    boot = _boot_means(np.ascontiguousarray(x).tobytes(), resamples, seed)
    # Bias correction: share of resampled means below the estimate (ties count half).
    below = float(np.count_nonzero(boot < theta)) + 0.5 * float(np.count_nonzero(boot == theta))
    prop = min(max(below / resamples, 0.5 / resamples), 1 - 0.5 / resamples)
    z0 = norm_ppf(prop)
    # Acceleration from the jackknife of the mean.
    jack = (x.sum() - x) / (n - 1)
    dev = jack.mean() - jack
    denom = 6.0 * float(np.sum(dev * dev)) ** 1.5
    acc = float(np.sum(dev ** 3)) / denom if denom > 0 else 0.0
    return theta, boot, z0, acc


def _bca_levels(n: int, confidence: float, z0: float, acc: float, expanded: bool) -> list[float]:
    """The bootstrap quantile levels of the BCa interval's two ends."""
    alpha = 1 - confidence
    if expanded:
        z = math.sqrt(n / (n - 1)) * t_ppf(1 - alpha / 2, n - 1)
    else:
        z = norm_ppf(1 - alpha / 2)
    levels = []
    for zz in (-z, z):
        num = z0 + zz
        den = 1 - acc * num
        if den <= 0:  # beyond the pole the formula folds back; the limit is the end of the distribution
            levels.append(0.0 if zz < 0 else 1.0)
        else:
            levels.append(norm_cdf(z0 + num / den))
    return levels


def _quantiles(x: np.ndarray, levels: list[float]) -> tuple[float, float]:
    """Order statistics at round(level·(R-1)), by one partial sort (np.quantile is several times slower).

    With 10,000 resamples, interpolating between neighbours would move an end by less than the
    Monte Carlo error, so it is not done.
    """
    n = x.size
    ks = [min(max(int(round(q * (n - 1))), 0), n - 1) for q in levels]
    part = np.partition(x, sorted(set(ks)))
    return float(part[ks[0]]), float(part[ks[1]])
