"""The median and quantiles of a 1-D array, as np.median and np.quantile give them, without them.

Why: both import numpy.ma on their first call (to check for masked arrays), ~1.3 MB of memory and
~10 ms of every run's analysis. Same values bit for bit: the median is the middle element, or the
two middle ones added and halved (np.median's mean of two); a quantile is numpy's default
("linear", Hyndman & Fan type 7) with numpy's own interpolation formula; both are NaN when any
value is NaN (tests/unit/test_stats_bootstrap_memory.py compares them with numpy's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["median", "quantiles"]


def median(values: Sequence[float] | np.ndarray) -> float:
    """The median of values (NaN if any is NaN); an empty input is np.median's (NaN, with its warning)."""
    x = np.asarray(values)
    if x.size == 0:
        return float(np.median(x))
    s = np.sort(x, axis=None)  # NaNs sort last
    if np.isnan(s[-1]):
        return float("nan")
    h = s.size // 2
    # in Python floats: np.mean of two converts each to float64 first, and inf + -inf gives NaN unwarned
    return float(s[h]) if s.size % 2 else (float(s[h - 1]) + float(s[h])) / 2


def quantiles(values: Sequence[float] | np.ndarray, levels: Sequence[float]) -> list[float]:
    """np.quantile(values, levels) for a non-empty 1-D input, as floats.

    numpy's linear method: the virtual index q(n-1) between two order statistics a and b, at a
    fraction g past a, gives a + (b - a)g below g = 0.5 and b - (b - a)(1 - g) from it on.
    """
    s = np.sort(np.asarray(values, dtype=float), axis=None)
    n = s.size
    if n == 0:
        raise ValueError("quantiles of an empty sample")
    if np.isnan(s[-1]):
        return [float("nan")] * len(levels)
    out = []
    for q in levels:
        virtual = n * q + (1 + q * (1 - 1 - 1)) - 1  # numpy's _compute_virtual_index with alpha = beta = 1
        low = min(max(int(np.floor(virtual)), 0), n - 1)
        high = min(low + 1, n - 1)
        g = virtual - low if 0 <= virtual < n - 1 else 0.0
        a, b = float(s[low]), float(s[high])
        d = b - a
        out.append(a + d * g if g < 0.5 else b - d * (1 - g))
    return out
