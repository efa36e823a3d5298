"""The sweep report, from runs built by hand (synthetic samples with a fixed seed)."""

from __future__ import annotations

import io
import math
import random
import re
from dataclasses import replace

import pytest

from pairbench.model import Benchmark, Comparison, Metric, Run, Sample, Variant
from pairbench.analysis.sweep import sweep_tables

TIME = Metric("time", "s", "lower")


def make_run(factors: dict[str, float], blocks: int = 12, noise: float = 0.03, seed: int = 5,
             baseline: str = "3") -> Run:
    rng = random.Random(seed)
    variants = [Variant(f"py/N={k}", command="py", env={"N": k}, params={"N": k}, baseline=(k == baseline),
                        meta={"base": "py"}) for k in factors]
    variants.append(Variant("other", command="x", meta={"base": "other"}))
    samples = []
    for b in range(blocks):
        drift = math.exp(rng.gauss(0, 0.05))  # shared by every variant of the block: pairing removes it
        for k, f in factors.items():
            samples.append(Sample("loop", f"py/N={k}", "time", 0.1 * f * drift * math.exp(rng.gauss(0, noise)), b))
        samples.append(Sample("loop", "other", "time", 0.1, b))
    suite = {"sweeps": [{"name": "N", "values": list(factors), "as": "env", "variants": ["py"], "numeric": True}]}
    return Run(metadata={"options": {"confidence": 0.95, "threshold": 1.0}}, variants=variants,
               benchmarks=[Benchmark("loop", "command", (TIME,), {"command": "{variant}"})], samples=samples, suite=suite)


def test_rows_verdicts_best_and_trend_without_analysis() -> None:
    run = make_run({"3": 2.56, "1": 1.0, "2": 1.6, "4": 4.1, "5": 6.55})
    (t,) = sweep_tables(run)
    assert (t.benchmark, t.metric.name, t.base, t.params, t.baseline) == ("loop", "time", "py", ("N",), "py/N=3")
    assert [r.params["N"] for r in t.rows] == ["3", "1", "2", "4", "5"]
    assert {r.params["N"]: r.verdict for r in t.rows} == {"3": "baseline", "1": "faster", "2": "faster",
                                                          "4": "slower", "5": "slower"}
    assert t.family == 5 and t.correction == "holm"  # the run's family: four points and "other"
    r1 = next(r for r in t.rows if r.params["N"] == "1")
    assert r1.ratio == pytest.approx(1 / 2.56, rel=0.05)
    c1 = r1.comparison
    assert c1 is not None and c1.adjusted_p is not None and c1.p_value is not None and c1.adjusted_p >= c1.p_value
    assert t.best == "py/N=1" and t.runner_up == "py/N=2"
    assert t.distinguishable is True and t.best_vs_runner_up is not None
    assert t.best_vs_runner_up.ratio == pytest.approx(1.6, rel=0.05)
    (fit,) = t.trends
    assert fit.parameter == "N" and fit.held == "" and fit.percent_per_unit == pytest.approx(60, rel=0.1)


def test_close_values_are_same_and_not_distinguishable() -> None:
    run = make_run({"3": 1.0, "1": 1.001, "2": 1.0}, blocks=20, noise=0.002)
    (t,) = sweep_tables(run)
    assert {r.params["N"]: r.verdict for r in t.rows} == {"3": "baseline", "1": "same", "2": "same"}
    assert t.distinguishable is False


def test_holm_changes_a_borderline_verdict() -> None:
    # Alone, N=1 is slower (p about 0.02); with 20 more rows in the family it must clear Holm and fails to.
    lone = make_run({"3": 1.0, "1": 1.05}, blocks=8, noise=0.03, seed=2)
    many = make_run({"3": 1.0, "1": 1.05}, blocks=8, noise=0.03, seed=2)
    base = [s for s in many.samples if s.variant == "py/N=3"]
    for k in range(4, 24):
        many.variants.append(Variant(f"py/N={k}", params={"N": str(k)}, meta={"base": "py"}))
        many.samples += [replace(s, variant=f"py/N={k}") for s in base]
    v_lone = next(r for r in sweep_tables(lone)[0].rows if r.params["N"] == "1")
    v_many = next(r for r in sweep_tables(many)[0].rows if r.params["N"] == "1")
    c_lone, c_many = v_lone.comparison, v_many.comparison
    assert c_lone is not None and c_many is not None
    assert c_lone.p_value is not None and c_lone.p_value < 0.05 and v_lone.verdict == "slower"
    # In a family of 21 at 8 blocks the rank CI cannot reach 1 - 0.05/21, so the t test is used there.
    assert c_many.p_value is not None and c_many.p_value < 0.05 and "t CI" in c_many.method
    assert c_many.adjusted_p is not None and c_many.adjusted_p >= 0.05 and v_many.verdict == "inconclusive"
    assert v_many.ci is not None and v_lone.ci is not None
    assert v_many.ci[1] - v_many.ci[0] > v_lone.ci[1] - v_lone.ci[0]


