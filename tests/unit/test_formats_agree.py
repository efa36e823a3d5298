"""Terminal, Markdown and HTML show one comparison with the same ratio, CI and verdict."""

from __future__ import annotations

import io
import re

from rich.console import Console

from pairbench.model import Benchmark, Comparison, Metric, Run, Sample, Variant
from pairbench.report.html import render_html
from pairbench.report.markdown import render_markdown
from pairbench.report.terminal import render_terminal


def _run() -> Run:
    samples = [Sample("sort", v, "time", t + 0.001 * b, b) for b in range(8) for v, t in (("A", 0.1), ("B", 0.09))]
    # The verdict rests on the Holm-adjusted CI, which reaches into the band: the raw one would not.
    c = Comparison("sort", "time", "A", "B", 0.9, (0.885, 0.915), 0.001, 8, True, False, "faster", None,
                   adjusted_ci=(0.84, 0.995), adjusted_p=0.02, notes=("adjusted for multiple comparisons",))
    return Run(metadata={"blocks": 8}, variants=[Variant("A", baseline=True), Variant("B")],
               benchmarks=[Benchmark("sort", "command", (Metric("time"),))], samples=samples,
               comparisons=[c], status="complete")


def _rows(run: Run) -> dict[str, str]:
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=200, color_system=None), sentences="none")
    terminal = next(line for line in out.getvalue().splitlines() if line.startswith("time"))
    markdown = next(line for line in render_markdown(run).splitlines() if line.startswith("| sort | time | B |"))
    html = re.search(r"<tr><td>sort</td><td>time</td><td>B</td>.*?</tr>", render_html(run))
    assert html is not None
    return {"terminal": terminal, "markdown": markdown, "html": html.group(0)}


def test_every_format_shows_the_ci_the_verdict_rests_on() -> None:
    for fmt, row in _rows(_run()).items():
        assert "[0.840, 0.995]" in row, (fmt, row)
        assert "0.885" not in row, (fmt, row)  # never the raw CI beside a verdict made on the adjusted one
        assert "0.900" in row and "faster" in row, (fmt, row)


def test_every_format_says_the_ci_is_adjusted() -> None:
    run = _run()
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=200, color_system=None), sentences="none")
    for fmt, text in (("terminal", out.getvalue()), ("markdown", render_markdown(run)), ("html", render_html(run))):
        assert "95% CI (adj.)" in text, fmt


def test_the_html_forest_plot_draws_the_adjusted_ci() -> None:
    html = render_html(_run())
    assert "CI (adj.) [−16.0%, −0.5%]" in html and "[−11.5%, −8.5%]" not in html


def test_an_unadjusted_ci_is_never_headed_adjusted() -> None:
    """Primary metrics are corrected, secondary ones (user, sys) not: only the corrected CIs say so."""
    run = _run()
    run.benchmarks = [Benchmark("sort", "command", (Metric("time"), Metric("user")))]
    run.samples += [Sample("sort", v, "user", t + 0.001 * b, b) for b in range(8) for v, t in (("A", 0.05), ("B", 0.04))]
    run.comparisons.append(Comparison("sort", "user", "A", "B", 0.8, (0.7, 0.9), 0.001, 8, True, True, "faster", None))
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=200, color_system=None), sentences="none")
    user_md = next(line for line in render_markdown(run).splitlines() if line.startswith("| sort | user | B |"))
    html = render_html(run)
    user_html = re.search(r"<tr><td>sort</td><td>user</td><td>B</td>.*?</tr>", html)
    assert user_html is not None
    for fmt, text, user_row in (
        ("terminal", out.getvalue(), next(line for line in out.getvalue().splitlines() if line.startswith("user"))),
        ("markdown", render_markdown(run), user_md), ("html", html, user_html.group(0)),
    ):
        assert "95% CI (adj.)" not in text and "adj.)" in text, fmt
        assert "[0.700, 0.900]" in user_row and "[0.700, 0.900]*" not in user_row and "0.900]\\*" not in user_row, fmt
        assert "[0.840, 0.995]*" in text or "[0.840, 0.995]\\*" in text, fmt
