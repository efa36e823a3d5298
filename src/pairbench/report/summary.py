"""Descriptive figures every report shows, read from a Run: per-variant medians and spreads.

Only description (median, quartiles, counts), never inference: confidence intervals and verdicts
come from the Comparisons that the analysis stored in the run.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from pairbench.model import Comparison, Metric, Run, Sample
from pairbench.report.quantities import change_percent, format_ci_percent, format_percent, format_ratio

__all__ = ["Spread", "spreads", "measured_values", "fallback_sentence", "sentence_of", "metric_of"]


@dataclass(frozen=True, slots=True)
class Spread:
    """Median and quartiles of one variant's per-block values of one metric (`n` blocks)."""

    benchmark: str
    metric: str
    variant: str
    n: int
    median: float
    q1: float
    q3: float
    minimum: float
    maximum: float


def measured_values(run: Run, benchmark: str, metric: str, variant: str) -> list[float]:
    """Values in measurement order, warm-ups left out."""
    return [
        s.value
        for s in run.samples
        if not s.warmup and s.benchmark == benchmark and s.metric == metric and s.variant == variant
    ]


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def spreads(run: Run) -> dict[tuple[str, str, str], Spread]:
    """(benchmark, metric, variant) -> Spread of the per-block values, as the analysis and the
    terminal table use them (iterations and replicates reduced to one value per block)."""
    from pairbench.analysis import replicate_values

    pairs = sorted({(s.benchmark, s.metric) for s in run.samples if not s.warmup})
    groups: dict[tuple[str, str, str], list[float]] = {}
    for bench, metric in pairs:
        for variant, per_block in replicate_values(run, bench, metric).items():
            if per_block:
                groups[(bench, metric, variant)] = list(per_block.values())
    out = {}
    for key, values in groups.items():
        q1, q3 = _quartiles(values)
        out[key] = Spread(key[0], key[1], key[2], len(values), statistics.median(values), q1, q3,
                          min(values), max(values))
    return out


def metric_of(run: Run, benchmark: str, metric: str) -> Metric:
    """The Metric declared by the benchmark, or a plain one when the run does not declare it."""
    try:
        return run.benchmark(benchmark).metric(metric)
    except KeyError:
        return Metric(metric, unit="", direction="lower")


def fallback_sentence(c: Comparison) -> str:
    """A plain statement of the figures, used only when the analysis stored no sentence."""
    if c.delta is not None and c.ratio is None:
        return f"{c.candidate} vs {c.baseline}: exact difference {c.delta:+g}"
    if c.ratio is None:
        return f"{c.candidate} vs {c.baseline}: not enough data for a verdict (n = {c.n})"
    level = round(c.confidence * 100)
    return (
        f"{c.candidate} vs {c.baseline}: {c.verdict}, {format_percent(change_percent(c.ratio))} "
        f"(ratio {format_ratio(c.ratio)}, {level}% CI {format_ci_percent(c.ci)}); n = {c.n}"
    )


def sentence_of(c: Comparison) -> str:
    return c.sentence or fallback_sentence(c)


def sample_order_key(s: Sample) -> tuple[float, int, int, int]:
    """Run order: by time when recorded, else by block, replicate and iteration."""
    return (s.time, s.block, s.replicate, s.iteration)
