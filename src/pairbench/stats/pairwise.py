"""Order statistics and counts of all pairwise values (y_j - x_i, or Walsh averages) without forming them.

The two-sample Hodges-Lehmann shift and the inverted Mann-Whitney interval are order statistics of
the m·n differences y_j - x_i, and the interval's p-value counts those below 0; the one-sample
estimate and the signed-rank interval are the same over the n(n+1)/2 Walsh averages. Formed and
sorted, they take 8 bytes each and O(N log N) time: 20,000 values a side took 9.4 GB and 80 s.

Method: with the values sorted, row i of the matrix fl(y_j - x_i) (or fl(s_i + s_j)/2, j >= i) is
non-decreasing in j (rounding is monotone), so the cells below t are counted row by row with a
binary search, in O(m log n); the guess is corrected against the computed cells themselves, so
counts are those of the formed values. The k-th smallest is then selected among the cells still
possible, as in Monahan's algorithm 616 (ACM TOMS 10(3), 1984) for the one-sample estimate and
Johnson & Mizoguchi (SIAM J. Comput. 7(2), 1978) for X + Y: each step samples the possible cells,
takes two pivots just around the wanted rank (Floyd & Rivest, CACM 18(3), 1975), and keeps per row
the column range between them; once O(m + n) cells remain they are formed and partitioned. Cells
are computed as `y[j] - x[i]` and `(x[i] + x[j]) / 2.0`, the operations of the formed arrays, so
they are the same floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["EXACT_MAX_CELLS", "difference_median", "difference_ranks", "differences_below", "formed",
           "walsh_below", "walsh_median", "walsh_ranks"]

EXACT_MAX_CELLS = 8192
"""Up to this many pairwise values they are formed and sorted (64 KB; the results are the same).
Low: 300 blocks' 45,000 Walsh averages, their index arrays and the sort's copy raised a 2 x 300
run's peak memory by ~1.4 MB, and selection takes no longer from a few thousand cells on."""

_SAMPLE = 512
"""Cells sampled per selection step to place the two pivots."""


def formed(cells: int) -> bool:
    """Whether this many pairwise values are few enough to form and sort (selection needs finite values)."""
    return cells <= EXACT_MAX_CELLS


