"""hyperfine's Markdown table (`--export-markdown`), with pairbench's verdicts below it.

hyperfine's columns and their meaning (src/export/markup.rs): the command in a code span, the mean
± the standard deviation, min and max, all in one unit (`-u`, else the first command's), and
Relative, each mean divided by the fastest, ± the error propagated from both standard deviations.
Those figures describe each command alone; the answer to "is it faster" is the paired comparison,
so each one's verdict sentence (with its CI) follows as one line. The full report is `pairbench
report RUN` (format `markdown`).
"""

from __future__ import annotations

import math
from typing import Sequence

from pairbench.model import Benchmark, Metric, Run
from pairbench.report.command import TIME_METRICS, CommandStats, command_column, command_stats
from pairbench.report.format import current_time_unit
from pairbench.report.markdown import md_escape
from pairbench.report.summary import names, sentence_of
from pairbench.report.wording import verdict_word

__all__ = ["render_markdown_table", "table_rows", "relative_speeds", "CAPTION"]

CAPTION = ("_Mean ± σ, min and max of each command's runs; Relative: each mean over the fastest, ± the "
           "propagated σ. Verdicts from the paired blocks:_")

_UNITS = {"second": (1.0, "s"), "millisecond": (1e-3, "ms"), "microsecond": (1e-6, "µs"), "nanosecond": (1e-9, "ns")}
_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def _unit(first_mean: float) -> tuple[float, str]:
    """hyperfine's choice: the unit of `-u`, else the one that suits the first command's mean."""
    fixed = current_time_unit()
    if fixed is not None:
        return _UNITS[fixed]
    return next(((f, n) for f, n in _STEPS if abs(first_mean) >= f), _STEPS[-1])


def relative_speeds(stats: Sequence[CommandStats]) -> list[tuple[float, float | None]]:
    """(mean / fastest mean, its propagated σ) per command; the fastest has no σ (hyperfine's)."""
    fastest = min(stats, key=lambda s: s.mean)
    out: list[tuple[float, float | None]] = []
    for s in stats:
        if s is fastest or fastest.mean == 0:
            out.append((s.mean / fastest.mean if fastest.mean else 1.0, None))
            continue
        ratio = s.mean / fastest.mean
        if s.stddev is None or fastest.stddev is None or s.mean == 0:
            out.append((ratio, None))
        else:
            out.append((ratio, ratio * math.hypot(s.stddev / s.mean, fastest.stddev / fastest.mean)))
    return out


def _code(text: str) -> str:
    """A code span as hyperfine writes it (`|` escaped), with a longer fence around backticks."""
    text = " ".join(text.split()).replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def table_rows(entries: Sequence[tuple[str, CommandStats]]) -> list[str]:
    """hyperfine's header, divider and one row per (command, stats), in the order given."""
    factor, name = _unit(entries[0][1].mean)
    digits = 3 if name == "s" else 1

    def t(x: float) -> str:
        return f"{x / factor:.{digits}f}"

    lines = [f"| Command | Mean [{name}] | Min [{name}] | Max [{name}] | Relative |", "|:---|---:|---:|---:|---:|"]
    for (command, s), (ratio, sd) in zip(entries, relative_speeds([s for _, s in entries])):
        mean = t(s.mean) + (f" ± {t(s.stddev)}" if s.stddev is not None else "")
        relative = f"{ratio:.2f}" + (f" ± {sd:.2f}" if sd is not None else "")
        lines.append(f"| {_code(command)} | {mean} | {t(s.low)} | {t(s.high)} | {relative} |")
    return lines


def _verdict_lines(run: Run, bench: Benchmark, metric: Metric) -> list[str]:
    """`- **word**: sentence` per comparison (a sentence that starts with its word says it once)."""
    lines = []
    found = [c for c in run.comparisons if c.benchmark == bench.name and c.metric == metric.name]
    for c in found:
        word, sentence = verdict_word(c.verdict, metric), sentence_of(c, metric)
        sentence = sentence.removeprefix(f"{word}: ")
        # several candidates: name the one a sentence is about when the sentence does not
        who = f" ({md_escape(c.candidate)})" if len({x.candidate for x in found}) > 1 and not names(sentence, c.candidate) else ""
        lines.append(f"- **{word}**{who}: {md_escape(sentence)}")
    return lines


def render_markdown_table(run: Run) -> str:
    """One table per benchmark that has a time per run (a heading each when there are several),
    each followed by the verdict of its time comparisons, one line each; a benchmark with no time
    per run (HTTP) gets the verdicts of its primary metric alone."""
    out: list[str] = []
    for bench in run.benchmarks:
        metric = next((m for m in bench.metrics if m.name in TIME_METRICS), None)
        entries = [(command_column(v, bench, False), s) for v in run.variants
                   if metric is not None and (s := command_stats(run, bench, v.name)) is not None]
        verdicts = _verdict_lines(run, bench, metric or bench.metrics[0]) if bench.metrics else []
        if not entries and not verdicts:
            continue
        if len(run.benchmarks) > 1:
            out += [f"### {md_escape(bench.name)}", ""]
        if entries:
            out += table_rows(entries) + ([""] if verdicts else [])
            out += [CAPTION] if verdicts else []
        out += verdicts + [""]
    if not out:
        out = ["_Nothing was measured._", ""]
    return "\n".join(out).rstrip() + "\n"
