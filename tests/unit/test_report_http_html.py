"""An HTTP benchmark's HTML: the verdicts first, the ~30 recorded figures collapsed, zero counters named."""

from __future__ import annotations

import re

from pairbench.model import Benchmark, Comparison, Run, Sample, Variant
from pairbench.report.html import render_html
from pairbench.report.markdown import render_markdown
from pairbench.runners.http import http_metrics

ZERO = {"failed", "errors_connect", "errors_reset", "errors_timeout", "errors_protocol", "non_2xx", "status_3xx",
        "status_4xx", "status_5xx"}


def _http_run() -> Run:
    metrics = http_metrics()
    samples = []
    for block in range(6):
        for v, f in (("main", 1.0), ("fast", 0.8)):
            for m in metrics:
                value = 0.0 if m.name in ZERO else (1000.0 / f if m.name == "req_per_s" else 0.002 * f + block * 1e-5)
                samples.append(Sample("issues", v, m.name, value, block))
    comps = [Comparison("issues", name, "main", "fast", r, (r - 0.02, r + 0.02), 0.001, 6, True, True, verdict, None)
             for name, r, verdict in (("req_per_s", 1.25, "faster"), ("latency_median", 0.8, "faster"),
                                      ("latency_p99", 0.8, "faster"))]
    return Run({"hostname": "h"}, [Variant("main", baseline=True), Variant("fast")],
               [Benchmark("issues", "http", metrics)], samples, comps, [], "complete")


def _outside_details(html: str) -> str:
    return re.sub(r"<details.*?</details>", "", html, flags=re.S)


def test_the_verdict_rows_come_before_the_first_plot_and_zero_counters_are_collapsed() -> None:
    page = render_html(_http_run())
    section = page[page.index("<h2>HTTP benchmarks</h2>"):]
    before_plot = section[: section.index("<svg")]
    visible_rows = re.findall(r"<tr><td>issues</td><td>([a-z_0-9]+)</td>", _outside_details(before_plot))
    assert sorted(set(visible_rows)) == ["latency_median", "latency_p99", "req_per_s"]
    assert len(visible_rows) == 6  # two variants each: the answer, not 90 rows of counters
    zero = re.search(r'<details class="figs zero"><summary>Zero for every variant: issues: ([^<]+)</summary>(.*?)</details>',
                     before_plot, re.S)
    assert zero is not None and set(zero.group(1).split(", ")) == ZERO
    assert set(re.findall(r"<tr><td>issues</td><td>([a-z_0-9]+)</td>", zero.group(2))) == ZERO
    described = re.search(r'<details class="figs"><summary>Measured, not judged \((\d+) rows\)</summary>(.*?)</details>',
                          before_plot, re.S)
    assert described is not None
    shown = set(re.findall(r"<tr><td>issues</td><td>([a-z_0-9]+)</td>", described.group(2)))
    assert "server_cpu_per_req" in shown and "bytes" in shown and not shown & ZERO
    assert int(described.group(1)) == 2 * len(shown)


def test_a_judged_metric_is_never_collapsed_even_at_zero() -> None:
    run = _http_run()
    run.samples = [s if s.metric != "latency_p99" else type(s)(s.benchmark, s.variant, s.metric, 0.0, s.block)
                   for s in run.samples]
    page = render_html(run)
    assert "latency_p99" in _outside_details(page[: page.index("<details class=\"figs zero\">")])


def test_markdown_puts_the_verdicts_first_too() -> None:
    text = render_markdown(_http_run())
    section = text[text.index("## HTTP benchmarks"):]
    table = section[: section.index("<details")]
    rows = re.findall(r"^\| issues \| ([a-z_0-9]+) \|", table, re.M)
    assert sorted(set(rows)) == ["latency_median", "latency_p99", "req_per_s"]
    assert "Zero for every variant: issues: " in section


def test_the_verdict_sentences_come_before_the_collapsed_figures() -> None:
    page = render_html(_http_run())
    section = page[page.index("<h2>HTTP benchmarks</h2>"):]
    assert section.index('<ul class="sentences">') < section.index('<details class="figs')
    assert "fast has 25.0% higher throughput than main" in section[: section.index('<details class="figs')]