@dataclass(frozen=True, slots=True)
class _Matrix:
    """Row i holds the cells of columns first[i]..n-1, non-decreasing along the row."""

    a: np.ndarray
    """Row values, sorted."""
    b: np.ndarray
    """Column values, sorted."""
    walsh: bool
    """Cells (a[i] + b[j]) / 2 for j >= i (a is b); otherwise b[j] - a[i] for every j."""
    first: np.ndarray

    @staticmethod
    def of(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray | None) -> _Matrix:
        a = np.sort(np.asarray(x, dtype=float))
        b = a if y is None else np.sort(np.asarray(y, dtype=float))
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("pairwise values by selection need finite values")
        first = np.arange(a.size, dtype=np.int64) if y is None else np.zeros(a.size, dtype=np.int64)
        return _Matrix(a, b, y is None, first)

    @property
    def size(self) -> int:
        n = self.b.size
        return n * (n + 1) // 2 if self.walsh else self.a.size * n

    def cells(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        vals: np.ndarray = (self.a[rows] + self.b[cols]) / 2.0 if self.walsh else self.b[cols] - self.a[rows]
        return vals

    def counts(self, t: float, strict: bool) -> np.ndarray:
        """Per row, the column where cells stop being < t (<= t when not strict), as computed cells compare."""
        a, b, first = self.a, self.b, self.first
        side = "left" if strict else "right"
        pos = np.maximum(np.searchsorted(b, 2.0 * t - a if self.walsh else t + a, side=side), first)
        rows = np.arange(a.size)
        n = b.size
        while True:
            # Step over whole runs of equal column values, so ties cost one step, not one per value.
            prev = np.maximum(pos - 1, first)
            d = self.cells(rows, prev)
            down = (pos > first) & ((d >= t) if strict else (d > t))
            nxt = np.minimum(pos, n - 1)
            d = self.cells(rows, nxt)
            up = (pos < n) & ((d < t) if strict else (d <= t))
            if not (down.any() or up.any()):
                return pos
            pos[down] = np.maximum(np.searchsorted(b, b[prev[down]], side="left"), first[down])
            pos[up] = np.searchsorted(b, b[nxt[up]], side="right")

    def between(self, lo: np.ndarray, hi: np.ndarray, picks: np.ndarray | None = None) -> np.ndarray:
        """Cells of columns lo[i]..hi[i]-1 of each row: all, or those at the flat indices `picks`."""
        width = hi - lo
        ends = np.cumsum(width)
        flat = np.arange(int(ends[-1])) if picks is None else picks
        rows = np.searchsorted(ends, flat, side="right")
        return self.cells(rows, lo[rows] + flat - (ends[rows] - width[rows]))

    def select(self, k: int, rng: np.random.Generator) -> float:
        """The k-th smallest (0-based) cell."""
        lo = self.first.copy()  # cells left of lo[i] are below every possible cell
        hi = np.full(self.a.size, self.b.size, dtype=np.int64)  # cells from hi[i] on are above
        cap = 4 * (self.a.size + self.b.size)
        while True:
            below = int((lo - self.first).sum())
            left = int((hi - lo).sum())
            if left <= cap:
                return float(np.partition(self.between(lo, hi), k - below)[k - below])
            sample = np.sort(self.between(lo, hi, rng.integers(0, left, size=_SAMPLE)))
            q = (k - below + 0.5) / left * _SAMPLE
            spread = 3.0 * math.sqrt(_SAMPLE * 0.25) + 1.0
            pivots = (float(sample[max(0, int(q - spread))]), float(sample[min(_SAMPLE - 1, int(q + spread))]))
            lt, le = self.counts(pivots[0], strict=True), self.counts(pivots[1], strict=False)
            n_lt, n_le = int((lt - self.first).sum()), int((le - self.first).sum())
            if k < n_lt:
                hi = np.minimum(hi, lt)
            elif k >= n_le:
                lo = np.maximum(lo, le)
            elif n_le - n_lt < left:
                lo, hi = np.maximum(lo, lt), np.minimum(hi, le)
            else:
                # The pivots span every possible cell (heavy ties): one pivot always makes progress.
                p = float(sample[min(_SAMPLE - 1, int(q))])
                lt, le = self.counts(p, strict=True), self.counts(p, strict=False)
                if k < int((lt - self.first).sum()):
                    hi = np.minimum(hi, lt)
                elif k >= int((le - self.first).sum()):
                    lo = np.maximum(lo, le)
                else:
                    return p

    def ranks(self, ranks: Sequence[int]) -> list[float]:
        rng = np.random.default_rng(0)  # any pivots give the same values; fixed for a fixed run time
        out: list[float] = []
        for k in ranks:
            if not 0 <= k < self.size:
                raise ValueError(f"rank {k} is outside the {self.size} pairwise values")
            out.append(self.select(int(k), rng))
        return out

    def median(self) -> float:
        """As numpy's median of all cells (the mean of the middle two when their number is even)."""
        total = self.size
        if total % 2:
            return self.ranks([total // 2])[0]
        return float(np.mean(self.ranks([total // 2 - 1, total // 2])))


def difference_ranks(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                     ranks: Sequence[int]) -> list[float]:
    """The differences y_j - x_i of the given 0-based ranks in sorted order (x, y finite)."""
    return _Matrix.of(x, y).ranks(ranks)


def differences_below(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, t: float,
                      strict: bool = True) -> int:
    """How many of the m·n differences y_j - x_i are < t (<= t when not strict)."""
    mat = _Matrix.of(x, y)
    return int((mat.counts(float(t), strict) - mat.first).sum())


def difference_median(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """The median of the m·n differences, as numpy's median of them all."""
    return _Matrix.of(x, y).median()


def walsh_ranks(d: Sequence[float] | np.ndarray, ranks: Sequence[int]) -> list[float]:
    """The Walsh averages (d_i + d_j)/2, i <= j, of the given 0-based ranks in sorted order (d finite)."""
    return _Matrix.of(d, None).ranks(ranks)


def walsh_below(d: Sequence[float] | np.ndarray, t: float, strict: bool = True) -> int:
    """How many of the n(n+1)/2 Walsh averages are < t (<= t when not strict)."""
    mat = _Matrix.of(d, None)
    return int((mat.counts(float(t), strict) - mat.first).sum())


def walsh_median(d: Sequence[float] | np.ndarray) -> float:
    """The median of the Walsh averages (the one-sample Hodges-Lehmann estimate), as numpy's."""
    return _Matrix.of(d, None).median()
