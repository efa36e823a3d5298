"""analyze / replicate_values / settled / compare_runs / suite_summary on hand-built runs."""

from __future__ import annotations

import numpy as np
import pytest

from pairbench.analysis import analyze as _analyze
from pairbench.analysis import compare_runs as _compare_runs
from pairbench.analysis import replicate_values, settled, suite_summary
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant
from pairbench.report.wording import reached_label, verdict_sentence
from tests.conftest import assert_consistent


def analyze(*args, **kw):
    """analyze, with every comparison it produces checked for verdict / CI level / p agreement."""
    comps, notices = _analyze(*args, **kw)
    assert_consistent(comps)
    return comps, notices


def compare_runs(*args, **kw):
    comps, notices = _compare_runs(*args, **kw)
    assert_consistent(comps)
    return comps, notices


def make_run(factors: dict[str, float], *, blocks: int = 20, noise: float = 0.01, seed: int = 1,
             benches: tuple[str, ...] = ("fib",), drift: float = 0.0) -> Run:
    rng = np.random.default_rng(seed)
    variants = [Variant(name, baseline=(i == 0)) for i, name in enumerate(factors)]
    benchmarks = [Benchmark(b, "command", (Metric("time", "s"), Metric("allocs", "count", exact=True)))
                  for b in benches]
    samples = []
    for blk in range(blocks):
        machine = 1 + drift * blk
        for b in benches:
            for name, f in factors.items():
                samples.append(Sample(b, name, "time", 0.05, blk, 0, 0, warmup=True))
                for it in range(2):
                    samples.append(Sample(b, name, "time", 0.03 * f * machine * np.exp(rng.normal(0, noise)), blk, 0, it))
                samples.append(Sample(b, name, "allocs", 1000.0 + (20 if f != 1 else 0), blk))
    return Run({}, variants, benchmarks, samples)


def test_replicate_values_mean_for_times_harmonic_for_rates():
    run = Run({}, [Variant("A", baseline=True)],
              [Benchmark("x", "micro", (Metric("t", "s"), Metric("ips", "op/s", "higher")))],
              [Sample("x", "A", "t", 1.0, 0, 0, 0), Sample("x", "A", "t", 3.0, 0, 0, 1),
               Sample("x", "A", "t", 100.0, 0, 0, 2, warmup=True),
               Sample("x", "A", "ips", 1.0, 0, 0, 0), Sample("x", "A", "ips", 3.0, 0, 0, 1),
               Sample("x", "A", "ips", 2.0, 1, 0, 0), Sample("x", "A", "ips", 2.0, 1, 1, 0)])
    assert replicate_values(run, "x", "t") == {"A": {0: 2.0}}
    ips = replicate_values(run, "x", "ips")["A"]
    assert ips[0] == pytest.approx(1.5)  # harmonic mean of 1 and 3 = 1 / mean time per op
    assert ips[1] == pytest.approx(2.0)


def test_analyze_finds_faster_and_same_and_exact():
    run = make_run({"A": 1.0, "B": 0.90, "C": 1.0})
    comps, notices = analyze(run)
    by = {(c.candidate, c.metric): c for c in comps}
    b = by[("B", "time")]
    assert b.verdict == "faster" and b.meaningful and b.n == 20
    assert b.adjusted_ci is not None  # two primary comparisons -> corrected
    assert verdict_sentence(b, Metric("time", "s")).startswith("B is ")
    assert by[("C", "time")].verdict == "same"
    allocs = by[("B", "allocs")]  # an exact count: no test, its change judged against the band
    assert allocs.exact and allocs.verdict in ("faster", "slower") and allocs.meaningful and allocs.delta == 20
    run.comparisons = list(comps)
    assert settled(run)


def test_analyze_insufficient_below_six_blocks_and_notice():
    run = make_run({"A": 1.0, "B": 0.9}, blocks=4)
    comps, notices = analyze(run)
    c = next(c for c in comps if c.metric == "time")
    assert c.verdict == "insufficient" and c.more_runs == 2
    assert any(n.kind == "few-blocks" for n in notices)
    run.comparisons = list(comps)
    assert not settled(run)


