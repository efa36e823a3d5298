from __future__ import annotations

import random

from pairbench.analysis import analyze
from pairbench.model import Benchmark, Run, Sample, Variant
from pairbench.report.http import http_figures, render_http_comparisons, render_http_figures
from pairbench.runners.http import http_metrics


def _run(rounds: int = 8, slow: float = 1.0, seed: int = 0) -> Run:
    rng = random.Random(seed)
    bench = Benchmark("/items", "http", http_metrics(), {"url": "/items", "connections": 4})
    run = Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")], benchmarks=[bench])
    for block in range(rounds):
        drift = 1 + 0.05 * block  # the machine slows down; pairing cancels it
        for v, factor in (("a", 1.0), ("b", slow)):
            noise = rng.gauss(1, 0.01)
            figs = {"req_per_s": 1000 / (drift * factor * noise), "latency_median": 0.004 * drift * factor * noise,
                    "latency_p99": 0.01 * drift * factor * noise, "latency_mean": 0.005, "requests": 2000,
                    "failed": 1, "non_2xx": 0, "transfer_rate": 2048.0}
            figs.update({f"latency_p{q}": q / 10000 for q in (50, 66, 75, 80, 90, 95, 98, 99, 100)})
            run.samples += [Sample("/items", v, k, float(x), block) for k, x in figs.items()]
    return run


def test_figures_are_medians_over_rounds_and_counts_are_summed() -> None:
    figs = http_figures(_run(rounds=3))["/items"]["a"]
    assert figs["rounds"] == 3 and figs["requests"] == 6000 and figs["failed"] == 3
    assert figs["latency_p99"] == 0.0099


def test_ab_style_text_has_the_figures_ab_users_know() -> None:
    text = render_http_figures(_run())
    for label in ("Requests per second", "Time per request, mean [ms]", "Time per request, median [ms]",
                  "Transfer rate [KB/s]", "Failed requests", "100% (longest request of all rounds)"):
        assert label in text
    assert "/items  (concurrency 4" in text
    line = next(l for l in text.splitlines() if "66%" in l)
    assert line.split()[-2:] == ["6.600", "6.600"]


def paired_comparisons(run: Run, threshold: float, confidence: float) -> list:
    return list(analyze(run, threshold=threshold, confidence=confidence)[0])


def test_analysis_judges_only_throughput_and_latency_and_sees_a_known_slowdown() -> None:
    run = _run(rounds=10, slow=1.10)
    comps = {c.metric: c for c in paired_comparisons(run, 0.01, 0.95) if c.ratio is not None}
    assert set(comps) == {"req_per_s", "latency_median", "latency_p99"}
    rps = comps["req_per_s"]
    assert rps.verdict == "slower" and rps.ci is not None and rps.ci[0] < 1 / 1.10 < rps.ci[1]
    assert comps["latency_median"].verdict == "slower"
    text = render_http_comparisons(Run(metadata={}, variants=run.variants, benchmarks=run.benchmarks,
                                       comparisons=list(comps.values())))
    assert "requests/s" in text and "slower" in text


def test_a_a_is_not_called_different_across_seeds() -> None:
    flagged = 0
    for seed in range(40):
        comps = paired_comparisons(_run(rounds=10, slow=1.0, seed=seed), 0.01, 0.95)
        flagged += any(c.meaningful for c in comps)
    assert flagged <= 2


def test_every_figure_says_what_it_is_and_the_longest_request_is_the_longest_of_all_rounds() -> None:
    run = _run(rounds=3)
    longest = {0: 0.010, 1: 0.050, 2: 0.020}
    run.samples = [s if s.metric != "latency_p100" else Sample(s.benchmark, s.variant, s.metric, longest[s.block],
                                                               s.block) for s in run.samples]
    assert http_figures(run)["/items"]["a"]["latency_p100"] == 0.050
    text = render_http_figures(run)
    header = text.splitlines()[0]
    assert "counts are totals over the rounds" in header and "medians" in header
    line = next(l for l in text.splitlines() if "100%" in l)
    assert "longest request of all rounds" in line and line.split()[-2:] == ["50.000", "50.000"]


