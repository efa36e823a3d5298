"""Drift diagnostic: a monotone trend of a series against block order.

Method: Kendall's τ-b between block index and value, with the two-sided p-value of the normal
approximation to S with the tie-corrected variance (Kendall, "Rank Correlation Methods", 1948,
ch. 4; the form scipy.stats.kendalltau uses for larger samples). Beyond PAIRS_MAX_N values S is
not summed over the n(n-1)/2 pairs but counted by Knight's merge sort (JASA 61, 1966): the same
integer in O(n log n) time and O(n) memory (20,000 values made 2·10^8 pairs, 3.2 GB of indices).
METHOD §7: with interleaving, drift widens the CI but no longer biases it; without interleaving it
biases the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pairbench.stats._dist import norm_cdf

__all__ = ["DRIFT_P", "PAIRS_MAX_N", "Trend", "trend"]

DRIFT_P = 0.01
"""A trend is reported below this p-value (stricter than 0.05 so A/A runs rarely show the note)."""

PAIRS_MAX_N = 64
"""Up to this many values S is summed over the pairs; beyond, counted by merge sort (same value).
Low: the pairs of 300 blocks' values (45,000 of them, with their index arrays) raised a 2 x 300
run's peak memory by ~2 MB, while the merge sort is as fast from ~50 values on."""


@dataclass(frozen=True, slots=True)
class Trend:
    """Kendall's τ of values against their order."""

    tau: float
    p_value: float
    n: int

    @property
    def flagged(self) -> bool:
        """A trend worth a note: at least 6 points and p < DRIFT_P."""
        return self.n >= 6 and self.p_value < DRIFT_P


@lru_cache(maxsize=64)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _tie_terms(x: np.ndarray) -> tuple[float, float, float]:
    xs = np.sort(x)
    if not np.any(xs[1:] == xs[:-1]):
        return 0.0, 0.0, 0.0
    _, counts = np.unique(xs, return_counts=True)
    t = counts[counts > 1].astype(float)
    return (float(np.sum(t * (t - 1) / 2)), float(np.sum(t * (t - 1) * (2 * t + 5))),
            float(np.sum(t * (t - 1) * (t - 2))))


def _s_by_pairs(x: np.ndarray, y: np.ndarray) -> float:
    i, j = _pairs(int(x.size))
    return float(np.sum(np.sign(x[j] - x[i]) * np.sign(y[j] - y[i])))


def _tied_pairs(sorted_keys: np.ndarray) -> int:
    """Pairs of equal values in a sorted array (or of equal rows, for a sorted 2-D array)."""
    same = sorted_keys[1:] == sorted_keys[:-1]
    if sorted_keys.ndim == 2:
        same = same.all(axis=1)
    bounds = np.flatnonzero(np.concatenate(([True], ~same, [True])))
    t = np.diff(bounds).astype(np.int64)
    return int(np.sum(t * (t - 1) // 2))


def _inversions(r: np.ndarray) -> int:
    """Pairs i < j with r[i] > r[j] (r integers in 0..n-1), by bottom-up merge sort in numpy."""
    n = int(r.size)
    idx = np.arange(n, dtype=np.int64)
    run = r.astype(np.int64)
    total, width, base = 0, 1, n + 1
    while width < n:
        block = idx // (2 * width)
        key = block * base + run  # runs of `width` sorted; the keys of all left runs sorted too
        first = (idx % (2 * width)) < width
        left_keys = key[first]
        ends = np.searchsorted(left_keys, (block[~first] + 1) * base, side="left")
        total += int(np.sum(ends - np.searchsorted(left_keys, key[~first], side="right")))
        run = np.sort(key) - block * base  # merge each pair of runs; blocks stay in place
        width *= 2
    return total


def _s_by_merge(x: np.ndarray, y: np.ndarray) -> float:
    """Concordant minus discordant pairs (Knight 1966): sort by (x, y), count y's inversions."""
    n = int(x.size)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    ranks = np.unique(ys, return_inverse=True)[1].ravel()
    tied_x = _tied_pairs(xs)
    tied_y = _tied_pairs(np.sort(y))
    tied_both = _tied_pairs(np.column_stack((xs, ys)))
    return float(n * (n - 1) // 2 - tied_x - tied_y + tied_both - 2 * _inversions(ranks))


def trend(values: Sequence[float] | np.ndarray, order: Sequence[float] | None = None) -> Trend:
    """Kendall's τ-b of `values` against `order` (default 0, 1, 2, ...) and its p-value."""
    y = np.asarray(values, dtype=float)
    n = int(y.size)
    x = np.arange(n, dtype=float) if order is None else np.asarray(order, dtype=float)
    if n < 3 or np.ptp(y) == 0 or np.ptp(x) == 0:
        return Trend(0.0, 1.0, n)
    s = _s_by_pairs(x, y) if n <= PAIRS_MAX_N else _s_by_merge(x, y)
    n0 = n * (n - 1) / 2
    tx, vx, wx = _tie_terms(x) if order is not None else (0.0, 0.0, 0.0)
    ty, vy, wy = _tie_terms(y)
    tau = s / math.sqrt((n0 - tx) * (n0 - ty))
    var = (n * (n - 1) * (2 * n + 5) - vx - vy) / 18.0
    var += 2 * tx * ty / (n * (n - 1))
    if n > 2:
        var += wx * wy / (9.0 * n * (n - 1) * (n - 2))
    if var <= 0:
        return Trend(tau, 1.0, n)
    z = abs(s) / math.sqrt(var)
    return Trend(tau, min(1.0, 2 * (1 - norm_cdf(z))), n)