def test_analyze_high_noise_notice_and_inconclusive_not_settled():
    run = make_run({"A": 1.0, "B": 0.98}, blocks=10, noise=0.08)
    comps, notices = analyze(run)
    c = next(c for c in comps if c.metric == "time")
    assert c.verdict == "inconclusive" and c.more_runs is not None
    assert any(n.kind == "noise" for n in notices)
    run.comparisons = list(comps)
    assert not settled(run)


def test_looks_widen_the_ci():
    run = make_run({"A": 1.0, "B": 0.97}, blocks=12, noise=0.02)
    one = next(c for c in analyze(run)[0] if c.metric == "time")
    three = next(c for c in analyze(run, looks=3)[0] if c.metric == "time")
    assert three.confidence == pytest.approx(1 - 0.05 / 3)
    assert three.ci[1] - three.ci[0] > one.ci[1] - one.ci[0]


def test_compare_runs_unpaired_with_unmatched_benchmarks():
    base = make_run({"head": 1.0}, benches=("fib", "only_base"), seed=2)
    new = make_run({"head": 0.9}, benches=("fib", "only_new"), seed=3)
    comps, notices = compare_runs(base, new)
    c = next(c for c in comps if c.metric == "time")
    assert not c.paired and c.verdict == "faster"
    assert c.baseline == "head [base]" and c.candidate == "head [new]"
    assert "not interleaved: drift between sessions is not controlled" in c.notes
    assert {n.message for n in notices} == {"benchmark only_base is only in the base run",
                                            "benchmark only_new is only in the new run"}


def test_suite_summary_geomean():
    run = make_run({"A": 1.0, "B": 0.9}, benches=("x", "y"))
    comps, _ = analyze(run)
    [s] = suite_summary(run, comps)
    assert s.candidate == "B" and s.benchmarks == 2
    assert s.ci[0] < 0.9 * 1.01 and s.ci[1] > 0.9 * 0.99
    assert s.ci[0] < s.ratio < s.ci[1]


def test_suite_summary_leaves_out_a_benchmark_compared_by_its_means():
    """A benchmark with a time of 0 (a command shorter than its shell's start-up) is compared by its
    means; the geomean took its positive blocks alone (0.17 beside the table's 0.66), so the suite's
    figure did not follow from the table's ratios. It is left out, and the note names it."""
    from dataclasses import replace

    from pairbench.report.suite_summary import summary_note

    run = make_run({"A": 1.0, "B": 0.9}, benches=("x", "y", "z"))
    run = replace(run, samples=[replace(s, value=0.0) if (s.benchmark, s.metric, s.block) == ("z", "time", 3)
                                and s.variant == "B" else s for s in run.samples])
    comps, _ = analyze(run)
    ratios = {c.benchmark: c.ratio for c in comps if c.metric == "time"}
    [s] = suite_summary(run, comps)
    assert s.benchmarks == 2 and s.left_out == ("z",)
    assert s.ratio == pytest.approx(float(np.sqrt(ratios["x"] * ratios["y"])), rel=1e-3)
    assert "z: left out (a value of 0 or less" in summary_note([s])


def test_suite_summary_of_too_few_blocks_says_the_level_it_reaches():
    """`pytest -r 4` printed the suite's geomean with a `95% CI` from a bootstrap over 4 blocks, far
    narrower than either benchmark's 87.5% interval: under no change it excluded 1 in a third of
    runs. Below the blocks a 95% verdict needs, the interval is the one the blocks reach."""
    from pairbench.report.suite_summary import summary_cells

    excluded = 0
    trials = 60
    for seed in range(trials):
        run = make_run({"A": 1.0, "B": 1.0}, benches=("x", "y"), blocks=4, noise=0.05, seed=seed)
        comps, _ = analyze(run)
        [s] = suite_summary(run, comps)
        assert s.reached_confidence is not None and s.reached_confidence < 0.95
        assert f"at {reached_label(s.reached_confidence)}" in summary_cells([s])[0][2]
        excluded += not (s.ci[0] <= 1.0 <= s.ci[1])
    assert excluded / trials <= (1 - s.reached_confidence) + 0.08


def test_zero_valued_exact_metric_is_compared_exactly_not_dropped():
    run = Run({}, [Variant("A", baseline=True), Variant("B")],
              [Benchmark("h", "http", (Metric("rps", "req/s", "higher"), Metric("errors", "count", exact=True)))],
              [Sample("h", v, m, val, blk) for blk in range(8) for v in ("A", "B")
               for m, val in (("rps", 100.0 + blk + (v == "B")), ("errors", 0.0))])
    comps, notices = analyze(run)
    err = next(c for c in comps if c.metric == "errors")
    assert err.exact and err.verdict == "same" and err.delta == 0 and err.n == 8