def test_uses_the_runs_own_correction_when_the_analysis_made_one() -> None:
    run = make_run({"3": 1.0, "1": 0.5, "2": 0.8})
    run.comparisons = [
        Comparison("loop", "time", "py/N=3", "py/N=1", 0.5, (0.45, 0.55), 0.001, 12, True, True, "faster", None,
                   adjusted_ci=(0.4, 0.6)),
        Comparison("loop", "time", "py/N=3", "py/N=2", 0.8, (0.75, 0.85), 0.001, 12, True, True, "inconclusive", None,
                   adjusted_ci=(0.7, 1.1)),
        Comparison("loop", "time", "py/N=3", "other", 1.0, (0.9, 1.1), 0.9, 12, False, False, "same", None,
                   adjusted_ci=(0.8, 1.2)),
    ]
    (t,) = sweep_tables(run)
    assert t.correction == "holm" and t.family == 3
    assert {r.params["N"]: (r.verdict, r.ci) for r in t.rows} == {
        "3": ("baseline", None), "1": ("faster", (0.4, 0.6)), "2": ("inconclusive", (0.7, 1.1))}


def test_no_sweeps_no_tables() -> None:
    run = make_run({"3": 1.0, "1": 0.5})
    run.suite = {"sweeps": []}
    assert sweep_tables(run) == []


def test_render_says_holm_and_names_the_best() -> None:
    from rich.console import Console

    from pairbench.report.sweep import render_sweeps

    run = make_run({"3": 2.56, "1": 1.0, "2": 1.6, "4": 4.1, "5": 6.55})
    run.sweeps = sweep_tables(run)
    out = io.StringIO()
    render_sweeps(run, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "sweep: loop · time · py" in text
    assert "Holm-corrected across all 5 primary comparisons of the run" in text
    assert "best: N=1 (" in text and "distinguishable from the runner-up N=2" in text
    assert "trend over N: +" in text and "faster ★" in text


def test_sweep_plot_of_a_matrix_draws_a_line_per_build_in_x_order() -> None:
    """Two builds × a numeric setting: one line per build, never one zigzag through both builds."""
    import re

    from pairbench.report.plots import sweep_parameter, sweep_plot

    variants, comparisons = [], []
    change = {("a", "1"): 0.0, ("a", "4"): -10.0, ("a", "2"): -5.0, ("b", "1"): 20.0, ("b", "4"): 0.0, ("b", "2"): 10.0}
    for (build, n), pct in change.items():  # N deliberately out of order
        name = f"{build}/N={n}"
        variants.append(Variant(name, params={"build": build, "N": n}, baseline=(name == "a/N=1")))
        if name != "a/N=1":
            r = 1 + pct / 100
            comparisons.append(Comparison("loop", "time", "a/N=1", name, r, (r - 0.02, r + 0.02), 0.01, 10,
                                          True, True, "slower" if r > 1 else "faster", None))
    run = Run(metadata={}, variants=variants, benchmarks=[Benchmark("loop", "command", (TIME,), {})], samples=[])
    assert sweep_parameter(run) == "N"  # the numeric parameter goes on the x axis
    svg = sweep_plot(run, "loop", "time", comparisons)
    assert svg is not None and "a line per build" in svg
    lines = re.findall(r'<polyline points="([^"]+)"', svg)
    assert len(lines) == 2
    for pts in lines:
        xy = [tuple(map(float, p.split(","))) for p in pts.split()]
        assert len(xy) == 3 and [x for x, _ in xy] == sorted(x for x, _ in xy)
    # build a: 0, -5, -10 (the baseline is its 0% point) falls; build b: +20, +10, 0 falls (SVG y grows downwards)
    a_y, b_y = ([y for _, y in (tuple(map(float, p.split(","))) for p in pts.split())] for pts in lines)
    assert a_y == sorted(a_y) and b_y == sorted(b_y) and b_y[0] < a_y[0]
    assert "build=a" in svg and "build=b" in svg and "build=b, N=2: +10.0%" in svg


def test_sweep_table_shows_the_main_tables_statistic_of_the_same_values() -> None:
    """The sweep table's values are the main table's (the comparisons' figures) and say what they are."""
    from rich.console import Console

    from pairbench.report.sweep import render_sweeps
    from pairbench.report.terminal import render_terminal
    from pairbench.report.format import format_value

    run = make_run({"3": 1.0, "1": 0.8}, blocks=12)
    # Two slow blocks and a second process per block: a geometric mean of block means (the old
    # sweep reduction) reads far above the median of the per-block values.
    extra = []
    for s in run.samples:
        if s.variant == "py/N=3":
            slow = s.block in (0, 1)
            extra.append(replace(s, replicate=1, value=s.value * (9.0 if slow else 1.2)))
    run.samples += extra
    from pairbench.analysis import analyze

    run.comparisons, _ = analyze(run)
    run.sweeps = sweep_tables(run)
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=220, color_system=None), sentences="none", after=[render_sweeps])
    text = out.getvalue()
    main, sweep = text.split("sweep: loop · time · py", 1)
    c = next(c for c in run.comparisons if c.metric == "time" and c.candidate == "py/N=1")
    shown = format_value(c.baseline_value, "s")
    assert shown in main
    baseline_row = next(line for line in sweep.splitlines() if line.strip().startswith("3 "))
    assert shown in baseline_row
    assert format_value(c.candidate_value, "s") in main and format_value(c.candidate_value, "s") in sweep
    assert "value" in sweep.splitlines()[1] and "geometric mean" in sweep


