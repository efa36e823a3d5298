"""Exactness is declared by the metric, never inferred from values (issue 10 §2): one test per metric kind."""

from __future__ import annotations

import numpy as np

from pairbench.analysis import analyze as _analyze
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.wording import verdict_sentence
from pairbench.stats.differences import compare_differences
from tests.conftest import assert_consistent


def analyze(run: Run):
    comps, notices = _analyze(run)
    assert_consistent(comps)
    return {c.metric: c for c in comps}


def _run(kind: str, metrics: tuple[Metric, ...], values: dict[str, tuple[np.ndarray, np.ndarray]]) -> Run:
    samples = []
    for name, (a, b) in values.items():
        for blk in range(len(a)):
            samples.append(Sample("w", "A", name, float(a[blk]), blk))
            samples.append(Sample("w", "B", name, float(b[blk]), blk))
    return Run({}, [Variant("A", baseline=True), Variant("B")], [Benchmark("w", kind, metrics)], samples)


def test_command_time_below_the_shell_start_up_is_tested_and_called_slower():
    """`true` vs `sleep 0.005` with the shell's start-up subtracted: A reads about 0, some blocks below."""
    rng = np.random.default_rng(1)
    a = rng.normal(0.0002, 0.0004, 10)  # `true`: start-up subtracted, a few blocks <= 0
    b = 0.0074 + rng.normal(0, 0.0004, 10)
    assert (a <= 0).any()
    c = analyze(_run("command", (Metric("time"),), {"time": (a, b)}))["time"]
    assert c.verdict == "slower" and c.meaningful and c.significant
    assert c.p_value is not None and c.p_value < 0.01 and c.ci is not None
    assert c.method.startswith("paired differences")
    assert any("-N" in n and "shell's start-up" in n for n in c.notes)
    sentence = verdict_sentence(c, Metric("time"))
    assert "slower" in sentence and "exact" not in sentence


def test_user_and_sys_with_clock_quantized_zeros_are_tested():
    """CPU times tick in 1 ms steps and read 0 in many blocks: still a test, not an exact delta."""
    rng = np.random.default_rng(2)
    ticks = lambda: rng.integers(0, 3, 40) * 0.001  # noqa: E731
    run = _run("command", (Metric("time"), Metric("user"), Metric("sys")),
               {"time": (0.03 + rng.normal(0, 1e-4, 40), 0.03 + rng.normal(0, 1e-4, 40)),
                "user": (ticks(), ticks()), "sys": (ticks(), ticks())})
    comps = analyze(run)
    for name in ("user", "sys"):
        c = comps[name]
        assert c.verdict not in ("exact", "faster", "slower")  # identical distributions: no claim
        assert c.p_value is not None and c.ci is not None and c.delta is None


def test_declared_exact_count_is_an_exact_delta():
    allocs = Metric("allocs_per_op", "count", "lower", exact=True)
    run = _run("micro", (Metric("time_per_op"), allocs),
               {"time_per_op": (np.full(8, 2e-7), np.full(8, 2.1e-7)), "allocs_per_op": (np.full(8, 1.0), np.full(8, 2.0))})
    c = analyze(run)["allocs_per_op"]
    assert c.verdict == "exact" and c.delta == 1.0 and c.p_value is None


def test_undeclared_count_with_zeros_is_tested_on_differences():
    """An error count is not exact unless declared: all zeros on both sides is 'same', with a test."""
    run = _run("http", (Metric("rps", "req/s", "higher"), Metric("errors", "count")),
               {"rps": (100 + np.arange(8.0), 101 + np.arange(8.0)), "errors": (np.zeros(8), np.zeros(8))})
    c = analyze(run)["errors"]
    assert c.verdict == "same" and c.p_value == 1.0 and c.ci == (1.0, 1.0)


def test_memory_is_tested_on_the_log_scale():
    rng = np.random.default_rng(3)
    run = _run("command", (Metric("time"), Metric("rss", "B")),
               {"time": (0.03 + rng.normal(0, 1e-4, 12), 0.03 + rng.normal(0, 1e-4, 12)),
                "rss": (5e7 * np.exp(rng.normal(0, 0.01, 12)), 6e7 * np.exp(rng.normal(0, 0.01, 12)))})
    c = analyze(run)["rss"]
    assert c.verdict == "slower" and c.meaningful and c.method.startswith("paired")
    assert c.ratio is not None and abs(c.ratio - 1.2) < 0.02


def test_rate_with_a_zero_block_is_tested_in_its_direction():
    """A throughput that read 0 in one block (server not up): higher is better, tested on differences."""
    a = np.array([0.0, 100, 101, 99, 100, 102, 98, 100, 101, 99])
    b = a * 1.5
    c = analyze(_run("http", (Metric("rps", "req/s", "higher"),), {"rps": (a, b)}))["rps"]
    assert c.verdict == "faster" and c.meaningful and c.ratio is not None and 1.4 < c.ratio < 1.65


def test_differences_p_value_inverts_its_interval():
    rng = np.random.default_rng(4)
    for n in (6, 9, 15, 30):
        for shift in (0.0, 0.0003, 0.001):
            b = rng.normal(0, 0.001, n)
            r = compare_differences(b, b + shift + rng.normal(0, 0.001, n))
            assert r.significant == (r.p_value <= 0.05)
            assert r.achieved_confidence >= r.confidence
