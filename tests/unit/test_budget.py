"""--max-time bounds the whole run; -r is its minimum, refused at once when it cannot fit; every
run says how many blocks it measured, in how long, and why it stopped (simulated clock)."""

import json

import pytest

from pairbench.errors import UserError
from pairbench.model import Benchmark, Metric, Run, Variant
from pairbench.runners.fake import FakeRunner
from pairbench.session import RunOptions, execute


def make_run():
    return Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")],
               benchmarks=[Benchmark("x", "command", (Metric("time"),))])


def options(tmp_path, **kw):
    return RunOptions(export_json=str(tmp_path / "run.json"), seed=1, record_history=False, **kw)


def stop_notice(run):
    notes = [n for n in run.notices if n.kind in ("stop", "budget", "adaptive")]
    assert len(notes) == 1, notes
    return notes[0]


def test_a_command_longer_than_the_budget_is_refused_after_its_first_run(tmp_path):
    runner = FakeRunner(step_seconds=12.0)
    with pytest.raises(UserError, match=r"--max-time 10 s cannot fit the minimum of 10 blocks \(-r\).*"
                                        r"need about 2\d\d s \(12 s spent\); raise --max-time to \d+ or lower -r"):
        execute(make_run(), {"command": runner}, options(tmp_path, max_time=10.0), clock=runner.clock)
    assert runner.steps == 1 and runner.now == 12.0  # it ran 50 s before
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["status"] == "failed" and len(doc["samples"]) == 1


@pytest.mark.parametrize("step, block, steps_run", [
    (0.25, "0.5 s", 1),  # -r 10 needs ~5.5 s: plainly more than the budget, refused after one run
    (0.15, "0.3 s", 4),  # ~3.3 s: within twice the budget, so refused once a block is measured
])
def test_a_minimum_that_does_not_fit_is_refused_before_the_budget_is_spent(tmp_path, step, block, steps_run):
    # it used to stop after 2 blocks, against --help's "-r is the minimum with --max-time"
    runner = FakeRunner(step_seconds=step)
    with pytest.raises(UserError, match=rf"--max-time 2 s cannot fit the minimum of 10 blocks.*about {block}"):
        execute(make_run(), {"command": runner}, options(tmp_path, runs=10, max_time=2.0), clock=runner.clock)
    assert runner.steps == steps_run


def test_a_minimum_that_fits_is_measured_in_full(tmp_path):
    runner = FakeRunner(factors={"b": 1.004}, noise=0.05, step_seconds=0.05)
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=10, max_time=2.0), clock=runner.clock)
    assert run.metadata["blocks"] >= 10


@pytest.mark.parametrize("seconds", [{"a": 0.3, "b": 0.5}, {"a": 1.9, "b": 0.1}, {"a": 0.01, "b": 0.02}])
def test_the_budget_bounds_the_whole_run(tmp_path, seconds):
    runner = FakeRunner(factors={"b": 1.002}, noise=0.05, step_seconds=seconds)  # never settles
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=6, max_time=30.0, threshold=0.0),
                  clock=runner.clock)
    assert run.metadata["elapsed_s"] <= 30.0
    block = seconds["a"] + seconds["b"]
    assert run.metadata["blocks"] >= min(int(30.0 / block) - 2, 5000) - 1  # and spends it
    note = stop_notice(run)
    assert note.message.startswith(f"measured {run.metadata['blocks']} blocks in ")
    assert "of --max-time 30 s" in note.message


def test_a_fixed_run_says_how_long_it_took(tmp_path):
    runner = FakeRunner(step_seconds=0.5)
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=5), clock=runner.clock)
    note = stop_notice(run)
    assert (note.kind, note.message) == ("stop", "measured 5 blocks in 6 s: the 5 asked for (-r)")
    assert run.metadata["stop"] == "fixed" and run.metadata["elapsed_s"] == 6.0


def test_a_settled_run_and_a_max_runs_run_say_why_they_stopped(tmp_path):
    runner = FakeRunner(factors={"b": 1.3}, noise=0.01, step_seconds=0.5)
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=6, max_time=1000.0), clock=runner.clock)
    note = stop_notice(run)
    assert note.kind == "adaptive" and "stopped early at a planned look; settled: time (slower)" in note.message
    assert f"measured {run.metadata['blocks']} blocks in " in note.message and "of --max-time 1000 s" in note.message

    runner = FakeRunner(factors={"b": 1.002}, noise=0.05, step_seconds=0.5)
    run = execute(make_run(), {"command": runner},
                  options(tmp_path, runs=6, max_time=1000.0, max_runs=8, threshold=0.0), clock=runner.clock)
    note = stop_notice(run)
    assert run.metadata["blocks"] == 8 and note.kind == "budget"
    assert note.message.startswith("measured 8 blocks in 9 s of --max-time 1000 s: the most planned (8, from --max-runs "
                                   "or the budget); not settled: time (")


def test_blocks_that_grow_slower_stop_before_passing_the_budget(tmp_path):
    class Slowing(FakeRunner):
        def measure(self, benchmark, variant, block, warmup, progress):
            self.step_seconds = 0.2 * 1.15 ** max(block, 0)
            return super().measure(benchmark, variant, block, warmup, progress)

    runner = Slowing(factors={"b": 1.002}, noise=0.05)
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=6, max_time=30.0, threshold=0.0),
                  clock=runner.clock)
    assert run.metadata["elapsed_s"] <= 30.0
    assert stop_notice(run).kind == "budget" and "would not fit" in stop_notice(run).message


def test_the_time_an_interim_look_takes_counts_against_the_budget(tmp_path, monkeypatch):
    import pairbench.session as session

    runner = FakeRunner(factors={"b": 1.002}, noise=0.05, step_seconds=0.25)
    real = session.finish_analysis

    def slow_analysis(*args, **kwargs):
        runner.now += 3.0  # an interim analysis that takes as long as six blocks
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "finish_analysis", slow_analysis)
    # looks at 6, 10, 15 ... blocks of 0.5 s: the look at 15 starts at 14 s and would end at 17 s
    run = execute(make_run(), {"command": runner}, options(tmp_path, runs=6, max_time=16.0, threshold=0.0),
                  clock=runner.clock)
    assert run.metadata["elapsed_s"] <= 16.0