def test_adjusted_verdict_notes_do_not_keep_raw_ci_notes():
    # B: about -0.8% with tiny noise: raw 95% CI may call it faster-but-below-δ; whatever the
    # adjusted verdict, the notes must describe it, not the raw one.
    run = make_run({"A": 1.0, "B": 0.99, "C": 0.99, "D": 0.99}, blocks=10, noise=0.004)
    comps, _ = analyze(run)
    for c in comps:
        if c.metric != "time":
            continue
        assert c.adjusted_ci is not None
        if c.verdict == "inconclusive":
            assert not any("may be below" in n for n in c.notes)
        assert sum("adjusted for multiple comparisons" in n for n in c.notes) == 1


def test_holm_adjusted_decision_sets_the_verdict():
    run = make_run({"A": 1.0, "B": 0.99, "C": 1.0, "D": 1.0}, blocks=12, noise=0.02, seed=1)
    raw = {c.candidate: c for c in analyze(run, correction="none")[0] if c.metric == "time"}
    adj = {c.candidate: c for c in analyze(run)[0] if c.metric == "time"}
    assert raw["B"].significant and raw["B"].verdict == "faster" and raw["B"].adjusted_ci is None
    b = adj["B"]
    assert not b.significant and b.verdict == "inconclusive"
    assert b.ci == raw["B"].ci  # the raw CI is kept next to the adjusted one
    assert b.adjusted_ci[0] < b.ci[0] and b.adjusted_ci[1] > b.ci[1]
    assert any("Holm across 3 comparisons" in n and "98.3%" in n for n in b.notes)
    assert "adjusted for multiple comparisons" in verdict_sentence(b, Metric("time", "s"))


def test_bh_correction_and_unknown_correction():
    run = make_run({"A": 1.0, "B": 0.9, "C": 1.0}, blocks=12)
    comps, _ = analyze(run, correction="bh")
    b = next(c for c in comps if c.candidate == "B" and c.metric == "time")
    assert b.verdict == "faster" and any("Benjamini-Hochberg" in n for n in b.notes)
    with pytest.raises(ValueError, match="correction"):
        analyze(run, correction="bonferonni")


def test_compare_runs_baseline_against_each_variant_when_names_differ():
    base = make_run({"main": 1.0}, seed=4)
    new = make_run({"patch1": 0.9, "patch2": 1.0}, seed=5)
    comps, notices = compare_runs(base, new)
    times = {c.candidate: c for c in comps if c.metric == "time"}
    assert set(times) == {"patch1", "patch2"} and all(c.baseline == "main" for c in times.values())
    assert times["patch1"].verdict == "faster"
    assert times["patch2"].verdict in ("same", "inconclusive")
    assert not notices


def test_a_comparison_whose_candidate_failed_for_good_is_not_waited_for():
    # a test the head breaks: its runner gave up on it, so more blocks would measure the base alone
    run = make_run({"A": 1.0, "B": 0.90}, benches=("fib", "broken"))
    run.samples = [s for s in run.samples if not (s.benchmark == "broken" and s.variant == "B")]
    comps, _ = analyze(run)
    run.comparisons = list(comps)
    assert not settled(run)  # without the failure on record, "broken" is only short of blocks
    run.notices.append(Notice("benchmark-failed", "B: ValueError: broken by the head", "", "broken", "B"))
    assert settled(run)  # fib is settled (faster); broken cannot be
    only = make_run({"A": 1.0, "B": 1.0}, benches=("broken",))
    only.samples = [s for s in only.samples if s.variant == "A"]
    only.comparisons = list(analyze(only)[0])
    only.notices.append(Notice("benchmark-failed", "B failed", "", "broken", "B"))
    assert settled(only)


def test_a_failed_benchmark_does_not_hide_an_unsettled_one():
    run = make_run({"A": 1.0, "B": 1.0}, benches=("fib", "broken"), noise=0.2, blocks=8)
    run.comparisons = list(analyze(run)[0])
    run.notices.append(Notice("benchmark-failed", "B failed", "", "broken", "B"))
    assert not settled(run)  # fib's A/A at 20% noise in 8 blocks is not settled
