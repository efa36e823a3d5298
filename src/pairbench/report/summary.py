"""Descriptive figures every report shows, read from a Run: per-variant medians and spreads.

Only description (median, quartiles, counts), never inference: confidence intervals and verdicts
come from the Comparisons that the analysis stored in the run. The values are the analysis's one
reduction (`analysis.replicates`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.analysis.replicates import Spread, spreads
from pairbench.model import Benchmark, Comparison, Metric, Run, Sample
from pairbench.report.format import format_ratio, format_value
from pairbench.report.wording import verdict_sentence

__all__ = ["Spread", "spreads", "spread_text", "sentence_of", "metric_of", "ci_text", "ci_header", "ci_mixed", "ratio_text",
           "MetricGroups", "metric_groups"]


def spread_text(spread: Spread | None, unit: str) -> str:
    """`12.3 ms ±1.4%`: the median of the per-block values and half the interquartile range.

    Every table that shows a variant's value (the main table, sweep tables) shows this one text.
    """
    if spread is None:
        return "–"
    mid = spread.median
    if spread.n < 4 or mid == 0:
        return format_value(mid, unit)
    half = abs(spread.q3 - spread.q1) / 2 / abs(mid) * 100
    return f"{format_value(mid, unit)} ±{half:.0f}%" if half >= 10 else f"{format_value(mid, unit)} ±{half:.1f}%"


def metric_of(run: Run, benchmark: str, metric: str) -> Metric:
    """The Metric declared by the benchmark, or a plain one when the run does not declare it."""
    try:
        return run.benchmark(benchmark).metric(metric)
    except KeyError:
        return Metric(metric, unit="", direction="lower")


def sentence_of(c: Comparison, metric: Metric) -> str:
    """The comparison's verdict in words, worded now from its stored numbers (never a stored sentence)."""
    return verdict_sentence(c, metric)


def ratio_text(c: Comparison | None) -> str:
    """The ratio cell, as every format shows it."""
    if c is None:
        return ""
    if c.verdict == "exact" and c.delta is not None and c.ratio is None:
        return "–"
    return format_ratio(c.ratio)


def _interval_shown(c: Comparison) -> bool:
    return c.verdict_ci is not None and not (c.verdict == "exact" and c.delta is not None)


def ci_mixed(comparisons: Sequence[Comparison]) -> bool:
    """Some CIs under one header are adjusted for multiplicity and some are not (secondary metrics)."""
    shown = [c for c in comparisons if _interval_shown(c)]
    adjusted = [c for c in shown if c.adjusted_ci is not None]
    return bool(adjusted) and len(adjusted) < len(shown)


def ci_text(c: Comparison | None, mixed: bool = False) -> str:
    """The CI cell: the interval the verdict rests on (adjusted when the run corrected), as a ratio.

    Every format shows this one text, so no report puts the raw CI beside a verdict made on the
    adjusted one. With `mixed` (see `ci_mixed`) an adjusted interval is marked `*`.
    """
    if c is None:
        return ""
    if c.verdict == "exact" and c.delta is not None:
        return "exact"
    ci = c.verdict_ci
    if not ci:
        return "–"
    return f"[{format_ratio(ci[0])}, {format_ratio(ci[1])}]" + ("*" if mixed and c.adjusted_ci is not None else "")


def ci_header(comparisons: Sequence[Comparison], confidence: float | None = None) -> str:
    """`95% CI`; `95% CI (adj.)` when every CI under it is corrected for multiplicity; `95% CI
    (*adj.)` when only those marked `*` are."""
    if confidence is None:
        confidence = comparisons[0].confidence if comparisons else 0.95
    level = confidence * 100
    text = f"{level:.0f}% CI" if abs(level - round(level)) < 0.05 else f"{level:.1f}% CI"
    if ci_mixed(comparisons):
        return text + " (*adj.)"
    return text + (" (adj.)" if any(c.adjusted_ci is not None for c in comparisons) else "")


def sample_order_key(s: Sample) -> tuple[float, int, int, int]:
    """Run order: by time when recorded, else by block, replicate and iteration."""
    return (s.time, s.block, s.replicate, s.iteration)


@dataclass(frozen=True, slots=True)
class MetricGroups:
    """A benchmark's metrics in the order a reader wants them: the answers first."""

    judged: tuple[Metric, ...]
    """Metrics with verdicts (a direction, or a comparison made on them)."""
    described: tuple[Metric, ...]
    """Figures measured but never judged (bytes, CPU per request), with a non-zero value."""
    zero: tuple[Metric, ...]
    """Figures never judged that are zero for every variant (error and status counters, mostly)."""


def metric_groups(run: Run, bench: Benchmark, comparisons: Sequence[Comparison]) -> MetricGroups:
    """Split `bench`'s metrics into judged, described and all-zero (an HTTP benchmark has ~30
    metrics, most of them counters that stay at zero: they are collapsed, not shown first)."""
    compared = {c.metric for c in comparisons if c.benchmark == bench.name}
    nonzero = {s.metric for s in run.samples if s.benchmark == bench.name and not s.warmup and s.value != 0}
    judged = tuple(m for m in bench.metrics if m.direction != "none" or m.name in compared)
    rest = [m for m in bench.metrics if m not in judged]
    return MetricGroups(judged, tuple(m for m in rest if m.name in nonzero),
                        tuple(m for m in rest if m.name not in nonzero))
