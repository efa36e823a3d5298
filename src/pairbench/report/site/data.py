"""What the history site shows, read once from the history store: series per benchmark, metric,
machine and variant, each point's median with its CI, and the change points of each series."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any

from pairbench.stats.changepoint import ChangePoint, find_change_points, median_interval
from pairbench.store.history import History

__all__ = ["Point", "Series", "SiteData", "collect_site", "change_verdict"]


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
    series: tuple[Series, ...]
    run_files: dict[int, str]
    """Run id -> its run file, for the runs whose file still exists."""
    location: str


def change_verdict(change: ChangePoint, direction: str) -> str:
    """A change point in the words of a verdict: a step up in a time is "slower"."""
    if direction == "none":
        return "changed"
    worse = change.change > 0 if direction == "lower" else change.change < 0
    return "slower" if worse else "faster"


def _metric_facts(history: History, benchmark: str) -> dict[str, tuple[str, str]]:
    rows = history.backend.execute("SELECT metrics FROM benchmarks WHERE name = ? ORDER BY run_id DESC LIMIT 1",
                                   (benchmark,))
    try:
        return {m[0]: (str(m[1]), str(m[2])) for m in json.loads(rows[0][0])} if rows else {}
    except (ValueError, TypeError, IndexError):
        return {}


def _runs(history: History) -> tuple[dict[int, str], dict[int, str]]:
    """Run id -> hostname, and run id -> run file (those that still exist)."""
    import os

    hosts: dict[int, str] = {}
    files: dict[int, str] = {}
    for run_id, host, meta in history.backend.execute("SELECT id, hostname, metadata FROM runs"):
        hosts[int(run_id)] = str(host or "") or "unknown machine"
        try:
            path = json.loads(meta).get("run_file")
        except (ValueError, AttributeError):
            path = None
        if isinstance(path, str) and path and os.path.isfile(path):
            files[int(run_id)] = path
    return hosts, files


def collect_site(history: History, *, min_step: float = 0.01, confidence: float = 0.95) -> SiteData:
    """Every series of the store with its points' CIs and its change points."""
    hosts, files = _runs(history)
    out: list[Series] = []
    for bench in history.benchmarks():
        facts = _metric_facts(history, bench)
        for metric in history.metrics(bench):
            unit, direction = facts.get(metric, ("", "lower"))
            for variant, points in history.series(bench, metric).items():
                by_machine: dict[str, list[Any]] = {}
                for p in points:
                    by_machine.setdefault(hosts.get(p.run_id, "unknown machine"), []).append(p)
                for machine, pts in sorted(by_machine.items()):
                    cps = find_change_points([p.values for p in pts], min_step=min_step)
                    out.append(Series(bench, metric, unit, direction, machine, variant, tuple(
                        Point(p.run_id, p.recorded_at, p.variant_commit or p.git_commit, statistics.median(p.values),
                              median_interval(p.values, confidence), len(p.values)) for p in pts), tuple(cps)))
    return SiteData(tuple(out), files, history.location)
