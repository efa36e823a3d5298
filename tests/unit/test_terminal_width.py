"""Piped output (80 columns, or narrower) never cuts a verdict; warnings go to the diagnostics console."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from pairbench.analysis import analyze
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.terminal import render_terminal

NAMES = ["ruby-head --yjit --yjit-exec-mem-size=64", "ruby-patched-with-a-long-name --yjit",
         "c3-another-long-variant-name"]
BENCH = "a-fairly-long-benchmark-name"


def _run() -> Run:
    rng = random.Random(1)  # noisy and short: every verdict is a long "inconclusive (+N)"
    samples = [Sample(BENCH, v, m, 0.1 * (1 + rng.gauss(0, 0.05)), b)
               for b in range(6) for v in NAMES for m in ("time", "user_time_long_metric")]
    run = Run(metadata={"blocks": 6}, variants=[Variant(NAMES[0], baseline=True), Variant(NAMES[1]), Variant(NAMES[2])],
              benchmarks=[Benchmark(BENCH, "command", (Metric("time", "s"), Metric("user_time_long_metric", "s")))],
              samples=samples)
    run.comparisons, run.notices = analyze(run)
    return run


def _render(run: Run, width: int) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    render_terminal(run, Console(file=out, width=width, color_system=None, force_terminal=False),
                    diagnostics=Console(file=err, width=width, color_system=None, force_terminal=False))
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("width", [80, 60, 40])
def test_every_verdict_is_shown_whole_at_pipe_widths(width: int) -> None:
    run = _run()
    out, _ = _render(run, width)
    flat = " ".join(out.split())
    assert "…" not in out
    for c in run.comparisons:
        if c.metric in ("time", "user_time_long_metric"):
            word = c.verdict + (f" (+{c.more_runs})" if c.verdict == "inconclusive" and c.more_runs else "")
            assert word in flat, (word, out)
    assert all(len(line) <= width for line in out.splitlines())


def test_warnings_and_the_run_file_go_to_diagnostics_not_with_the_results() -> None:
    run = _run()
    run.metadata["run_file"] = "/tmp/r.json"
    out, err = _render(run, 120)
    assert "warning" in err
    assert not any(line.startswith(("warning", "note")) for line in out.splitlines())
    assert "run file: /tmp/r.json" in err and "run file" not in out
    assert "inconclusive" in out


def _counts_run() -> Run:
    """Counter-like metrics: long names, counts of six digits and more (exact, identical per block)."""
    names = ("time", "sim-L1-dcache-load-misses", "instructions", "branch-miss-rate")
    rng = random.Random(2)
    values = {"true": (6.8e-4, 122529.0, 142959.0, 0.1269), "ls": (1.21e-3, 320757.0, 627482.0, 0.0897)}
    samples = [Sample("command", v, m, x * (1 + rng.gauss(0, 0.03)) if m == "time" else x, b)
               for b in range(10) for v in values for m, x in zip(names, values[v])]
    run = Run(metadata={"blocks": 10}, variants=[Variant("true", baseline=True), Variant("ls")],
              benchmarks=[Benchmark("command", "command", (Metric("time", "s"), Metric(names[1], "count", exact=True),
                                                           Metric(names[2], "count", exact=True), Metric(names[3], "")))],
              samples=samples)
    run.comparisons, run.notices = analyze(run)
    return run


@pytest.mark.parametrize("width", [80, 60])
def test_no_figure_and_no_metric_name_is_broken_across_lines(width: int) -> None:
    """A cell too narrow for its figure folded it: `45232` over `9` reads as two numbers, neither
    of them 452329. Where the table cannot hold every figure whole, it is one line per comparison."""
    from pairbench.report.terminal import variant_summary

    run = _counts_run()
    out, _ = _render(run, width)
    lines = out.splitlines()
    lines = lines[:next(i for i, line in enumerate(lines) if line.startswith("values:"))]  # the table's (or its lines')
    bench = run.benchmarks[0]
    for metric in bench.metrics:
        assert any(metric.name in line for line in lines), (metric.name, out)
        for v in run.variants:
            comp = next((c for c in run.comparisons if c.metric == metric.name and c.candidate == "ls"), None)
            value = comp and (comp.baseline_value if v.baseline else comp.candidate_value)
            for word in variant_summary(run, bench, metric, v.name, value).split():
                assert any(word in line for line in lines), (word, out)
    assert all(len(line) <= width for line in lines)
    flat = " ".join(" ".join(lines).split())
    assert "instructions · ls: 627482 ±0.0% vs 142959 ±0.0% (true); Δ" in flat, out  # one line a comparison
    assert "ratio Δ" not in flat and "CI exact" not in flat  # an exact count's change is its difference
