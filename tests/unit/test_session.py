"""The session with the fake runner: order, run file, adaptive stopping, failures, Ctrl-C."""

import json
from itertools import count

import pytest

from pairbench.errors import BenchmarkFailed, Interrupted, UserError
from pairbench.model import Benchmark, Metric, Run, Variant
from pairbench.runners.fake import FakeRunner
from pairbench.session import RunOptions, execute


def make_run(n_variants=2, n_benchmarks=1):
    variants = [Variant(f"v{i}", baseline=i == 0) for i in range(n_variants)]
    benchmarks = [Benchmark(f"b{j}", "command", (Metric("time"),)) for j in range(n_benchmarks)]
    return Run(metadata={}, variants=variants, benchmarks=benchmarks)


def options(tmp_path, **kw):
    kw.setdefault("seed", 1)
    kw.setdefault("record_history", False)
    return RunOptions(export_json=str(tmp_path / "run.json"), **kw)


def test_measures_warmups_and_blocks_and_writes_a_complete_run_file(tmp_path):
    run = make_run(3, 2)
    runner = FakeRunner(factors={"v1": 1.2, "v2": 1.0}, noise=0.01)
    execute(run, {"command": runner}, options(tmp_path, runs=8, warmup=2))
    assert runner.closed == 1
    assert len([s for s in run.samples if s.warmup]) == 2 * 3 * 2
    assert len([s for s in run.samples if not s.warmup]) == 8 * 3 * 2
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["status"] == "complete"
    assert len(doc["samples"]) == len(run.samples)
    verdicts = {(c.benchmark, c.candidate): c.verdict for c in run.comparisons}
    assert verdicts[("b0", "v1")] == verdicts[("b1", "v1")] == "slower"
    assert verdicts[("b0", "v2")] in ("same", "inconclusive")
    slower = next(c for c in run.comparisons if c.candidate == "v1")
    assert slower.ci[0] < 1.2 < slower.ci[1]


def test_drift_during_the_run_does_not_bias_the_paired_ratio(tmp_path):
    run = make_run(2)
    # +0.5% per step: over 40 blocks the machine slows by about 50%, the variants are identical
    runner = FakeRunner(noise=0.005, drift=0.005, seed=3)
    execute(run, {"command": runner}, options(tmp_path, runs=40, warmup=0, threshold=2.0))
    c = run.comparisons[0]
    assert c.verdict == "same", c.sentence
    assert 0.98 < c.ratio < 1.02


def test_ctrl_c_keeps_samples_and_closes_runners(tmp_path):
    run = make_run(2)
    runner = FakeRunner(fail_at=9, fail_with=KeyboardInterrupt)
    with pytest.raises(Interrupted, match=r"interrupted by SIGINT after 4 complete blocks; 9 samples kept"):
        execute(run, {"command": runner}, options(tmp_path, runs=10, warmup=0))
    assert runner.closed == 1
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["status"] == "interrupted"
    assert len(doc["samples"]) == 9


def test_failed_benchmark_keeps_samples(tmp_path):
    run = make_run(2)
    runner = FakeRunner(fail_at=5, fail_with=lambda: BenchmarkFailed("variant v1 exited with code 2"))
    with pytest.raises(BenchmarkFailed, match=r"exited with code 2 \(5 samples kept in"):
        execute(run, {"command": runner}, options(tmp_path, runs=10, warmup=0))
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "failed"


@pytest.mark.parametrize("error", [lambda: UserError("variant 'v1': working directory 'x' does not exist"),
                                   lambda: RuntimeError("a bug")])
def test_any_other_error_mid_run_still_writes_every_sample(tmp_path, error):
    """The file is written at most twice a second while blocks run; an error must not lose the rest."""
    run = make_run(2)
    runner = FakeRunner(fail_at=13, fail_with=error)
    with pytest.raises((UserError, RuntimeError)):
        execute(run, {"command": runner}, options(tmp_path, runs=20, warmup=0))
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["status"] == "failed" and len(doc["samples"]) == 13


