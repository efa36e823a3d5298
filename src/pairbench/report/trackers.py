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

from pairbench.model import Comparison, Metric, Run
from pairbench.report.command import TIME_METRICS
from pairbench.report.summary import sentence_of

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
                if got:
                    yield Figure(bench.name, v.name, m, statistics.fmean(got),
                                 statistics.stdev(got) if len(got) > 1 else None, len(got),
                                 by_key.get((bench.name, m.name, v.name)))


def render_bmf(run: Run) -> str:
    """`{"BENCHMARK/VARIANT": {MEASURE: {"value", "lower_value", "upper_value"}}}`: times as Bencher's
    `latency` in ns (the mean, ± one standard deviation), other metrics under their own name, in their
    SI unit."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for f in figures_of(run):
        latency = f.metric.name in TIME_METRICS
        scale, measure = (1e9, BMF_LATENCY) if latency else (1.0, f.metric.name)
        entry: dict[str, float] = {"value": f.mean * scale}
        if f.stddev is not None:
            entry.update(lower_value=(f.mean - f.stddev) * scale, upper_value=(f.mean + f.stddev) * scale)
        bench = out.setdefault(f"{f.benchmark}/{f.variant}", {})
        bench[measure] = entry
        c = f.comparison
        if c is not None and c.ratio is not None:
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
        extra = [f"mean of {f.runs} runs"]
        if f.comparison is not None:
            extra.append(sentence_of(f.comparison, f.metric))
        entry["extra"] = "\n".join(extra)
        entries.append(entry)
    return json.dumps(entries, indent=2) + "\n"
