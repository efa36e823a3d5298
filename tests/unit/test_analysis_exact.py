"""Exactness is declared by the metric, never inferred from values (issue 10 §2): one test per metric kind."""

from __future__ import annotations

import numpy as np

from pairbench.analysis import analyze as _analyze
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.wording import verdict_sentence
from pairbench.analysis import compare_runs as _compare_runs
from pairbench.stats.differences import compare_differences, compare_unpaired_differences
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


def test_zeros_of_a_command_run_without_a_shell_are_not_blamed_on_the_shell():
    """user time at 0 in some blocks of a command run directly: no shell start-up to point at."""
    from pairbench.model import Notice

    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 10) * 0.0004
    b = 0.0074 + rng.normal(0, 0.0004, 10)
    run = _run("command", (Metric("user"),), {"user": (a, b)})
    run.notices.append(Notice("no-shell", "ran directly, without a shell (no shell syntax)", "", "w"))
    c = analyze(run)["user"]
    assert c.method.startswith("paired differences") and c.verdict == "slower"
    assert not any("shell's start-up" in n for n in c.notes)
    run.notices.append(Notice("shell", "ran through `sh -c` (shell syntax): A", "", "w"))  # one variant did
    assert any("-N" in n and "shell's start-up" in n for n in analyze(run)["user"].notes)


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
    assert c.exact and c.verdict == "slower" and c.delta == 1.0 and c.p_value is None


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


def _saved(name: str, metric: Metric, values: np.ndarray) -> Run:
    samples = [Sample("w", name, metric.name, float(v), blk) for blk, v in enumerate(values)]
    return Run({}, [Variant(name, baseline=True)], [Benchmark("w", "http", (metric,))], samples)


def test_saved_runs_with_zero_values_are_compared_not_dropped():
    """compare of two saved runs: the base run's failed requests are all 0, the new run's 5 per round;
    dropping values <= 0 left the base side empty and the comparison 'insufficient'."""
    failed = Metric("failed", "count", "lower")
    base = _saved("head", failed, np.zeros(10))
    new = _saved("head", failed, np.array([5.0, 4, 6, 5, 5, 6, 4, 5, 5, 6]))
    comps, _ = _compare_runs(base, new)
    assert_consistent(comps)
    [c] = comps
    assert c.verdict == "slower" and c.significant and not c.paired
    assert c.method.startswith("unpaired differences")
    assert any("log ratios are undefined" in n for n in c.notes)


def test_saved_runs_with_some_values_below_zero_keep_every_value():
    """user time with the shell's start-up subtracted, a few replicates below 0: every one is used."""
    rng = np.random.default_rng(3)
    user = Metric("user", "s", "lower")
    a, b = rng.normal(0.0003, 0.0004, 12), rng.normal(0.0003, 0.0004, 12)
    comps, _ = _compare_runs(_saved("head", user, a), _saved("head", user, b))
    assert_consistent(comps)
    [c] = comps
    assert c.n == 12 and c.verdict != "insufficient"


def test_unpaired_differences_false_alarms_and_coverage_on_known_truths():
    """The unpaired additive rule at 95%: A/A called different in about 5% of runs; with a true
    difference of 0.3 the CI covers the true ratio in about 95% (2000 runs each, fixed seed)."""
    rng = np.random.default_rng(20261201)
    alarms = covered = judged = 0
    trials = 2000
    for _ in range(trials):
        a, b = rng.normal(0.5, 1.0, 10), rng.normal(0.5, 1.0, 12)
        alarms += compare_unpaired_differences(a, b, threshold=0.0).significant
        c = rng.normal(0.8, 1.0, 12)
        r = compare_unpaired_differences(a, c, threshold=0.0)
        if float(a.mean()) > 0:  # the rule's ratio is 1 + difference / the baseline's mean
            judged += 1
            covered += r.ci[0] <= 1 + 0.3 / float(a.mean()) <= r.ci[1]
    assert 0.035 <= alarms / trials <= 0.065
    assert judged > 1500 and 0.93 <= covered / judged <= 0.97
