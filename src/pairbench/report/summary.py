"""Descriptive figures every report shows, read from a Run: per-variant medians and spreads.

Only description (median, quartiles, counts), never inference: confidence intervals and verdicts
come from the Comparisons that the analysis stored in the run. The values are the analysis's one
reduction (`analysis.replicates`).
"""

from __future__ import annotations

from pairbench.analysis.replicates import Spread, spreads
from pairbench.model import Comparison, Metric, Run, Sample
from pairbench.report.quantities import change_percent, format_ci_percent, format_percent, format_ratio
from pairbench.report.units import format_value

__all__ = ["Spread", "spreads", "spread_text", "fallback_sentence", "sentence_of", "metric_of"]


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