def test_sweep_verdict_is_the_main_tables_for_a_shift_inside_the_band() -> None:
    """A real 0.3% shift with tiny noise: 'same' within ±1% in the main table, so in the sweep table too."""
    from rich.console import Console

    from pairbench.analysis import analyze
    from pairbench.report.sweep import render_sweeps
    from pairbench.report.terminal import render_terminal

    run = make_run({"3": 1.0, "1": 1.003}, blocks=20, noise=0.0005, seed=3)
    run.variants = [v for v in run.variants if v.name != "other"]
    run.samples = [s for s in run.samples if s.variant != "other"]
    run.comparisons, run.notices = analyze(run, threshold=0.01, correction="holm")
    (main,) = [c for c in run.comparisons if c.candidate == "py/N=1" and c.metric == "time"]
    assert main.verdict == "same" and main.significant  # a real but negligible shift
    run.sweeps = sweep_tables(run)
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=220, color_system=None), sentences="none", after=[render_sweeps])
    sweep = out.getvalue().split("sweep: loop · time · py", 1)[1]
    row = next(line for line in sweep.splitlines() if line.strip().startswith("1 "))
    assert row.rstrip().endswith("same")


def test_the_best_point_is_the_one_the_table_shows_best() -> None:
    # N=1 is 0.8x in 6 blocks of 10 and 3x in 4: the lowest median, but its ratio to the baseline
    # (the table's figure) is the worst. The ★ went on it, and the runner-up read 41% below "the best".
    from pairbench.analysis import analyze
    from pairbench.report.sweep import BEST_MARK, sweep_cells, sweep_lines

    run = make_run({"3": 1.0, "1": 1.0, "2": 0.9}, blocks=10, noise=0.01, seed=3)
    run.samples[:] = [replace(s, value=s.value * (0.8 if s.block < 6 else 3.0)) if s.variant == "py/N=1" else s
                      for s in run.samples]
    comps, _ = analyze(run)
    (t,) = sweep_tables(replace(run, comparisons=comps))
    assert t.best == "py/N=2" and t.runner_up == "py/N=3"
    assert t.best_vs_runner_up is not None and t.best_vs_runner_up.ratio is not None
    assert t.best_vs_runner_up.ratio > 1  # the runner-up is worse than the best
    starred = [cells for cells in sweep_cells(t) if cells[-1].endswith(BEST_MARK)]
    assert [cells[0] for cells in starred] == ["2"]
    best_line = next(line for line in sweep_lines(t) if "best:" in line)
    assert best_line.startswith(f"★ best: N=2 ({starred[0][1].split(' ±')[0]})")  # the mark explained


