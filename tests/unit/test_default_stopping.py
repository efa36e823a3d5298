"""Adaptive stopping by default: with none of -r, --max-time, -M, `cmd` measures until settled.

The options come from `cmd`'s own parser (commands/common.py `options_from_args`), the blocks from a
fake runner on a simulated clock, so that what a user gets from `pairbench cmd A B` is tested
without waiting for processes.
"""

from __future__ import annotations

import numpy as np

from pairbench.cli import subcommand_parser
from pairbench.commands.common import options_from_args
from pairbench.model import Benchmark, Metric, Run, Variant
from pairbench.run_settings import DEFAULT_BOUND_S
from pairbench.runners.fake import FakeRunner
from pairbench.session import execute
from pairbench.stats.compare import compare_paired
from pairbench.stats.sequential import look_confidence, plan_looks


def _options(tmp_path, *flags):
    args = subcommand_parser("cmd").parse_args([*flags, "--export-json", str(tmp_path / "run.json"), "--no-history",
                                                "-w", "0", "a", "b"])
    return options_from_args(args)


def _run():
    return Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")],
               benchmarks=[Benchmark("bench", "command", (Metric("time", "s", "lower"),))])


def _measure(tmp_path, *flags, seed=3):
    run = _run()
    # a 5% slowdown in 6% noise (a busy machine): 10 blocks are rarely enough to settle it
    runner = FakeRunner(factors={"b": 1.05}, noise=0.06, seed=seed, step_seconds=0.05)
    execute(run, {"command": runner}, _options(tmp_path, *flags), clock=runner.clock)
    return run


def test_no_flags_means_adaptive_within_the_default_bound(tmp_path):
    options = _options(tmp_path)
    assert options.default_bound == DEFAULT_BOUND_S and options.max_time is None and options.runs == 10


def test_any_of_r_max_time_or_max_runs_turns_the_default_bound_off(tmp_path):
    assert _options(tmp_path, "-r", "10").default_bound is None
    assert _options(tmp_path, "--max-time", "5").default_bound is None
    assert _options(tmp_path, "-M", "40").default_bound is None


def test_no_flags_settles_a_5_percent_slowdown_that_10_fixed_blocks_leave_open(tmp_path):
    fixed = [_measure(tmp_path, "-r", "10", seed=s) for s in range(5)]
    assert all(r.metadata["blocks"] == 10 for r in fixed)  # -r alone: exactly N, no more
    assert any(r.comparisons[0].verdict == "inconclusive" for r in fixed)
    default = [_measure(tmp_path, seed=s) for s in range(5)]
    assert all(r.comparisons[0].verdict == "slower" for r in default)
    assert all(r.metadata["elapsed_s"] <= DEFAULT_BOUND_S for r in default)
    assert any(r.metadata["blocks"] > 10 for r in default)


def test_an_unsettled_run_stops_at_the_default_bound_and_says_so(tmp_path):
    run = _run()
    runner = FakeRunner(factors={"b": 1.002}, noise=0.08, seed=1, step_seconds=0.5)
    execute(run, {"command": runner}, _options(tmp_path), clock=runner.clock)
    assert run.metadata["elapsed_s"] <= DEFAULT_BOUND_S + 1.0
    stop = next(n.message for n in run.notices if n.kind in ("budget", "adaptive"))
    assert f"default bound {DEFAULT_BOUND_S:g} s" in stop


def test_the_default_bound_never_refuses_the_minimum(tmp_path):
    """Unlike --max-time, a slow command still gets its -r minimum (10 blocks beyond the bound)."""
    run = _run()
    runner = FakeRunner(factors={"b": 1.3}, noise=0.01, seed=1, step_seconds=DEFAULT_BOUND_S / 10)
    execute(run, {"command": runner}, _options(tmp_path), clock=runner.clock)
    assert run.metadata["blocks"] == 10


def test_false_alarm_rate_at_the_default_bounds_looks():
    """A/A runs stopped at the first settled look of the plan the default bound makes for a fast
    command (the most blocks capped, so the most looks): the error rate stays at α."""
    looks = plan_looks(10, 5000)
    assert len(looks) == 5
    level = look_confidence(0.95, len(looks))
    rng = np.random.default_rng(27)
    sims, alarms, early = 300, 0, 0
    for _ in range(sims):
        n_max = looks[2]  # past the third look every run here has settled: keep the arrays small
        block = np.exp(rng.normal(0.0, 0.05, n_max))
        b = block * np.exp(rng.normal(0.0, 0.01, n_max))
        c = block * np.exp(rng.normal(0.0, 0.01, n_max))
        for n in looks[:3]:
            r = compare_paired(b[:n], c[:n], confidence=level, threshold=0.01)
            if r.verdict not in ("inconclusive", "insufficient"):
                break
        early += n < looks[2]
        alarms += r.significant
    assert alarms / sims <= 0.05 + 2 * (0.05 * 0.95 / sims) ** 0.5
    assert early / sims > 0.3


class _SlowingRunner(FakeRunner):
    """A fake whose measurements take ten times longer after the first blocks (a machine that got busy)."""

    def measure(self, benchmark, variant, block, warmup, progress):
        if self.steps == 20:
            self.step_seconds = 10 * self.step_seconds
        return super().measure(benchmark, variant, block, warmup, progress)


def test_blocks_that_slow_down_still_end_within_the_default_bound(tmp_path):
    run = _run()
    runner = _SlowingRunner(factors={"b": 1.002}, noise=0.08, seed=1, step_seconds=0.02)
    execute(run, {"command": runner}, _options(tmp_path), clock=runner.clock)
    assert run.metadata["blocks"] >= 10
    assert run.metadata["elapsed_s"] <= DEFAULT_BOUND_S


class _OneOffFirstBlockRunner(FakeRunner):
    """A fake whose first block costs three times the others (micro's allocation pass runs in it)."""

    def measure(self, benchmark, variant, block, warmup, progress):
        base = self.step_seconds
        if block == 0:
            self.step_seconds = 3 * base
        try:
            return super().measure(benchmark, variant, block, warmup, progress)
        finally:
            self.step_seconds = base


def test_a_first_block_with_one_off_costs_does_not_shrink_the_plan(tmp_path):
    """The blocks the default bound affords are planned on a block without the first one's one-off
    work: an unsettled run uses most of the bound, not the third the first block's cost suggests."""
    run = _run()
    runner = _OneOffFirstBlockRunner(factors={"b": 1.002}, noise=0.08, seed=1, step_seconds=0.5)
    execute(run, {"command": runner}, _options(tmp_path), clock=runner.clock)
    assert 0.8 * DEFAULT_BOUND_S <= run.metadata["elapsed_s"] <= DEFAULT_BOUND_S
    assert run.metadata["adaptive"]["looks"][-1] >= run.metadata["blocks"]