def test_one_variant_prints_no_empty_comparison_table_and_says_there_is_nothing_to_compare() -> None:
    import io

    from rich.console import Console

    from pairbench.report.terminal import render_terminal

    run = _run(rounds=3)
    run.variants = [run.variants[0]]
    run.samples = [s for s in run.samples if s.variant == "a"]
    run.comparisons, run.notices = analyze(run, threshold=0.01, confidence=0.95)
    run.metadata["blocks"] = 3
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=100, color_system=None, force_terminal=False))
    text = out.getvalue()
    assert "nothing to compare" in text and "one variant (a)" in text
    assert "verdict" not in text and "baseline" not in text
    assert "Requests per second" in render_http_figures(run)


def test_the_ab_table_shows_the_judged_figures_the_comparison_table_shows_beside_its_ratio() -> None:
    """Requests/s and the judged latencies read the same in the ab-style table as beside the ratio
    (the geometric means the analysis stored), not a median of rounds that differs from them."""
    run = _run(rounds=9, slow=1.10, seed=3)
    run.comparisons = paired_comparisons(run, 0.01, 0.95)
    text = render_http_figures(run)
    rps = next(c for c in run.comparisons if c.metric == "req_per_s")
    row = next(l for l in text.splitlines() if "Requests per second" in l).split()
    assert row[-2:] == [f"{rps.baseline_value:,.2f}", f"{rps.candidate_value:,.2f}"]
    med = next(c for c in run.comparisons if c.metric == "latency_median")
    row = next(l for l in text.splitlines() if "Time per request, median" in l).split()
    assert row[-2:] == [f"{med.baseline_value * 1000:.3f}", f"{med.candidate_value * 1000:.3f}"]
    # The medians of rounds differ from them here, so the test would see the old figures.
    assert f"{http_figures(run)['/items']['a']['req_per_s']:,.2f}" != f"{rps.baseline_value:,.2f}"
    assert "requests/s, median and 99% the figures beside the ratios" in text.splitlines()[0]


def test_the_percentile_table_is_in_order_when_the_rounds_differ_widely() -> None:
    """Rounds a hundred times apart (a loaded machine, wrk's rounds against nginx): every round's
    percentiles are in order, and so must the table's be, where the 50% and 99% rows are the
    figures beside the ratios (geometric means) and the rows between them were medians of the
    rounds (98% read 2.336 ms under a 99% of 0.538 ms)."""
    bench = Benchmark("/items", "http", http_metrics(), {"url": "/items", "connections": 2})
    run = Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")], benchmarks=[bench])
    qs = (66, 75, 80, 90, 95, 98)
    for block in range(6):
        for v, scale in (("a", 1.0), ("b", 1.1)):
            slow = 100.0 if (block + (v == "b")) % 2 else 1.0  # every other round a hundred times slower
            base = 40e-6 * scale * slow
            figs = {"req_per_s": 1 / base, "latency_median": base, "latency_p99": base * 1.3,
                    "latency_p100": base * 2, **{f"latency_p{q}": base * (1 + (q - 50) / 200) for q in qs}}
            run.samples += [Sample("/items", v, k, float(x), block) for k, x in figs.items()]
    run.comparisons = paired_comparisons(run, 0.01, 0.95)
    lines = render_http_figures(run).splitlines()
    rows = [next(l for l in lines if l.strip().startswith(f"{q}%")).split() for q in (50, *qs, 99, 100)]
    for column in (1, 2):
        shown = [float(r[column]) for r in rows[:-1]] + [float(rows[-1][-3 + column])]
        assert shown == sorted(shown), (column, shown)
    p99 = next(c for c in run.comparisons if c.metric == "latency_p99")
    assert rows[7][1:] == [f"{p99.baseline_value * 1000:.3f}", f"{p99.candidate_value * 1000:.3f}"]
