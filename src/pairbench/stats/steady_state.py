"""Steady state of one process's in-process series: flat, warm-up then steady, slowdown, or none.

Method: Barrett, Bolz-Tereick, Killick, Mount & Tratt, "Virtual machine warmup blows hot and cold",
OOPSLA 2017, §4: find the change points of a process's per-iteration (here per-sample) times,
then classify by its segments. No change point: *flat*. A last segment that spans the series' tail
(the last `tail` share of it, a quarter as Barrett et al.'s last 500 of 2000 iterations) is a steady
state; it is *warm-up* when no earlier segment is faster by more than the band, else *slowdown*.
A change point inside the tail: *no steady state*. Barrett et al. segment with PELT; here the
change points come from stats/changepoint.py (binary segmentation with a robust noise estimate and
the ±δ band as the smallest step that counts), so the history's steps and a process's warm-up are
found by one detector. Below MIN_ITERATIONS values there is too little to tell (None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from pairbench.stats.changepoint import find_change_points

__all__ = ["CLASSIFICATIONS", "MIN_ITERATIONS", "SteadyStateFit", "classify_series"]

CLASSIFICATIONS = ("flat", "warmup", "slowdown", "no steady state")
"""Barrett et al.'s categories of one process."""

MIN_ITERATIONS = 10
"""Fewest values a series needs to be classified: with the tail a quarter, a steady state then
spans at least 3 values."""

BLIP = 2
"""Longest stretch of values between two segments at one level that is an outlier, not a phase."""

TAIL = 0.25
"""Share of the series, at its end, that a steady state must span."""


@dataclass(frozen=True, slots=True)
class SteadyStateFit:
    """The classification of one series."""

    classification: str
    """One of CLASSIFICATIONS."""
    steady_start: int | None
    """Index of the first value of the steady state (0 when flat); None without one."""
    iterations: int
    """Values classified."""
    change_points: tuple[int, ...] = ()
    """Indexes where a segment starts."""
    steady_level: float = math.nan
    """Median of the steady segment (nan without one)."""
    fastest_level: float = math.nan
    """Median of the fastest segment."""

    @property
    def warmup_iterations(self) -> int | None:
        """Values before the steady state (None without one)."""
        return self.steady_start


def classify_series(values: Sequence[float], *, min_step: float = 0.01, tail: float = TAIL,
                    z_threshold: float = 4.5) -> SteadyStateFit | None:
    """Classify one process's series of times (lower is faster), oldest first.

    Args:
        values: per-iteration (or per-sample) times, positive.
        min_step: the smallest relative step that counts (the ±δ band).
        tail: share of the series at its end that a steady state must span.
        z_threshold: the change-point detector's threshold (stats/changepoint.py).

    Returns:
        The fit, or None with fewer than MIN_ITERATIONS positive values.
    """
    xs = [float(v) for v in values if v > 0 and math.isfinite(v)]
    n = len(xs)
    if n < MIN_ITERATIONS:
        return None
    cps = find_change_points([[x] for x in xs], min_step=min_step, z_threshold=z_threshold)
    cuts = _without_blips(xs, sorted({c.index for c in cps}), min_step)
    edges = [0, *cuts, n]
    levels = [_median(xs[a:b]) for a, b in zip(edges, edges[1:])]
    fastest = min(levels)
    if not cuts:
        return SteadyStateFit("flat", 0, n, (), levels[0], fastest)
    last = cuts[-1]
    if n - last < math.ceil(tail * n):
        return SteadyStateFit("no steady state", None, n, tuple(cuts), math.nan, fastest)
    steady = levels[-1]
    kind = "warmup" if steady <= fastest * (1 + min_step) else "slowdown"
    return SteadyStateFit(kind, last, n, tuple(cuts), steady, fastest)


def _without_blips(xs: Sequence[float], cuts: list[int], min_step: float) -> list[int]:
    """The cuts without those around a blip: a short stretch (at most BLIP values, or 5% of the
    series) between two segments at the same level (within the band). Barrett et al. take such
    outliers out before segmenting; a collection or a page fault must not read as a phase."""
    blip = max(BLIP, len(xs) // 20)
    changed = True
    while changed and cuts:
        changed = False
        edges = [0, *cuts, len(xs)]
        levels = [_median(xs[a:b]) for a, b in zip(edges, edges[1:])]
        for i in range(1, len(levels) - 1):
            short = edges[i + 1] - edges[i] <= blip
            if short and abs(levels[i + 1] / levels[i - 1] - 1.0) <= min_step:
                cuts = cuts[: i - 1] + cuts[i + 1:]
                changed = True
                break
        else:  # neighbours at one level are one segment
            for i in range(1, len(levels)):
                if abs(levels[i] / levels[i - 1] - 1.0) <= min_step:
                    cuts = cuts[: i - 1] + cuts[i:]
                    changed = True
                    break
    return cuts


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2
