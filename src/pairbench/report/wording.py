"""The verdict in words: one sentence per comparison, as METHOD's target output shows.

Examples (times; throughput metrics say "higher/lower throughput", memory "less/more memory"):
  B is 7.4% faster than A (ratio 0.926, 95% CI [0.912, 0.941]); significant; exceeds the ±1% noise
  band; n = 20 paired blocks
  inconclusive: 95% CI [−6.0%, +0.4%] (n = 20) spans 0 and the −1% band edge; about 43 more blocks
  (63 in all) should settle whether B is more than 1% faster at the current noise
  no meaningful difference: 95% CI [−0.6%, +0.4%] lies within ±1%; the smallest change this run could
  have seen is 0.7% (80% power)
Percent changes are ratio - 1 in the metric's own unit; the amount in "X% faster" is 1 - ratio
for times and ratio - 1 for rates, so the number always reads in the direction of the word.
Numbers are formatted by report/format.py, as the tables beside the sentences format them.
"""

from __future__ import annotations

import math

from pairbench.model import Comparison, Metric
from pairbench.report.format import MINUS, confidence_label, format_delta, format_exact_percent, format_percent, format_ratio

__all__ = ["reached_label", "verdict_sentence", "verdict_word"]


def _band(threshold: float) -> str:
    text = f"{threshold * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


_WORK_COUNTS = frozenset({"instructions", "instructions_per_op", "cycles", "sim-cycles"})
"""Counts of the work the CPU does, which read faster/slower as times do (allocations read higher/lower);
cycles are time in the CPU's own unit, simulated or not (runners/counters.py)."""


def _kind(metric: Metric) -> str:
    if metric.unit == "s" or metric.name in _WORK_COUNTS:
        return "time"
    if metric.direction == "higher" and (metric.unit.endswith("/s") or metric.unit in ("op/s", "req/s")):
        return "rate"
    if metric.unit == "B":
        return "memory"
    return "other"


def _better(metric: Metric, ratio: float) -> bool:
    """The candidate moved the good way."""
    return ratio < 1 if metric.direction != "higher" else ratio > 1


def _word(metric: Metric, up: bool) -> str:
    """How a move of the candidate's value reads for this metric."""
    kind = _kind(metric)
    if kind == "time":
        return "slower" if up else "faster"
    if kind == "rate":
        return "higher throughput" if up else "lower throughput"
    if kind == "memory":
        return "more memory" if up else "less memory"
    return f"higher {metric.name}" if up else f"lower {metric.name}"


def verdict_word(verdict: str, metric: Metric) -> str:
    """The verdict as a table cell names it: faster/slower only for times and rates.

    The verdict says the candidate moved the good ("faster") or bad ("slower") way; memory
    reads "smaller"/"larger", other metrics (counts, sizes, printed values) "lower"/"higher" in
    their own value. Other verdicts (same, inconclusive, exact, insufficient) stay as they are.
    """
    if verdict not in ("faster", "slower") or _kind(metric) in ("time", "rate"):
        return verdict
    better = verdict == "faster"
    up = better if metric.direction == "higher" else not better
    if _kind(metric) == "memory":
        return "larger" if up else "smaller"
    return "higher" if up else "lower"


def _claim(c: Comparison, metric: Metric) -> str:
    """'B is 7.4% faster than A' and its variants, in the metric's direction."""
    assert c.ratio is not None
    r = c.ratio
    down = r < 1
    amount = format_percent(abs(r - 1.0), signed=False)
    kind = _kind(metric)
    if kind == "time":
        word = "faster" if down else "slower"
        return f"{c.candidate} is {amount} {word} than {c.baseline}"
    if kind == "rate":
        word = "lower" if down else "higher"
        return f"{c.candidate} has {amount} {word} throughput than {c.baseline}"
    if kind == "memory":
        word = "less" if down else "more"
        return f"{c.candidate} uses {amount} {word} memory than {c.baseline} ({metric.name})"
    word = "lower" if down else "higher"
    judgement = "better" if _better(metric, r) else "worse"
    return f"{c.candidate} has {amount} {word} {metric.name} than {c.baseline} ({judgement})"


def _n_phrase(c: Comparison) -> str:
    if c.paired:
        return f"n = {c.n} paired block{'s' if c.n != 1 else ''}"
    return f"n = {c.n} runs per side (smaller side), not interleaved"


def _verdict_ci(c: Comparison) -> tuple[tuple[float, float], str]:
    """The CI the verdict rests on, and how to name it."""
    if c.adjusted_ci is not None:
        level = c.adjusted_confidence if c.adjusted_confidence is not None else c.confidence
        return c.adjusted_ci, f"{confidence_label(level)} CI adjusted for multiple comparisons"
    assert c.ci is not None
    return c.ci, f"{confidence_label(c.confidence)} CI"


def _pct_ci(ci: tuple[float, float]) -> str:
    return f"[{format_percent(ci[0] - 1)}, {format_percent(ci[1] - 1)}]"


def _exact_sentence(c: Comparison, metric: Metric) -> str:
    """`B vs A: +17.80M count (+39.0%); slower (exact), beyond the ±1% noise band`."""
    parts = [f"{c.candidate} vs {c.baseline}: ", format_delta(c.delta, metric.unit)]
    zero_base = c.baseline_value is not None and c.baseline_value <= 0
    if c.ratio is not None and not zero_base:
        parts.append(f" ({format_exact_percent(c.ratio - 1)})")
    band = _band(c.threshold)
    if c.verdict == "exact":  # a run file before version 3 judged no direction
        parts.append("; exact, no test")
    elif c.verdict == "same":
        parts.append(f"; same (exact), within the ±{band} noise band")
    else:
        parts.append(f"; {verdict_word(c.verdict, metric)} (exact), beyond the ±{band} noise band")
    if any("vary" in note for note in c.notes):
        parts.append("; values vary between blocks, so medians are compared")
    return "".join(parts)


