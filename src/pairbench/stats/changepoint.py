"""Change points in a benchmark's history: steps in a series of runs that the noise does not explain.

Method: binary segmentation (Scott & Knott 1974; the form used by most change-point
tools) on the log of each run's median. For every split of a segment, the two sides' means are
compared with a two-sample z statistic whose noise is the larger of
  - the run-to-run noise: 1.4826 · MAD of successive differences / √2 (robust to the steps
    themselves, since a step moves only one difference), and
  - the within-run noise: the pooled standard error of a median (1.2533 · σ / √n) per run, with σ
    = 1.4826 · MAD of the run's logs (robust: a stall per run moves no median, so it must not hide
    a step).
Steps that go up and come back are found by also comparing every inner stretch with the rest
(circular binary segmentation, Olshen et al. 2004). The best split is kept when z exceeds `z_threshold` and the step is at least `min_step` (the
practical ±δ band, as for verdicts), then both halves are searched again. The threshold is high
(4.5 by default) because the best of n−1 splits is a maximum over many tests; with it, flat noisy
series of 30 runs raise a false change point in about 1% of fixed-seed trials (tests/unit).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

__all__ = ["ChangePoint", "find_change_points", "median_interval"]

# Two-cut search is O(n²); above this many runs only single splits are tried.
_MAX_CIRCULAR = 400
# A two-cut fit has more freedom than a single split, so it must beat the threshold by this factor.
_CIRCULAR_MARGIN = 1.3


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """The series steps between runs `index - 1` and `index`."""

    index: int
    before: float
    """Median level of the segment before (in the series' unit)."""
    after: float
    """Median level of the segment from `index` on."""
    z: float

    @property
    def change(self) -> float:
        """Relative step, `after / before - 1`."""
        return self.after / self.before - 1.0


def _noise(levels: list[float], runs: Sequence[Sequence[float]]) -> float:
    between = 0.0
    if len(levels) >= 3:
        diffs = [abs(b - a) for a, b in zip(levels, levels[1:])]
        between = 1.4826 * statistics.median(diffs) / math.sqrt(2)
    ses = []
    for values in runs:
        logs = [math.log(v) for v in values if v > 0]
        if len(logs) >= 2:
            # The spread near the median is what moves a median: 1.4826 · MAD, not the standard
            # deviation, which one stall per run inflates enough to hide a clean 2x step.
            centre = statistics.median(logs)
            spread = 1.4826 * statistics.median(abs(x - centre) for x in logs)
            ses.append((1.2533 * spread) ** 2 / len(logs))
    within = math.sqrt(sum(ses) / len(ses)) if ses else 0.0
    return max(between, within, 1e-12)


def find_change_points(runs: Sequence[Sequence[float]], *, min_step: float = 0.01, z_threshold: float = 4.5,
                       min_size: int = 1) -> list[ChangePoint]:
    """Steps in a series of runs, oldest first.

    Args:
        runs: each run's measured values (positive; times, rates, bytes).
        min_step: smallest relative step worth flagging (the ±δ band).
        z_threshold: how many noise standard errors a step must exceed.
        min_size: fewest runs on each side of a change point.

    Returns:
        Change points in series order (empty for fewer than 2 usable runs).
    """
    usable = [[v for v in r if v > 0] for r in runs]
    if any(not r for r in usable) or len(usable) < 2:
        usable = [r for r in usable if r]
    if len(usable) < 2:
        return []
    levels = [math.log(statistics.median(r)) for r in usable]
    sigma = _noise(levels, usable)
    found: list[ChangePoint] = []

    prefix = [0.0]
    for y in levels:
        prefix.append(prefix[-1] + y)

    def mean(a: int, b: int) -> float:
        return (prefix[b] - prefix[a]) / (b - a)

    def z_of(inner: float, outer: float, n_in: int, n_out: int) -> float | None:
        diff = inner - outer
        if abs(math.expm1(diff)) < min_step:
            return None
        return abs(diff) / (sigma * math.sqrt(1 / n_in + 1 / n_out))

    def search(lo: int, hi: int) -> None:
        best: tuple[float, list[int]] | None = None
        for k in range(lo + min_size, hi - min_size + 1):
            z = z_of(mean(k, hi), mean(lo, k), hi - k, k - lo)
            if z is not None and (best is None or z > best[0]):
                best = (z, [k])
        # A step up and back down (an "epidemic" change) can hide from every single split;
        # compare each inner stretch with the rest (circular binary segmentation, Olshen et al. 2004).
        if hi - lo <= _MAX_CIRCULAR:
            for i in range(lo + min_size, hi - 2 * min_size + 1):
                for j in range(i + min_size, hi - min_size + 1):
                    n_in, n_out = j - i, (hi - lo) - (j - i)
                    outer = (prefix[i] - prefix[lo] + prefix[hi] - prefix[j]) / n_out
                    z = z_of(mean(i, j), outer, n_in, n_out)
                    if z is not None and (best is None or z > best[0] * _CIRCULAR_MARGIN):
                        best = (z / _CIRCULAR_MARGIN, [i, j])
        if best is None or best[0] < z_threshold:
            return
        cuts = [lo, *best[1], hi]
        for a, k, b in zip(cuts, cuts[1:], cuts[2:]):
            found.append(ChangePoint(k, math.exp(statistics.median(levels[a:k])),
                                     math.exp(statistics.median(levels[k:b])), best[0]))
        for a, b in zip(cuts, cuts[1:]):
            search(a, b)

    search(0, len(levels))
    found.sort(key=lambda c: c.index)
    return found


def median_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Distribution-free CI of a run's median: the order statistics whose ranks the binomial(n, ½)
    puts around the middle (Conover 1999, §3.2). None with too few values for the level.

    Why not a bootstrap: a trend shows hundreds of points, and this is exact and instant.
    """
    xs = sorted(values)
    n = len(xs)
    alpha = 1.0 - confidence
    # Largest k with P(B <= k - 1) <= alpha/2, B ~ Binomial(n, 1/2): the interval is [x_(k), x_(n-k+1)].
    cdf, k = 0.0, 0
    for j in range(n):
        cdf += math.comb(n, j) / 2.0 ** n
        if cdf > alpha / 2:
            break
        k = j + 1
    if k < 1:
        return None
    return xs[k - 1], xs[n - k]
