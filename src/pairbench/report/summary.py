"""Descriptive figures every report shows, read from a Run: per-variant medians and spreads.

Only description (median, quartiles, counts), never inference: confidence intervals and verdicts
come from the Comparisons that the analysis stored in the run. The values are the analysis's one
reduction (`analysis.replicates`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.analysis.replicates import Spread, spreads
from pairbench.model import Benchmark, Comparison, Metric, Run, Sample
from pairbench.report.format import format_delta, format_exact_percent, format_exact_ratio, format_percent, format_ratio, format_value
from pairbench.report.wording import reached_label, verdict_sentence

__all__ = ["Spread", "spreads", "spread_text", "spread_shown", "sentence_of", "metric_of", "ci_text", "ci_header", "ci_mixed", "ratio_text",
           "MetricGroups", "metric_groups", "FIGURES_CAPTION", "figures", "figure_text", "percent_shown", "exact_change",
           "change_text", "value_text", "notes_once", "ValueRow", "value_rows", "sentence_label", "names"]

FIGURES_CAPTION = ("values: the baseline's geometric mean over the compared blocks, and the candidate's as that "
                   "times the ratio (exact counts: medians)")
"""What the value beside a ratio is, in every table that shows one (`Comparison.baseline_value`)."""


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


def figures(run: Run, comparisons: Sequence[Comparison] | None = None) -> dict[tuple[str, str, str], float]:
    """(benchmark, metric, variant) -> the figure shown beside the ratio: each comparison's
    `candidate_value`, and the baseline's `baseline_value` (from the first comparison that has one).

    Variants without a comparison (a metric never judged, an old hand-made comparison) are absent;
    tables fall back to the median of their per-block values there (`spread_text`).
    """
    out: dict[tuple[str, str, str], float] = {}
    for c in run.comparisons if comparisons is None else comparisons:
        if c.candidate_value is not None:
            out[(c.benchmark, c.metric, c.candidate)] = c.candidate_value
        if c.baseline_value is not None:
            out.setdefault((c.benchmark, c.metric, c.baseline), c.baseline_value)
    return out


def spread_shown(spread: Spread | None) -> bool:
    """A cell shows `±` beside its figure: from 4 per-block values, around a figure other than 0."""
    return spread is not None and spread.n >= 4 and spread.median != 0


def figure_text(value: float | None, spread: Spread | None, unit: str) -> str:
    """`12.3 ms ±1.4%`: a figure (from `figures`, else the median) and the relative half
    interquartile range of the per-block values."""
    if value is None:
        return spread_text(spread, unit)
    if not spread_shown(spread):
        return format_value(value, unit)
    half = abs(spread.q3 - spread.q1) / 2 / abs(spread.median) * 100
    return f"{format_value(value, unit)} ±{half:.0f}%" if half >= 10 else f"{format_value(value, unit)} ±{half:.1f}%"


def percent_shown(c: Comparison | None) -> bool:
    """A percent (and a ratio) is shown only beside a positive baseline: from 0, no change is a percent."""
    if c is None or c.ratio is None or not math.isfinite(c.ratio):
        return False
    return c.baseline_value is None or c.baseline_value > 0


def exact_change(c: Comparison, unit: str) -> str:
    """`+17.80M count (+39.0%)`: an exact count's difference, with its percent beside a positive baseline."""
    text = format_delta(c.delta, unit)
    if percent_shown(c):
        assert c.ratio is not None
        text += f" ({format_exact_percent(c.ratio - 1.0)})"
    return text


def change_text(c: Comparison | None, unit: str) -> str:
    """The change cell of the report tables: `−7.4%`, an exact count's `+20 count (+5.0%)`, or
    the plain difference beside a zero baseline (no percent from 0)."""
    if c is None:
        return ""
    if _exact(c) and c.delta is not None:
        return exact_change(c, unit)
    if percent_shown(c):
        return format_percent((c.ratio or 1.0) - 1.0)
    return format_delta(c.delta, unit) if c.delta is not None else ""


def value_text(shown: dict[tuple[str, str, str], float], spread: dict[tuple[str, str, str], Spread],
               key: tuple[str, str, str], unit: str) -> str:
    """The value cell of the report tables: the figure beside the ratio (`figures`), else the median."""
    if key in shown:
        return format_value(shown[key], unit)
    sp = spread.get(key)
    return format_value(sp.median, unit) if sp else "–"


@dataclass(frozen=True, slots=True)
class ValueRow:
    """One row of a report table: a variant, the figure shown for it, and its comparison."""

    variant: str
    baseline: bool
    value: str
    comparison: Comparison | None
    n: str