def test_a_trend_over_a_parameter_of_large_values_is_not_read_as_zero() -> None:
    # WORK 1000..80000: +50% over the range is about +0.0005% per unit, which read
    # "0.00% time per unit, 95% CI [0.00%, 0.00%]": a zero-width interval at zero
    from pairbench.report.sweep import sweep_lines

    run = make_run({"1000": 1.0, "20000": 1.3, "80000": 1.5}, blocks=10, noise=0.01, baseline="1000")
    (t,) = sweep_tables(run)
    (line,) = [line for line in sweep_lines(t) if line.startswith("trend over")]
    per_unit, low, high = (float(x.replace("−", "-")) for x in re.findall(r"([+−][\d.]+)%", line)[:3])
    assert per_unit == pytest.approx(t.trends[0].percent_per_unit, rel=0.1) and per_unit > 0, line
    assert high > per_unit > low and high - low > 1e-5, line  # an interval, not [0.00%, 0.00%]


def test_no_sweep_plot_of_changes_from_a_zero_baseline() -> None:
    # sys 0 ns at the baseline: the tables give no ratio, and the plot drew "N=2: 0.0% (same)"
    from pairbench.report.plots import sweep_plot

    variants = [Variant(f"py/N={n}", params={"N": n}, baseline=(n == "1")) for n in ("1", "2", "3")]
    comparisons = [Comparison("loop", "sys", "py/N=1", f"py/N={n}", 1.0, (1.0, 1.0), None, 8, False, True, "same",
                              None, baseline_value=0.0, candidate_value=0.0) for n in ("2", "3")]
    run = Run(metadata={}, variants=variants, samples=[],
              benchmarks=[Benchmark("loop", "command", (TIME, Metric("sys", "s", "lower")), {})])
    assert sweep_plot(run, "loop", "sys", comparisons) is None


def test_the_trend_follows_the_values_the_table_shows() -> None:
    # N=1 reads 0.8x in 6 blocks of 10 and 3x in 4: the lowest median but the highest value in the
    # table; a fit of the medians rose with N while the table's values fell (loop: −0.00014% per unit
    # beside 95.7, 111.1, 100.5 ms)
    from pairbench.analysis import analyze
    from pairbench.report.sweep import sweep_cells

    run = make_run({"1": 1.0, "2": 1.1, "4": 1.2}, blocks=10, noise=0.01, seed=3, baseline="2")
    run.samples[:] = [replace(s, value=s.value * (0.8 if s.block < 6 else 3.0)) if s.variant == "py/N=1" else s
                      for s in run.samples]
    comps, _ = analyze(run)
    (t,) = sweep_tables(replace(run, comparisons=comps))
    ratios = {r.params["N"]: r.ratio for r in t.rows}
    assert ratios["1"] > ratios["2"] > 0 and ratios["4"] > ratios["2"]
    xs, ys = [1.0, 2.0, 4.0], [math.log(ratios[n]) for n in ("1", "2", "4")]
    mx, my = sum(xs) / 3, sum(ys) / 3
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    (fit,) = t.trends
    assert fit.slope == pytest.approx(slope, rel=1e-9)
    assert len(sweep_cells(t)) == 3


def test_the_best_against_the_runner_up_is_the_tables_comparison_when_one_is_the_baseline() -> None:
    # best N=1 was the baseline: the table said N=4 "slower" [1.006, 1.215], the line under it
    # "NOT distinguishable from the runner-up N=4: +12.4%, 95% CI [−3.7%, +17.4%]", a second test
    from pairbench.analysis import analyze

    run = make_run({"3": 1.0, "1": 1.05, "2": 1.3}, blocks=6, noise=0.02, seed=4)
    comps, _ = analyze(run)
    (t,) = sweep_tables(replace(run, comparisons=comps))
    assert t.best == "py/N=3" == t.baseline and t.runner_up == "py/N=1"
    row = t.row("py/N=1").comparison
    assert row is not None and t.best_vs_runner_up == row
    assert t.distinguishable == (row.verdict in ("faster", "slower"))


def test_the_runner_up_being_the_baseline_reads_the_tables_comparison_inverted() -> None:
    from pairbench.analysis import analyze

    run = make_run({"3": 1.0, "1": 0.95, "2": 1.3}, blocks=6, noise=0.02, seed=4)
    comps, _ = analyze(run)
    (t,) = sweep_tables(replace(run, comparisons=comps))
    assert t.best == "py/N=1" and t.runner_up == "py/N=3" == t.baseline
    row, pair = t.row("py/N=1").comparison, t.best_vs_runner_up
    assert row is not None and row.ratio is not None and row.verdict_ci is not None
    assert pair is not None and pair.ratio is not None and pair.verdict_ci is not None
    assert pair.ratio == pytest.approx(1 / row.ratio)
    assert pair.verdict_ci == pytest.approx((1 / row.verdict_ci[1], 1 / row.verdict_ci[0]))
    assert t.distinguishable == row.significant
