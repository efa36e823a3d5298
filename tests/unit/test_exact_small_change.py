"""An exact count that changed by a tiny fraction (4 instructions in a million) never reads as a
0% change: every output prints enough digits, its percent and its ratio alike."""

from __future__ import annotations

import io
import re

from rich.console import Console

from pairbench.analysis.comparisons import analyze
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.asciidoc import render_asciidoc
from pairbench.report.brief import render_brief
from pairbench.report.format import format_exact_percent, format_exact_ratio
from pairbench.report.html import render_html
from pairbench.report.markdown import render_markdown
from pairbench.report.orgmode import render_orgmode
from pairbench.report.terminal import render_terminal


def _run() -> Run:
    metrics = (Metric("time"), Metric("instructions", "count", "lower", exact=True))
    variants = [Variant("a", "a", baseline=True), Variant("b", "b")]
    samples = []
    for block in range(6):
        for v, t, n in (("a", 1.0, 1_000_000), ("b", 1.0 + 0.001 * (block % 3), 1_000_004)):
            samples.append(Sample("bench", v, "time", t * (1 + 0.01 * block), block))
            samples.append(Sample("bench", v, "instructions", float(n), block))
    run = Run(metadata={"blocks": 6}, variants=variants, benchmarks=[Benchmark("bench", "command", metrics, {})],
              samples=samples)
    run.comparisons, _ = analyze(run)
    return run


def _console(buf: io.StringIO) -> Console:
    return Console(file=buf, width=200, color_system=None, force_terminal=False)


def _outputs(run: Run) -> dict[str, str]:
    out = {"markdown": render_markdown(run), "asciidoc": render_asciidoc(run), "orgmode": render_orgmode(run),
           "html": render_html(run)}
    for name, render in (("terminal", render_terminal), ("brief", render_brief)):
        buf = io.StringIO()
        render(run, _console(buf), sentences="all")
        out[name] = buf.getvalue()
    return out


def test_a_change_of_four_in_a_million_is_not_shown_as_zero() -> None:
    for name, text in _outputs(_run()).items():
        assert not re.search(r"\(\s*[+−]?0\.0+%\)", text), (name, text)
        if name == "brief" and "instructions: no meaningful change found" in text:
            continue  # the short answer folds a count within the band into one line
        assert "+4" in text and "+0.0004%" in text, (name, text)
        assert re.search(r"\b1\.000004\b", text) or name in ("terminal", "brief"), (name, text)


def test_the_html_plot_tip_of_a_small_exact_change_is_not_zero() -> None:
    from pairbench.report.plots import forest_plot

    svg = forest_plot(_run().comparisons)
    assert svg is not None and "instructions · b: +0.0004%" in svg, svg


def test_exact_formats_keep_a_nonzero_change_visible() -> None:
    assert format_exact_percent(4e-6) == "+0.0004%"
    assert format_exact_percent(-1.234e-7) == "−0.000012%"
    assert format_exact_percent(0.39) == "+39.0%"
    assert format_exact_percent(0.0) == "0.0%"
    assert format_exact_ratio(1.000004) == "1.000004"
    assert format_exact_ratio(0.99999) == "0.99999"
    assert format_exact_ratio(1.0) == "1.000"
    assert format_exact_ratio(1.39) == "1.390"