def value_rows(run: Run, bench: str, metric: Metric, by_key: dict[tuple[str, str, str], Comparison],
               shown: dict[tuple[str, str, str], float], spread: dict[tuple[str, str, str], Spread]) -> list[ValueRow]:
    """The rows of one benchmark and metric, in the run's order of variants, as the terminal's -v
    table lays them: the baseline's figure again before a candidate whose comparison measured the
    baseline otherwise (over fewer blocks, or by its mean where a value is 0), so that every
    candidate's figure is the baseline's figure above it times the ratio shown beside it."""
    baseline = run.baseline.name
    base_key = (bench, metric.name, baseline)
    above = value_text(shown, spread, base_key, metric.unit)
    rows: list[ValueRow] = []
    for v in run.variants:
        key = (bench, metric.name, v.name)
        sp, c = spread.get(key), by_key.get(key)
        if sp is None and c is None:
            continue
        if v.name == baseline:
            rows.append(ValueRow(v.name, True, above, None, str(sp.n) if sp else ""))
            continue
        if c is not None and c.baseline_value is not None and percent_shown(c):
            own = format_value(c.baseline_value, metric.unit)
            if own != above:
                rows.append(ValueRow(baseline, True, own, None, str(c.n)))
                above = own
        rows.append(ValueRow(v.name, False, value_text(shown, spread, key, metric.unit), c,
                             str(c.n) if c is not None else (str(sp.n) if sp else "")))
    return rows


def metric_of(run: Run, benchmark: str, metric: str) -> Metric:
    """The Metric declared by the benchmark, or a plain one when the run does not declare it."""
    try:
        return run.benchmark(benchmark).metric(metric)
    except KeyError:
        return Metric(metric, unit="", direction="lower")


def sentence_of(c: Comparison, metric: Metric) -> str:
    """The comparison's verdict in words, worded now from its stored numbers (never a stored sentence)."""
    return verdict_sentence(c, metric)


def names(sentence: str, name: str) -> bool:
    """The sentence names `name` as a word of its own (candidate `b` is not in "blocks")."""
    import re

    return re.search(rf"(?<![\w./=-]){re.escape(name)}(?![\w./=-])", sentence) is not None


def sentence_label(c: Comparison, sentence: str, comparisons: Sequence[Comparison]) -> str:
    """`bench · metric` before a verdict sentence; `bench · metric · candidate` when there are
    several candidates and the sentence does not name its own ("no meaningful difference: ...")."""
    label = f"{c.benchmark} · {c.metric}"
    several = len({x.candidate for x in comparisons}) > 1
    return f"{label} · {c.candidate}" if several and not names(sentence, c.candidate) else label


def notes_once(comparisons: Sequence[Comparison]) -> list[tuple[str, dict[str, list[str]] | None]]:
    """Each note of `comparisons` once, in order, with the metrics it holds for by benchmark (None
    when it holds for every comparison): a report writes it once after the sentences."""
    where: dict[str, list[tuple[str, str]]] = {}
    for c in comparisons:
        for note in c.notes:
            if not c.paired and note.startswith("not interleaved:"):  # said once, under the report's title
                continue
            where.setdefault(note, []).append((c.benchmark, c.metric))
    out: list[tuple[str, dict[str, list[str]] | None]] = []
    for note, held in where.items():
        if len(held) == len(comparisons):
            out.append((note, None))
            continue
        by_bench: dict[str, list[str]] = {}
        for bench, metric in dict.fromkeys(held):
            by_bench.setdefault(bench, []).append(metric)
        out.append((note, by_bench))
    return out


def ratio_text(c: Comparison | None) -> str:
    """The ratio cell, as every format shows it (none beside a zero baseline)."""
    if c is None:
        return ""
    if not percent_shown(c):
        return "–"
    return format_exact_ratio(c.ratio) if _exact(c) else format_ratio(c.ratio)


def _exact(c: Comparison) -> bool:
    return c.exact or (c.verdict == "exact" and c.delta is not None)


def _interval_shown(c: Comparison) -> bool:
    return c.verdict_ci is not None and not _exact(c)


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
    if _exact(c):
        return "exact"
    if c.verdict == "insufficient" and c.reached_ci is not None and c.reached_confidence is not None:
        low, high = c.reached_ci  # too few blocks for the level in the header: say the level reached
        return f"[{format_ratio(low)}, {format_ratio(high)}] at {reached_label(c.reached_confidence)}"
    ci = c.verdict_ci
    if not ci or not percent_shown(c):  # beside a zero baseline no ratio, so no interval of one
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
