"""The JSON that continuous-benchmarking trackers read: Bencher Metric Format (`--export-bmf`) and
github-action-benchmark's custom tools (`--export-github-benchmark`).

Both hold one value per benchmark and measure, so each variant is its own benchmark,
BENCHMARK/VARIANT, with the mean of its runs; the comparison against the baseline is kept too:
BMF as a `*-ratio` measure (the ratio, bounded by the CI its verdict rests on), github-action-
benchmark in each entry's `extra` (the verdict sentence). github-action-benchmark reads a whole
file as one direction (`tool: customSmallerIsBetter` or `customBiggerIsBetter`), so this text holds
the metrics of one direction (report/exporters.py writes the two files).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any, Iterator

from pairbench.analysis.inverse import INVERSE_METRICS
from pairbench.model import Comparison, Metric, Run
from pairbench.report.command import TIME_METRICS
from pairbench.report.summary import percent_shown, sentence_of

__all__ = ["Figure", "figures_of", "render_bmf", "render_github_benchmark", "BMF_LATENCY"]

BMF_LATENCY = "latency"
"""Bencher's built-in measure of a time, in nanoseconds."""


@dataclass(frozen=True, slots=True)
class Figure:
    """One variant's runs of one metric: what a tracker's single value stands for."""

    benchmark: str
    variant: str
    metric: Metric
    mean: float
    stddev: float | None
    runs: int
    comparison: Comparison | None
    low: float | None = None
    """Lower end of the range shown (default mean - stddev)."""
    high: float | None = None
    """Upper end (default mean + stddev)."""
    harmonic: bool = False
    """A rate that is 1 / a time per op: its figures are the time's, inverted (harmonic mean)."""

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The range shown beside the mean: ± one standard deviation, or a time's, inverted."""
        if self.low is not None and self.high is not None:
            return self.low, self.high
        return None if self.stddev is None else (self.mean - self.stddev, self.mean + self.stddev)


def figures_of(run: Run) -> Iterator[Figure]:
    """Every (benchmark, metric, variant) with measured values, in the run's order."""
    values: dict[tuple[str, str, str], list[float]] = {}
    for s in run.samples:
        if not s.warmup:
            values.setdefault((s.benchmark, s.variant, s.metric), []).append(s.value)
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in run.comparisons}
    for bench in run.benchmarks:
        for m in bench.metrics:
            for v in run.variants:
                got = values.get((bench.name, v.name, m.name))
                if not got:
                    continue
                comparison = by_key.get((bench.name, m.name, v.name))
                times = values.get((bench.name, v.name, INVERSE_METRICS.get(m.name, "")))
                if times and _inverse(got, times):
                    yield _inverted(bench.name, v.name, m, times, comparison)
                    continue
                yield Figure(bench.name, v.name, m, statistics.fmean(got),
                             statistics.stdev(got) if len(got) > 1 else None, len(got), comparison)


def _inverse(rates: list[float], times: list[float]) -> bool:
    return len(rates) == len(times) and all(t > 0 and abs(r * t - 1.0) <= 1e-9 for r, t in zip(rates, times))


def _inverted(bench: str, variant: str, metric: Metric, times: list[float], c: Comparison | None) -> Figure:
    """A rate stored as 1 / time per op, figured from the time so that the two agree: 1 / the mean
    time (the harmonic mean of the rates), its range the time's ± one standard deviation, inverted."""
    mean = statistics.fmean(times)
    sd = statistics.stdev(times) if len(times) > 1 else None
    low = high = None
    if sd is not None and mean - sd > 0:
        low, high = 1.0 / (mean + sd), 1.0 / (mean - sd)
    return Figure(bench, variant, metric, 1.0 / mean, None if low is None or high is None else (high - low) / 2,
                  len(times), c, low, high, harmonic=True)


def render_bmf(run: Run) -> str:
    """`{"BENCHMARK/VARIANT": {MEASURE: {"value", "lower_value", "upper_value"}}}`: times as Bencher's
    `latency` in ns (the mean, ± one standard deviation), other metrics under their own name, in their
    SI unit."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for f in figures_of(run):
        latency = f.metric.name in TIME_METRICS
        scale, measure = (1e9, BMF_LATENCY) if latency else (1.0, f.metric.name)
        entry: dict[str, float] = {"value": f.mean * scale}
        if f.bounds is not None:
            low = max(f.bounds[0], 0.0) if latency else f.bounds[0]  # mean - σ of a time, never below 0
            entry.update(lower_value=low * scale, upper_value=f.bounds[1] * scale)
        bench = out.setdefault(f"{f.benchmark}/{f.variant}", {})
        bench[measure] = entry
        c = f.comparison
        if c is not None and c.ratio is not None and percent_shown(c):  # no ratio from a baseline of 0
            ratio: dict[str, float] = {"value": c.ratio}
            if c.verdict_ci:
                ratio.update(lower_value=c.verdict_ci[0], upper_value=c.verdict_ci[1])
            bench[f"{measure}-ratio"] = ratio
    return json.dumps(out, indent=2) + "\n"


def render_github_benchmark(run: Run) -> str:
    """`[{"name", "unit", "value", "range", "extra"}]`, one entry per benchmark, variant and metric."""
    entries: list[dict[str, Any]] = []
    for f in figures_of(run):
        first = next(b for b in run.benchmarks if b.name == f.benchmark).metrics[0].name == f.metric.name
        entry: dict[str, Any] = {
            "name": f"{f.benchmark}/{f.variant}" + ("" if first else f" ({f.metric.name})"),
            "unit": f.metric.unit or "value", "value": f.mean}
        if f.stddev is not None:
            entry["range"] = f"± {f.stddev:.6g}"
        extra = [f"harmonic mean of {f.runs} runs (1 / the mean time per op)" if f.harmonic
                 else f"mean of {f.runs} runs"]
        if f.comparison is not None:
            extra.append(sentence_of(f.comparison, f.metric))
        entry["extra"] = "\n".join(extra)
        entries.append(entry)
    return json.dumps(entries, indent=2) + "\n"
