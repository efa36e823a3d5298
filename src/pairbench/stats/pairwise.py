"""Order statistics and counts of the m·n differences y_j - x_i without forming them.

The two-sample Hodges-Lehmann shift and the inverted Mann-Whitney interval are order statistics of
all differences y_j - x_i, and the interval's p-value counts those below 0. Formed and sorted,
they take 8·m·n bytes and O(mn log mn) time: 20,000 values a side took 9.4 GB and 80 s.

Method: with x and y sorted, row i of the matrix fl(y_j - x_i) is non-decreasing in j (rounding
is monotone), so the differences below t are counted row by row with a binary search of y, in
O(m log n); the guess from `t + x_i` is corrected against the computed differences themselves, so
counts are those of the formed matrix. The k-th smallest is then selected among the cells still
possible, as in Monahan's algorithm 616 (ACM TOMS 10(3), 1984) for the one-sample estimate and
Johnson & Mizoguchi (SIAM J. Comput. 7(2), 1978) for X + Y: each step samples the possible cells,
takes two pivots just around the wanted rank (Floyd & Rivest, CACM 18(3), 1975), and keeps per row
the column range between them; once O(m + n) cells remain they are formed and partitioned. Values
are computed as `y[j] - x[i]`, the operation the formed matrix uses, so they are the same floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["EXACT_MAX_CELLS", "difference_median", "difference_ranks", "differences_below", "formed"]

EXACT_MAX_CELLS = 250_000
"""Up to this many differences they are formed and sorted (2 MB; the results are the same)."""

_SAMPLE = 512
"""Cells sampled per selection step to place the two pivots."""


def formed(m: int, n: int) -> bool:
    """Whether m·n differences are few enough to form and sort (selection needs finite values)."""
    return m * n <= EXACT_MAX_CELLS


def _sorted(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.sort(np.asarray(x, dtype=float))
    b = np.sort(np.asarray(y, dtype=float))
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("pairwise differences by selection need finite values")
    return a, b


def _row_counts(a: np.ndarray, b: np.ndarray, t: float, strict: bool) -> np.ndarray:
    """Per row i, #{j : b[j] - a[i] < t} (or <= t), exactly as the computed differences compare."""
    side = "left" if strict else "right"
    pos = np.searchsorted(b, t + a, side=side)
    n = b.size
    while True:
        # Step over whole runs of equal y values, so ties cost one step, not one per value.
        prev = np.maximum(pos - 1, 0)
        d = b[prev] - a
        down = (pos > 0) & ((d >= t) if strict else (d > t))
        nxt = np.minimum(pos, n - 1)
        d = b[nxt] - a
        up = (pos < n) & ((d < t) if strict else (d <= t))
        if not (down.any() or up.any()):
            return pos
        pos[down] = np.searchsorted(b, b[prev[down]], side="left")
        pos[up] = np.searchsorted(b, b[nxt[up]], side="right")


def differences_below(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, t: float,
                      strict: bool = True) -> int:
    """How many of the m·n differences y_j - x_i are < t (<= t when not strict)."""
    a, b = _sorted(x, y)
    return int(_row_counts(a, b, float(t), strict).sum())


def _cells(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray,
           picks: np.ndarray | None = None) -> np.ndarray:
    """Values of the possible cells (columns lo[i]..hi[i]-1 of each row), all or those at `picks`."""
    width = hi - lo
    ends = np.cumsum(width)
    flat = np.arange(int(ends[-1])) if picks is None else picks
    rows = np.searchsorted(ends, flat, side="right")
    cols = lo[rows] + flat - (ends[rows] - width[rows])
    vals: np.ndarray = b[cols] - a[rows]
    return vals


def _select(a: np.ndarray, b: np.ndarray, k: int, rng: np.random.Generator) -> float:
    """The k-th smallest (0-based) of b[j] - a[i], a and b sorted."""
    m, n = a.size, b.size
    lo = np.zeros(m, dtype=np.int64)  # cells left of lo[i] are below every possible cell
    hi = np.full(m, n, dtype=np.int64)  # cells from hi[i] on are above
    cap = 4 * (m + n)
    while True:
        below = int(lo.sum())
        left = int(hi.sum()) - below
        if left <= cap:
            vals = _cells(a, b, lo, hi)
            return float(np.partition(vals, k - below)[k - below])
        sample = np.sort(_cells(a, b, lo, hi, rng.integers(0, left, size=_SAMPLE)))
        q = (k - below + 0.5) / left * _SAMPLE
        spread = 3.0 * math.sqrt(_SAMPLE * 0.25) + 1.0
        p_lo = float(sample[max(0, int(q - spread))])
        p_hi = float(sample[min(_SAMPLE - 1, int(q + spread))])
        lt = _row_counts(a, b, p_lo, strict=True)
        le = _row_counts(a, b, p_hi, strict=False)
        if k < int(lt.sum()):
            hi = np.minimum(hi, lt)
        elif k >= int(le.sum()):
            lo = np.maximum(lo, le)
        elif int(le.sum()) - int(lt.sum()) < left:
            lo, hi = np.maximum(lo, lt), np.minimum(hi, le)
        else:
            # The pivots span every possible cell (heavy ties): one pivot always makes progress.
            p = float(sample[min(_SAMPLE - 1, int(q))])
            lt = _row_counts(a, b, p, strict=True)
            le = _row_counts(a, b, p, strict=False)
            if k < int(lt.sum()):
                hi = np.minimum(hi, lt)
            elif k >= int(le.sum()):
                lo = np.maximum(lo, le)
            else:
                return p


def difference_ranks(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                     ranks: Sequence[int]) -> list[float]:
    """The differences y_j - x_i of the given 0-based ranks in sorted order (x, y finite)."""
    a, b = _sorted(x, y)
    total = a.size * b.size
    rng = np.random.default_rng(0)  # any pivots give the same values; fixed for a fixed run time
    out: list[float] = []
    for k in ranks:
        if not 0 <= k < total:
            raise ValueError(f"rank {k} is outside the {total} differences")
        out.append(_select(a, b, int(k), rng))
    return out


def difference_median(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """The median of the m·n differences, as numpy's median of them all (mean of the middle two)."""
    total = len(x) * len(y)
    if total % 2:
        return difference_ranks(x, y, [total // 2])[0]
    return float(np.mean(difference_ranks(x, y, [total // 2 - 1, total // 2])))