def test_adaptive_stopping_ends_early_when_the_answer_is_clear(tmp_path):
    run = make_run(2)
    runner = FakeRunner(factors={"v1": 1.3}, noise=0.01)
    ticks = count()
    execute(run, {"command": runner}, options(tmp_path, runs=6, warmup=0, max_time=1000.0),
            clock=lambda: float(next(ticks)))
    assert run.metadata["blocks"] < 20
    assert run.comparisons[0].verdict == "slower"
    assert any(n.kind == "adaptive" for n in run.notices)
    assert run.metadata["adaptive"]["look_confidence"] > 0.95


def test_adaptive_stopping_respects_the_time_budget(tmp_path):
    run = make_run(2)
    runner = FakeRunner(factors={"v1": 1.004}, noise=0.05, step_seconds=1.0)  # hard to settle
    execute(run, {"command": runner}, options(tmp_path, runs=6, warmup=0, max_time=20.0), clock=runner.clock)
    # two simulated seconds per block: the budget affords 10 blocks, and the run never passes it
    assert 6 <= run.metadata["blocks"] <= 10
    assert run.metadata["elapsed_s"] <= 20.0
    assert max(run.metadata["adaptive"]["looks"]) <= 10
    assert {"budget", "adaptive"} & {n.kind for n in run.notices}


@pytest.mark.parametrize("kw, fragment", [({"runs": 0}, "--runs"), ({"max_runs": 3, "runs": 5}, "--max-runs"),
                                           ({"threshold": -1}, "--threshold"), ({"correction": "x"}, "--correction")])
def test_bad_options_are_user_errors(kw, fragment):
    with pytest.raises(UserError, match=fragment):
        RunOptions(**kw)


def test_adaptive_stopping_spends_the_budget_while_a_comparison_is_open(tmp_path):
    # identical variants and a ±0 band: the comparison can only become "faster"/"slower" by chance,
    # so the session must keep measuring until the budget ends, not give up at an early look
    run = make_run(2)
    runner = FakeRunner(noise=0.02, seed=5, step_seconds=1.5)
    execute(run, {"command": runner}, options(tmp_path, runs=6, warmup=0, max_time=60.0, threshold=0.0),
            clock=runner.clock)
    # three simulated seconds per block: the budget affords 20 blocks
    assert run.metadata["blocks"] >= 15
    kinds = {n.kind for n in run.notices}
    assert "budget" in kinds or run.metadata["blocks"] == max(run.metadata["adaptive"]["looks"])
    assert "adaptive" not in kinds


def test_adaptive_stopping_waits_for_the_metrics_the_user_asked_for(tmp_path):
    # time is settled at once (30% slower); `work` (a declared metric) is identical and noisy with a
    # ±0 band, so it stays open and must keep the session going until the budget ends
    from pairbench.runners.base import Replicate
    from pairbench.model import Sample

    class TwoMetrics(FakeRunner):
        def measure(self, benchmark, variant, block, warmup, progress):
            rep = super().measure(benchmark, variant, block, warmup, progress)
            work = 0.05 * (1.0 + self._rng.gauss(0.0, 0.05))
            rep.samples.append(Sample(benchmark.name, variant.name, "work", work, block, warmup=warmup))
            return rep

    run = Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")],
              benchmarks=[Benchmark("x", "command", (Metric("time"), Metric("work")))])
    runner = TwoMetrics(factors={"b": 1.3}, noise=0.01, step_seconds=1.5)
    execute(run, {"command": runner}, options(tmp_path, runs=6, warmup=0, max_time=60.0, threshold=0.0),
            clock=runner.clock)
    assert run.metadata["blocks"] >= 15
    assert "adaptive" not in {n.kind for n in run.notices}


class _WithUser(FakeRunner):
    """Adds a noisy `user` CPU time, identical across variants, that cannot settle."""

    def measure(self, benchmark, variant, block, warmup, progress):
        from pairbench.model import Sample

        rep = super().measure(benchmark, variant, block, warmup, progress)
        user = 0.01 * (1.0 + self._rng.gauss(0.0, 0.2))
        rep.samples.append(Sample(benchmark.name, variant.name, "user", user, block, warmup=warmup))
        return rep


def test_stop_note_says_which_comparisons_settled_not_every_one(tmp_path):
    run = Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")],
              benchmarks=[Benchmark("x", "command", (Metric("time"), Metric("user")))])
    ticks = count()
    execute(run, {"command": _WithUser(factors={"b": 1.3}, noise=0.01)},
            options(tmp_path, runs=6, warmup=0, max_time=1000.0), clock=lambda: float(next(ticks)))
    [note] = [n for n in run.notices if n.kind == "adaptive"]
    user = next(c for c in run.comparisons if c.metric == "user")
    assert user.verdict == "inconclusive"
    assert "every comparison" not in note.message
    assert "settled: time (slower)" in note.message
    assert "not settled and not waited for: user (inconclusive)" in note.message


