"""Exact metrics give a direction: beyond the band δ a count is faster/slower, inside it `same`,
and `--fail-on-regression` trips on it (a count is how users make a CI gate deterministic)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from pairbench.analysis import analyze, check_consistent, compare_runs
from pairbench.api import regressions
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.terminal import render_terminal
from pairbench.report.wording import verdict_sentence
from pairbench.stats.verdict import judge_exact
from tests.conftest import assert_consistent

INSTRUCTIONS = Metric("instructions", "count", "lower", exact=True)
ALLOCS = Metric("allocs_per_op", "count", "lower", exact=True)
TIME = Metric("time", "s", "lower")


def _run(metrics: tuple[Metric, ...], values: dict[str, tuple[float, float]], blocks: int = 6) -> Run:
    rng = np.random.default_rng(7)
    samples = []
    for blk in range(blocks):
        for m in metrics:
            if m.name in values:
                a, b = values[m.name]
            else:  # a time beside the count, the same on both sides
                a = b = 0.02
            noise = 1.0 if m.exact else float(np.exp(rng.normal(0, 0.001)))
            samples.append(Sample("w", "A", m.name, a * noise, blk))
            samples.append(Sample("w", "B", m.name, b * noise, blk))
    return Run({"blocks": blocks}, [Variant("A", baseline=True), Variant("B")],
               [Benchmark("w", "command", metrics)], samples)


def _analyzed(run: Run) -> dict[str, object]:
    comps, _ = analyze(run)
    assert_consistent(comps)
    run.comparisons = comps
    return {c.metric: c for c in comps}


@pytest.mark.parametrize(("base", "cand", "direction", "verdict"), [
    (100.0, 139.0, "lower", "slower"),
    (100.0, 61.0, "lower", "faster"),
    (100.0, 139.0, "higher", "faster"),
    (100.0, 100.5, "lower", "same"),
    (100.0, 100.0, "lower", "same"),
    (100.0, 99.0, "lower", "same"),   # on the band's edge: inside it
    (0.0, 0.0, "lower", "same"),
    (0.0, 3.0, "lower", "slower"),    # from none to some: beyond any band
])
def test_the_exact_rule_judges_a_count_by_its_change_against_the_band(base, cand, direction, verdict):
    j = judge_exact(base, cand, 0.01, direction)
    assert j.verdict == verdict
    assert j.meaningful == (verdict != "same")


def test_instructions_39_percent_higher_are_slower_exact_and_meaningful():
    c = _analyzed(_run((INSTRUCTIONS,), {"instructions": (45.6e6, 63.4e6)}))["instructions"]
    assert c.verdict == "slower" and c.meaningful and c.exact
    assert c.delta == pytest.approx(17.8e6) and c.ratio == pytest.approx(63.4 / 45.6)
    assert c.ci is None and c.p_value is None  # still no test
    assert c.baseline_value == pytest.approx(45.6e6) and c.candidate_value == pytest.approx(63.4e6)


def test_a_count_within_the_band_is_the_same():
    c = _analyzed(_run((INSTRUCTIONS,), {"instructions": (1_000_000.0, 1_005_000.0)}))["instructions"]
    assert c.verdict == "same" and not c.meaningful and c.exact


def test_the_gate_trips_on_an_exact_regression_beyond_the_band_only():
    worse = _run((INSTRUCTIONS,), {"instructions": (45.6e6, 63.4e6)})
    _analyzed(worse)
    assert [c.metric for c in regressions(worse)] == ["instructions"]
    within = _run((INSTRUCTIONS,), {"instructions": (45.6e6, 45.7e6)})
    _analyzed(within)
    assert regressions(within) == []


def test_the_table_and_sentence_say_slower_exact_with_the_percent_beside_the_count():
    run = _run((INSTRUCTIONS,), {"instructions": (45.6e6, 63.4e6)})
    c = _analyzed(run)["instructions"]
    sentence = verdict_sentence(c, INSTRUCTIONS)
    assert "+39.0%" in sentence and "slower" in sentence and "exact" in sentence and "no test" not in sentence
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=160, color_system=None, force_terminal=False))
    text = out.getvalue()
    assert "slower (exact)" in text
    assert "+17.80M" in text and "+39.0%" in text


def test_allocation_counts_in_micro_read_higher_exact_and_are_judged_slower():
    run = _run((Metric("time_per_op"), ALLOCS), {"allocs_per_op": (1.0, 2.0)})
    run.benchmarks = [Benchmark("w", "micro", run.benchmarks[0].metrics)]
    c = _analyzed(run)["allocs_per_op"]
    assert c.verdict == "slower" and c.meaningful and c.exact
    out = io.StringIO()
    render_terminal(run, Console(file=out, width=160, color_system=None, force_terminal=False))
    assert "higher (exact)" in out.getvalue()


def test_compare_of_two_saved_runs_gives_exact_counts_a_direction():
    def saved(value: float) -> Run:
        samples = [Sample("w", "head", "instructions", value, blk) for blk in range(6)]
        return Run({}, [Variant("head", baseline=True)], [Benchmark("w", "command", (INSTRUCTIONS,))], samples)

    comps, _ = compare_runs(saved(1e6), saved(1.2e6))
    assert_consistent(comps)
    [c] = comps
    assert c.verdict == "slower" and c.meaningful and c.exact and not c.paired
    [c] = compare_runs(saved(1e6), saved(1e6))[0]
    assert c.verdict == "same"


def test_check_consistent_catches_an_exact_verdict_that_disagrees_with_its_change():
    from dataclasses import replace

    c = _analyzed(_run((INSTRUCTIONS,), {"instructions": (45.6e6, 63.4e6)}))["instructions"]
    assert check_consistent([replace(c, verdict="same", meaningful=False)])
    assert check_consistent([replace(c, verdict="inconclusive")])


def test_the_micro_allocation_lines_show_the_change_its_percent_and_verdict():
    from pairbench.report.micro import render_micro

    run = _run((Metric("time_per_op"), ALLOCS), {"time_per_op": (2e-7, 2e-7), "allocs_per_op": (4.0, 6.0)})
    run.benchmarks = [Benchmark("w", "micro", run.benchmarks[0].metrics)]
    _analyzed(run)
    text = render_micro(run)
    assert "allocs 6 [+2 (+50.0%), higher (exact)]" in text, text
