"""History analysis: a benchmark's series across recorded runs, with the change points in it.

The store returns each run's values (`SeriesPoint`s); this module turns them into what `history
--benchmark` and the history site show: the trend of a variant with its change points, and the
site's series per machine with each run's median and its CI. Reports render these; they never
recompute them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from pairbench.model import SeriesPoint

if TYPE_CHECKING:
    from pairbench.stats.changepoint import ChangePoint

__all__ = ["Trend", "Point", "Series", "SiteData", "UNKNOWN_MACHINE", "trends", "site_series"]

UNKNOWN_MACHINE = "unknown machine"
"""The machine of a run that did not record its hostname."""


@dataclass(frozen=True, slots=True)
class Trend:
    """One variant's runs of a benchmark and metric, oldest first, with the steps found in them."""

    variant: str
    points: tuple[SeriesPoint, ...]
    changes: tuple[ChangePoint, ...]
    """In series order; `index` is the position in `points`."""


@dataclass(frozen=True, slots=True)
class Point:
    """One run of a series."""

    run_id: int
    recorded_at: float
    commit: str
    """The variant's commit when it was built from git, else the run's checkout."""
    median: float
    ci: tuple[float, float] | None
    n: int


@dataclass(frozen=True, slots=True)
class Series:
    """One benchmark x metric, measured on one machine under one variant, oldest run first."""

    benchmark: str
    metric: str
    unit: str
    direction: str
    machine: str
    variant: str
    points: tuple[Point, ...]
    changes: tuple[ChangePoint, ...]


@dataclass(frozen=True, slots=True)
class SiteData:
    """What the history site shows."""

    series: tuple[Series, ...]
    run_files: dict[int, str]
    """Run id -> its run file, for the runs whose file still exists."""
    location: str


def trends(series: Mapping[str, Sequence[SeriesPoint]], *, min_step: float, limit: int | None = None) -> list[Trend]:
    """Each variant's trend with its change points, in the store's order.

    Args:
        series: variant -> its points, oldest first (`History.series`).
        min_step: smallest relative step flagged as a change point.
        limit: only the newest `limit` runs of each variant (None or 0: all); the change points are
            searched in those runs only.
    """
    from pairbench.stats.changepoint import find_change_points

    out = []
    for variant, points in series.items():
        kept = tuple(points[-limit:] if limit else points)
        out.append(Trend(variant, kept, tuple(find_change_points([p.values for p in kept], min_step=min_step))))
    return out


def site_series(benchmark: str, metric: str, unit: str, direction: str, series: Mapping[str, Sequence[SeriesPoint]],
                hosts: Mapping[int, str], *, min_step: float, confidence: float = 0.95) -> list[Series]:
    """One benchmark and metric as the site shows it: a series per variant and machine.

    Args:
        series: variant -> its points, oldest first (`History.series`).
        hosts: run id -> the machine it was measured on ("" or missing: UNKNOWN_MACHINE).
        min_step: smallest relative step marked as a change point.
        confidence: level of each run's median CI.
    """
    from pairbench.stats.changepoint import find_change_points, median_interval

    out = []
    for variant, points in series.items():
        by_machine: dict[str, list[SeriesPoint]] = {}
        for p in points:
            by_machine.setdefault(hosts.get(p.run_id) or UNKNOWN_MACHINE, []).append(p)
        for machine, pts in sorted(by_machine.items()):
            cps = find_change_points([p.values for p in pts], min_step=min_step)
            out.append(Series(benchmark, metric, unit, direction, machine, variant, tuple(
                Point(p.run_id, p.recorded_at, p.variant_commit or p.git_commit, statistics.median(p.values),
                      median_interval(p.values, confidence), len(p.values)) for p in pts), tuple(cps)))
    return out
