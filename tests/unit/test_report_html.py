"""The HTML report: self-contained, every plot present, user strings escaped."""

from __future__ import annotations

import re

from tests.unit.runs_by_hand import make_run, make_sweep_run

from pairbench.model import Comparison
from pairbench.report.html import render_html
from pairbench.report.markdown import UNPAIRED_LABEL
from pairbench.report.format import axis_formatter, format_value
from pairbench.report.svg import nice_ticks


def _plots(page: str) -> list[str]:
    return re.findall(r'<svg class="plot plot-([a-z]+)"', page)


def test_page_is_self_contained() -> None:
    page = render_html(make_run())
    assert page.startswith("<!DOCTYPE html>")
    urls = set(re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", page))
    assert urls == set()
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}  # a namespace, not fetched
    assert "default-src 'none'" in page  # the browser refuses any network access


def test_every_kind_of_plot_is_drawn() -> None:
    plots = _plots(render_html(make_run()))
    assert plots.count("forest") == 1
    assert plots.count("latency") == 1  # the http benchmark
    assert plots.count("drift") == 3  # one per benchmark
    # command: time, rss; http: req_per_s (latency metrics go to the percentile plot); micro: 2
    assert plots.count("distribution") == 5
    assert "sweep" not in plots
    assert _plots(render_html(make_sweep_run())).count("sweep") == 1


def test_forest_plot_shows_the_band_and_each_comparison() -> None:
    page = render_html(make_run())
    forest = page[page.index('plot-forest'):]
    forest = forest[: forest.index("</svg>")]
    assert "±1% noise band" in forest
    assert forest.count("<circle") == 4  # the exact count too: a point without a whisker


def test_script_in_names_is_text() -> None:
    evil = "<script>alert(1)</script>"
    run = make_run(bench_name=evil)
    run.variants[1] = type(run.variants[1])('"><img src=x onerror=alert(2)>', baseline=False)
    page = render_html(run)
    assert page.count("<script") == 0  # the page has none, and the name is text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page


def test_unpaired_label_and_interrupted_status() -> None:
    run = make_run(status="interrupted")
    comps = [Comparison("startup", "time", "head", "patched", 0.95, (0.9, 1.0), 0.04, 8, True, False,
                        "inconclusive", None, paired=False)]
    page = render_html(run, comparisons=comps)
    assert UNPAIRED_LABEL in page and "This run is interrupted" in page


def test_units_and_ticks() -> None:
    assert format_value(0.0123, "s") == "12.30 ms"
    assert format_value(2.5e-7, "s") == "250.0 ns"
    assert format_value(50_000_000, "B") == "47.68 MiB"
    assert format_value(2.5e6, "op/s") == "2.500M op/s"
    assert format_value(3.0, "count") == "3"
    assert nice_ticks(0, 10, 5) == [0, 2, 4, 6, 8, 10]
    fmt = axis_formatter(50_000_000, 50_001_000, "B")
    assert fmt(50_000_000) != fmt(50_000_250)  # close ticks stay distinguishable


def test_a_huge_ci_does_not_squash_the_forest_plot() -> None:
    from pairbench.report.plots import forest_plot

    comps = [Comparison("b", "time", "a", "x", 0.95, (0.93, 0.97), 0.01, 10, True, True, "faster", None),
             Comparison("b", "sys", "a", "x", 1.2, (0.2, 15.0), 0.5, 10, False, False, "inconclusive", None)]
    svg = forest_plot(comps)
    assert svg is not None
    ticks = [t for t in re.findall(r">([+−-]\d+)%<", svg)]
    assert max(abs(int(t.replace("−", "-"))) for t in ticks) <= 100  # not stretched to +1400%
    assert "›" in svg  # the cut whisker is marked


def test_the_forest_plot_names_a_verdict_as_the_table_does() -> None:
    # rss +2.4%: the table said "larger", the plot's tip "(slower)"
    from dataclasses import replace

    from tests.unit.runs_by_hand import make_run

    run = make_run()
    run.comparisons = [replace(c, ratio=1.05, ci=(1.02, 1.08), verdict="slower", significant=True, meaningful=True)
                       if c.metric == "rss" else c for c in run.comparisons]
    page = render_html(run)
    assert "startup · rss · patched: +5.0% (larger)" in page
    assert "startup · time · patched: −7.4% (faster)" in page