def _seen(c: Comparison) -> str:
    """What a run that found no change could have found: its minimum detectable change (none stored: nothing)."""
    if c.mde is None or not c.mde == c.mde or c.mde in (float("inf"), float("-inf")):
        return ""
    return f"; the smallest change this run could have seen is {format_percent(c.mde, signed=False)} (80% power)"


def reached_label(level: float) -> str:
    """0.75 -> '75%', 0.9375 -> '93.7%': rounded down, so that no interval is said to reach more than it does."""
    text = f"{math.floor(level * 1000 + 1e-9) / 10:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _reached_sentence(c: Comparison, ratio: float, ci: tuple[float, float], level: float) -> str:
    """`no verdict: ratio 1.040, 75% interval [1.010, 1.070]; 3 blocks are too few for a 95% verdict:
    run 6 or more`: what too few blocks can say, at the level they reach."""
    need = c.n + (c.more_runs or 0)
    if c.paired:
        few = f"{c.n} block{'' if c.n == 1 else 's'} {'is' if c.n == 1 else 'are'}"
        run = f"run {need} or more"
    else:
        few = f"{c.n} run{'' if c.n == 1 else 's'} per side {'is' if c.n == 1 else 'are'}"
        run = f"run {need} or more per side"
    return (f"no verdict: ratio {format_ratio(ratio)}, {reached_label(level)} interval "
            f"[{format_ratio(ci[0])}, {format_ratio(ci[1])}]; {few} too few for a "
            f"{confidence_label(c.confidence)} verdict: {run}")


def verdict_sentence(comparison: Comparison, metric: Metric) -> str:
    """The comparison's verdict as one sentence a reader can paste into a tracker.

    Args:
        comparison: a finished Comparison (ratio, CI, verdict, more_runs filled in).
        metric: its metric, for the direction and unit.

    Returns:
        The sentence, without a trailing period.
    """
    c = comparison
    if c.exact or c.verdict == "exact":
        return _exact_sentence(c, metric)
    if c.verdict == "insufficient" and c.ratio is not None and c.reached_ci is not None \
            and c.reached_confidence is not None:
        return _reached_sentence(c, c.ratio, c.reached_ci, c.reached_confidence)
    if c.verdict == "insufficient" or c.ratio is None or c.ci is None:
        need = c.n + (c.more_runs or 0)
        what = ("paired block" if c.paired else "run per side") if c.n == 1 else \
            ("paired blocks" if c.paired else "runs per side")
        text = f"no verdict: only {c.n} {what} (at least {need} needed)"
        if c.ratio is not None:
            text += f"; ratio {format_ratio(c.ratio)} so far"
        return text
    ci, label = _verdict_ci(c)
    band = _band(c.threshold)
    if c.verdict in ("faster", "slower"):
        ratio_part = f"ratio {format_ratio(c.ratio)}, {confidence_label(c.confidence)} CI " \
                     f"[{format_ratio(c.ci[0])}, {format_ratio(c.ci[1])}]"
        if c.adjusted_ci is not None and (format_ratio(ci[0]), format_ratio(ci[1])) != \
                (format_ratio(c.ci[0]), format_ratio(c.ci[1])):  # the same interval is not said twice
            ratio_part += f"; adjusted for multiple comparisons [{format_ratio(ci[0])}, {format_ratio(ci[1])}]"
        if c.meaningful:
            tail = f"significant; exceeds the ±{band} noise band"
        else:
            tail = f"significant, but may be below the ±{band} noise band"
        return f"{_claim(c, metric)} ({ratio_part}); {tail}; {_n_phrase(c)}"
    if c.verdict == "same":
        text = f"no meaningful difference: {label} {_pct_ci(ci)} lies within ±{band}"
        if c.significant:
            shift = format_percent(c.ratio - 1)
            text += f"; a real but negligible {shift} shift ({c.candidate} {_word(metric, c.ratio > 1)})"
        return text + _seen(c)
    # inconclusive
    lo, hi = ci[0] - 1, ci[1] - 1
    n_text = f"n = {c.n}" if c.paired else f"n = {c.n} per side, not interleaved"
    if lo < -c.threshold and hi > c.threshold:
        edges = f"both band edges (±{band})"
    elif lo < -c.threshold:
        edges = f"the {MINUS}{band} band edge"
    else:
        edges = f"the +{band} band edge"
    text = f"inconclusive: {label} {_pct_ci(ci)} ({n_text}) spans 0 and {edges}"
    est = c.ratio - 1
    if abs(est) > c.threshold:
        kind = _kind(metric)
        up = est > 0
        if kind == "rate":
            question = f"whether {c.candidate} has more than {band} {'higher' if up else 'lower'} throughput"
        elif kind == "memory":
            question = f"whether {c.candidate} uses more than {band} {'more' if up else 'less'} memory"
        elif kind == "time":
            question = f"whether {c.candidate} is more than {band} {'slower' if up else 'faster'}"
        else:
            question = f"whether {c.candidate}'s {metric.name} is more than {band} {'higher' if up else 'lower'}"
    else:
        question = f"whether {c.candidate} is within ±{band} of {c.baseline}"
    unit = "blocks" if c.paired else "runs per side"
    if c.more_runs is not None:
        text += (f"; about {c.more_runs} more {unit} ({c.n + c.more_runs} in all) should settle {question} "
                 "at the current noise")
    else:
        text += (f"; the estimate sits near the band edge, so more {unit} are unlikely to settle {question} "
                 "within budget")
    return text + _seen(c)
