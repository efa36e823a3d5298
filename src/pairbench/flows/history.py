"""Reading the history store: the recorded runs, a benchmark's trends, the CSV export, the site.

Each flow opens the store (read-only: a missing database is an error, not a new file), asks it
for plain data, hands that to the history analysis, and returns the result for the command to
print; `publish_site` also writes the pages.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from pairbench.analysis.history import SiteData, Trend, site_series, trends
from pairbench.errors import UserError
from pairbench.store.history import History, RunSummary, open_history, resolve_location

__all__ = ["HistoryQuery", "RunList", "MetricTrends", "Publication", "list_runs", "benchmark_trends", "export_csv",
           "publish_site"]


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which store, and which of its samples (the flags of `pairbench history`)."""

    location: str | None = None
    """A path or postgresql:// URL; None: PAIRBENCH_HISTORY, else the default store."""
    benchmark: str | None = None
    metric: str | None = None
    variant: str | None = None
    limit: int | None = None
    """Only the newest N runs (None: all)."""


@dataclass(frozen=True, slots=True)
class RunList:
    runs: tuple[RunSummary, ...]
    """Newest first."""
    location: str


@dataclass(frozen=True, slots=True)
class MetricTrends:
    """One metric of the benchmark asked for: each variant's trend."""

    metric: str
    unit: str
    trends: tuple[Trend, ...]


@dataclass(frozen=True, slots=True)
class Publication:
    index: Path
    pages: int
    """Index and trend pages (run reports not counted)."""
    reports: int
    """Run reports written (runs whose run file could be read)."""


def _open(location: str | None, purpose: str) -> History:
    loc = resolve_location(location)
    if loc is None:
        raise UserError(f"history is turned off (PAIRBENCH_HISTORY=off); pass --history PATH_OR_URL to {purpose}")
    return open_history(loc, create=False)


def list_runs(query: HistoryQuery) -> RunList:
    """The recorded runs with samples matching the query, newest first."""
    with _open(query.location, "read one") as history:
        runs = history.runs(query.benchmark, query.metric, query.variant, limit=query.limit)
        return RunList(tuple(runs), history.location)


def benchmark_trends(query: HistoryQuery, *, min_step: float) -> list[MetricTrends]:
    """Each metric's (or the one asked for) trends of `query.benchmark`, with change points.

    Raises:
        UserError: the store has no such benchmark, or the benchmark no such metric.
    """
    benchmark = query.benchmark or ""
    with _open(query.location, "read one") as history:
        known = history.benchmarks()
        if benchmark not in known:
            raise UserError(f"no benchmark {benchmark!r} in {history.location}; recorded: {', '.join(known) or 'none'}")
        metrics = history.metrics(benchmark)
        if query.metric and query.metric not in metrics:
            raise UserError(f"benchmark {benchmark!r} has no metric {query.metric!r}; recorded: {', '.join(metrics)}")
        recorded = history.recorded_metrics(benchmark)
        return [MetricTrends(metric, recorded[metric].unit if metric in recorded else "",
                             tuple(trends(history.series(benchmark, metric, query.variant), min_step=min_step,
                                          limit=query.limit)))
                for metric in ([query.metric] if query.metric else metrics)]


def export_csv(query: HistoryQuery, target: str) -> int:
    """Every matching sample as CSV into `target` ('-': standard output); returns the number of rows."""
    with _open(query.location, "read one") as history:
        if target != "-":
            from pairbench.store.output import open_output

            with open_output(target, newline="") as fh:
                return history.write_csv(fh, query.benchmark, query.metric, query.variant)
        return history.write_csv(sys.stdout, query.benchmark, query.metric, query.variant)  # `| head`: cli.main


def _site_data(history: History, *, min_step: float) -> SiteData:
    """Every series of the store with its points' CIs and its change points."""
    hosts: dict[int, str] = {}
    files: dict[int, str] = {}
    for origin in history.run_origins():
        hosts[origin.run_id] = origin.hostname
        if origin.run_file and os.path.isfile(origin.run_file):
            files[origin.run_id] = origin.run_file
    series = []
    for bench in history.benchmarks():
        recorded = history.recorded_metrics(bench)
        for metric in history.metrics(bench):
            facts = recorded.get(metric)
            unit, direction = (facts.unit, facts.direction) if facts else ("", "lower")
            series += site_series(bench, metric, unit, direction, history.series(bench, metric), hosts,
                                  min_step=min_step)
    return SiteData(tuple(series), files, history.location)


def publish_site(location: str | None, out_dir: str, *, min_step: float, force: bool = False) -> Publication:
    """Write the static history site into `out_dir`: the index, a trend page per benchmark and metric,
    and the HTML report of each run whose run file can still be read.

    Raises:
        UserError: `out_dir` is a file, or a folder with files that are no earlier site (unless `force`).
    """
    from pairbench.report.html import render_html
    from pairbench.report.site import render_site
    from pairbench.flows.saved import load_run

    out = Path(out_dir)
    _check_site_folder(out, force)
    with _open(location, "publish one") as history:
        data = _site_data(history, min_step=min_step)
    reports: dict[int, str] = {}
    for run_id, path in data.run_files.items():
        try:
            reports[run_id] = render_html(load_run(path), title=f"run {run_id}")
        except (UserError, OSError, ValueError):
            continue  # a run file that moved on or broke: its points simply have no link
    try:
        for rel, text in render_site(data, reports).items():
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the site into {out}: {exc.strerror}") from None
    return Publication(out / "index.html", 1 + len({(s.benchmark, s.metric) for s in data.series}), len(reports))


def _check_site_folder(out: Path, force: bool) -> None:
    """A new or empty folder, or an earlier site (its pages are replaced); anything else is the user's."""
    from pairbench.report.site import is_site_index

    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder; give a folder for the site")
    if force or not out.is_dir():
        return
    try:
        if not any(out.iterdir()):
            return
        index = out / "index.html"
        if index.is_file() and is_site_index(index.read_text(encoding="utf-8", errors="replace")):
            return
    except OSError as exc:
        raise UserError(f"cannot read the folder {out}: {exc.strerror}") from None
    raise UserError(f"{out} is not empty and holds no earlier pairbench site; its pages would be replaced. "
                    "Name a new or empty folder, or pass --force to write the site into it anyway")