def test_a_run_that_reaches_its_last_planned_look_says_so(tmp_path):
    # identical variants and a ±0 band cannot settle; the budget is ample, so the last look ends it
    run = make_run(2)
    ticks = count()
    execute(run, {"command": FakeRunner(noise=0.02, seed=5)},
            options(tmp_path, runs=6, max_runs=12, warmup=0, max_time=1e6, threshold=0.0),
            clock=lambda: float(next(ticks)))
    assert run.metadata["blocks"] == 12 == max(run.metadata["adaptive"]["looks"])
    [note] = [n for n in run.notices if "the most planned" in n.message]
    assert note.message.startswith("measured 12 blocks")
    assert "not settled: time (inconclusive)" in note.message


class _BatchedRunner(FakeRunner):
    """A block's first step of a variant takes 10 s (its process measures every benchmark), the others none."""

    batched = True

    def __init__(self, **kw):
        super().__init__(**kw)
        self.now = 0.0
        self._seen = set()

    def measure(self, benchmark, variant, block, warmup, progress):
        if (variant.name, block) not in self._seen:
            self._seen.add((variant.name, block))
            self.now += 10.0
        return super().measure(benchmark, variant, block, warmup, progress)


def test_max_time_sizes_a_batched_runner_by_whole_blocks_not_by_its_first_step(tmp_path):
    # 5 benchmarks x 2 variants: a block costs 20 s, 3 blocks 60 s, within 100 s; taken as one step
    # of ten, the first step would make a block look like 100 s and the minimum like 300 s
    run = make_run(2, 5)
    runner = _BatchedRunner(factors={"v1": 1.3}, noise=0.01)
    execute(run, {"command": runner}, options(tmp_path, runs=3, warmup=0, max_time=100.0), clock=lambda: runner.now)
    assert run.metadata["blocks"] >= 3


class _CheaperLaterRunner(FakeRunner):
    """A runner whose blocks get cheaper after its pilot (micro's samples per process, planned
    after 3 blocks): 3 s a step in blocks 0-2, 1 s from block 3 on."""

    def measure(self, benchmark, variant, block, warmup, progress):
        self.step_seconds = 3.0 if block < 3 else 1.0
        return super().measure(benchmark, variant, block, warmup, progress)


def test_blocks_that_get_cheaper_before_the_first_look_are_planned_again(tmp_path):
    # identical variants and a ±0 band: nothing settles, the run should use its 60 s bound; planned
    # on the pilot's 6 s blocks it would stop after about 10 of them with a third of it unspent
    run = make_run(2)
    runner = _CheaperLaterRunner(noise=0.02, seed=5)
    execute(run, {"command": runner}, options(tmp_path, runs=10, warmup=0, default_bound=60.0, threshold=0.0),
            clock=runner.clock)
    assert runner.now >= 0.9 * 60.0
    assert max(run.metadata["adaptive"]["looks"]) >= 20  # (60 - 18) / 2 + 3 = 24 blocks afford it


class _SeriesRunner(FakeRunner):
    """The fake runner with a micro process's batch series on every replicate."""

    def measure(self, benchmark, variant, block, warmup, progress):
        from pairbench.model import ProcessSeries

        rep = super().measure(benchmark, variant, block, warmup, progress)
        rep.series = ProcessSeries(benchmark.name, variant.name, block, 0, "time", 8, tuple([0.1] * 16))
        return rep


def test_ctrl_c_keeps_the_batch_series_of_the_measured_processes(tmp_path):
    from pairbench.store.runfile import load_run

    run = make_run(2)
    runner = _SeriesRunner(fail_at=5)
    with pytest.raises(Interrupted):
        execute(run, {"command": runner}, options(tmp_path, runs=4, warmup=0))
    back = load_run(tmp_path / "run.json")
    assert [(x.variant, x.block) for x in back.series] == [(s.variant, s.block) for s in back.samples]
    assert len(back.series) == 5
