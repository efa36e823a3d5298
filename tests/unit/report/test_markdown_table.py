"""`--export-markdown` is hyperfine's table (Command | Mean | Min | Max | Relative) plus each verdict."""

from __future__ import annotations

import math
import re

from tests.unit.runs_by_hand import make_run

from pairbench.report.command import CommandStats, command_stats
from pairbench.report.exporters import render_export
from pairbench.report.format import fixed_time_unit
from pairbench.report.markdown_table import relative_speeds, table_rows

HEADER = "| Command | Mean [{u}] | Min [{u}] | Max [{u}] | Relative |\n|:---|---:|---:|---:|---:|"


def _stats(mean: float, sd: float, low: float, high: float) -> CommandStats:
    return CommandStats(runs=3, mean=mean, stddev=sd, median=mean, low=low, high=high, user=None, system=None)


def test_rows_are_hyperfines_for_its_own_example() -> None:
    # hyperfine src/export/markdown.rs test_markdown_format_ms: the first mean sets the unit
    fast, slow = _stats(0.1057, 0.0016, 0.1023, 0.1080), _stats(2.0050, 0.0020, 2.0020, 2.0080)
    assert table_rows([("sleep 0.1", fast), ("sleep 2", slow)]) == [
        *HEADER.format(u="ms").splitlines(),
        "| `sleep 0.1` | 105.7 ± 1.6 | 102.3 | 108.0 | 1.00 |",
        "| `sleep 2` | 2005.0 ± 2.0 | 2002.0 | 2008.0 | 18.97 ± 0.29 |",
    ]
    assert table_rows([("sleep 2", slow), ("sleep 0.1", fast)])[2] == "| `sleep 2` | 2.005 ± 0.002 | 2.002 | 2.008 | 18.97 ± 0.29 |"
    with fixed_time_unit("second"):
        assert table_rows([("sleep 0.1", fast), ("sleep 2", slow)])[2] == "| `sleep 0.1` | 0.106 ± 0.002 | 0.102 | 0.108 | 1.00 |"


def test_relative_is_the_ratio_to_the_fastest_with_its_propagated_error() -> None:
    a, b = _stats(2.0, 0.2, 1.8, 2.2), _stats(1.0, 0.05, 0.9, 1.1)
    (ra, sa), (rb, sb) = relative_speeds([a, b])
    assert (ra, rb, sb) == (2.0, 1.0, None)
    assert sa == math.hypot(0.2 / 2.0, 0.05 / 1.0) * 2.0
    assert table_rows([("a|b", a), ("b", b)])[2].startswith("| `a\\|b` |")


def test_the_export_is_the_table_and_one_verdict_line_per_comparison() -> None:
    run = make_run()
    text = render_export(run, "markdown-table")
    lines = text.splitlines()
    start = lines.index("### startup")
    assert lines[start + 2:start + 4] == HEADER.format(u="ms").splitlines()
    head, patched = lines[start + 4:start + 6]
    stats = command_stats(run, run.benchmarks[0], "patched")
    assert stats is not None and head.startswith("| `head` |") and patched.startswith("| `patched` |")  # the -n names
    assert f"| {stats.low * 1e3:.1f} | {stats.high * 1e3:.1f} | 1.00 |" in patched  # patched is the faster
    ratio = float(re.search(r"\| (\d+\.\d\d) ± \d+\.\d\d \|$", head).group(1))
    assert abs(ratio - 1 / 0.93) < 0.02
    section = lines[start:lines.index("### issues page")]
    verdicts = [line for line in section if line.startswith("- ")]
    assert len(verdicts) == 1 and "**faster**" in verdicts[0] and "CI" in verdicts[0]
    http = lines[lines.index("### issues page"):lines.index("### Object.new")]  # no time per run: the verdict alone
    assert [line[:18] for line in http if line.startswith(("- ", "| "))] == ["- **inconclusive**"]
    assert "\n## " not in text and "<details>" not in text  # not the full report


def test_two_commands_fit_in_twelve_lines() -> None:
    run = make_run()
    run.benchmarks = run.benchmarks[:1]
    run.comparisons = [c for c in run.comparisons if c.benchmark == "startup"]
    text = render_export(run, "markdown-table")
    assert len(text.splitlines()) <= 12, text
    assert text.startswith(HEADER.format(u="ms")), text


def test_a_verdict_is_named_once_per_line() -> None:
    run = make_run()
    lines = [line for line in render_export(run, "markdown-table").splitlines() if line.startswith("- ")]
    assert lines and all(not re.match(r"- \*\*(\w+)\*\*: \1\b", line) for line in lines), lines


def test_a_verdict_line_that_does_not_name_its_candidate_names_it() -> None:
    # three commands: "- **same**: 95% CI ... lies within ±1%" said nothing of which one
    from tests.unit.test_analysis import analyze, make_run as make_analysed_run

    run = make_analysed_run({"A": 1.0, "B": 1.0, "C": 1.2}, noise=0.001)
    run.comparisons, _ = analyze(run)
    lines = [line for line in render_export(run, "markdown-table").splitlines() if line.startswith("- **")]
    assert lines[0].startswith("- **same** (B): ")
    assert lines[1].startswith("- **slower**: C is 20.0% slower than A")
