"""MicroRunner with a scripted worker: no processes are started."""

from __future__ import annotations

import json
import subprocess
from typing import Any, Callable, Mapping

import pytest

from pairbench.errors import UserError
from pairbench.model import Benchmark, Variant
from pairbench.runners.micro import MARKER, MicroRunner, micro_metrics, parse_answer, unsettled
from pairbench.runners.micro.runner import OVERHEAD_FLOOR


def answer(**data: Any) -> str:
    data.setdefault("ok", True)
    data.setdefault("implementation", "CPython")
    data.setdefault("version", "3.11.7")
    return "noise printed by the benchmark\n" + MARKER + json.dumps(data) + "\n"


class FakeWorkers:
    """Scripted spawn: `script(argv, request) -> stdout text` or raises; records every request."""

    def __init__(self, script: Callable[[list[str], dict[str, Any]], str]) -> None:
        self.script = script
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def __call__(self, argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
                 timeout: float) -> tuple[int, str, str]:
        request = json.loads(stdin) if stdin else {}
        self.calls.append((argv, request))
        return 0, self.script(argv, request), ""


def python_bench(name: str = "dict_set", **options: Any) -> Benchmark:
    return Benchmark(name, "micro", micro_metrics("python"),
                     {"language": "python", "setup": "d = {}", "stmt": "d['a'] = 1", **options})


A = Variant("a", command="python-a", baseline=True)
B = Variant("b", command="python-b")


def timing_answer(request: dict[str, Any], per_loop: float = 1e-6, overhead: float = 1e-8,
                  alloc: dict[str, Any] | None = None) -> str:
    loops = request["loops"]
    return answer(loops=loops, warmup=[per_loop * loops * 1.5] * request["warmup"],
                  samples=[per_loop * loops] * request["samples"], overhead=overhead,
                  alloc=alloc if alloc is not None else {"mem_blocks_per_op": 2.0, "mem_bytes_per_op": 152.0,
                                                         "peak_bytes_per_op": 144, "gc_per_1k_ops": 1.4})


def standard_script(argv: list[str], request: dict[str, Any]) -> str:
    if request["mode"] == "probe":
        return answer()
    if request["mode"] == "calibrate":
        return answer(loops=1000 if argv[0] == "python-a" else 7, time=0.1)
    return timing_answer(request)


def test_parse_answer_takes_last_marker_line_and_ignores_benchmark_output() -> None:
    out = MARKER + '{"ok": false, "error": "old"}\nprint\n' + MARKER + '{"ok": true, "x": 1}\n'
    result = parse_answer(0, out, "")
    assert result.ok and result.data["x"] == 1


def test_parse_answer_without_marker_names_exit_code_and_stderr() -> None:
    result = parse_answer(139, "", "Segmentation fault\n")
    assert not result.ok
    assert "code 139" in result.error and "Segmentation fault" in result.error


def test_unsettled_needs_a_monotonic_fall_beyond_ten_percent() -> None:
    assert unsettled([1.0, 0.95, 0.9, 0.85])
    assert not unsettled([1.0, 0.99, 0.98, 0.97])  # falls, but by 3%: noise or settled
    assert not unsettled([1.0, 0.8, 0.9, 0.7])  # not monotonic
    assert not unsettled([1.0, 0.5])  # too few samples to call a trend


def test_prepare_calibrates_once_on_the_baseline_and_every_variant_uses_that_count() -> None:
    workers = FakeWorkers(standard_script)
    runner = MicroRunner(spawn=workers, seed=1)
    bench = python_bench()
    assert runner.prepare(bench, [B, A]) == []
    calibrations = [(argv[0], r) for argv, r in workers.calls if r["mode"] == "calibrate"]
    assert [c[0] for c in calibrations] == ["python-a"]  # the baseline, even when listed second
    runner.measure(bench, A, 0, False, lambda _m: None)
    runner.measure(bench, B, 0, False, lambda _m: None)
    assert [r["loops"] for _, r in workers.calls if r["mode"] == "time"] == [1000, 1000]
    runner.prepare(bench, [A, B])  # idempotent: no second calibration
    assert sum(1 for _, r in workers.calls if r["mode"] == "calibrate") == 1


def test_measure_subtracts_loop_overhead_and_flags_warmup_samples() -> None:
    workers = FakeWorkers(standard_script)
    runner = MicroRunner(spawn=workers, samples=3, warmup=2)
    bench = python_bench()
    runner.prepare(bench, [A, B])
    rep = runner.measure(bench, A, 4, False, lambda _m: None)
    times = [s for s in rep.samples if s.metric == "time_per_op"]
    assert [s.warmup for s in times] == [True, True, False, False, False]
    assert [s.iteration for s in times] == [0, 1, 2, 3, 4]
    assert all(s.block == 4 and s.variant == "a" for s in times)
    measured = [s.value for s in times if not s.warmup]
    assert measured == pytest.approx([1e-6 - 1e-8] * 3)
    ops = [s.value for s in rep.samples if s.metric == "ops_per_s" and not s.warmup]
    assert ops == pytest.approx([1 / (1e-6 - 1e-8)] * 3)
    alloc = {s.metric: s.value for s in rep.samples if s.metric not in ("time_per_op", "ops_per_s")}
    assert alloc == {"mem_blocks_per_op": 2.0, "mem_bytes_per_op": 152.0, "peak_bytes_per_op": 144.0,
                     "gc_per_1k_ops": 1.4}
    assert all(bench.metric(m).exact for m in alloc)


def test_operation_cheaper_than_the_empty_loop_is_floored_and_warned() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "time":
            return timing_answer(request, per_loop=1e-8, overhead=2e-8)
        return standard_script(argv, request)

    runner = MicroRunner(spawn=FakeWorkers(script))
    bench = python_bench()
    runner.prepare(bench, [A])
    rep = runner.measure(bench, A, 0, False, lambda _m: None)
    values = [s.value for s in rep.samples if s.metric == "time_per_op" and not s.warmup]
    assert values and all(v == pytest.approx(1e-8 * OVERHEAD_FLOOR) for v in values)
    assert [n.kind for n in rep.notices] == ["resolution"]


def test_unavailable_allocations_give_a_notice_not_zeros() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "time":
            return timing_answer(request, alloc={"unavailable": "PyPy gives no allocation counters"})
        return standard_script(argv, request)

    runner = MicroRunner(spawn=FakeWorkers(script))
    bench = python_bench()
    runner.prepare(bench, [A])
    first = runner.measure(bench, A, 0, False, lambda _m: None)
    second = runner.measure(bench, A, 1, False, lambda _m: None)
    assert {s.metric for s in first.samples} == {"time_per_op", "ops_per_s"}
    assert [n.kind for n in first.notices] == ["alloc-unavailable"]
    assert "PyPy" in first.notices[0].message and second.notices == []


def test_jit_settle_notice_only_when_most_processes_still_fall() -> None:
    falling = [1.0, 0.8, 0.6]

    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "time":
            loops = request["loops"]
            return answer(loops=loops, warmup=[], samples=[t * loops * 1e-6 for t in falling], overhead=0.0,
                          alloc={})
        return standard_script(argv, request)

    runner = MicroRunner(spawn=FakeWorkers(script), samples=3, warmup=0)
    bench = python_bench()
    runner.prepare(bench, [A])
    kinds = [[n.kind for n in runner.measure(bench, A, i, False, lambda _m: None).notices] for i in range(4)]
    assert kinds == [[], [], ["not-settled"], []]


def test_failing_benchmark_names_variant_and_benchmark_and_stops_only_that_pair() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "time" and argv[0] == "python-b":
            return answer(ok=False, stage="run", error="ZeroDivisionError: division by zero (b.py:3)")
        return standard_script(argv, request)

    workers = FakeWorkers(script)
    runner = MicroRunner(spawn=workers)
    bench = python_bench("divide")
    runner.prepare(bench, [A, B])
    bad = runner.measure(bench, B, 0, False, lambda _m: None)
    assert bad.failed and len(bad.notices) == 1
    message = bad.notices[0].message
    assert "'divide'" in message and "'b'" in message and "ZeroDivisionError" in message
    again = runner.measure(bench, B, 1, False, lambda _m: None)
    assert again.failed and again.notices == []  # said once
    ok = runner.measure(bench, A, 1, False, lambda _m: None)
    assert not ok.failed and ok.samples
    assert sum(1 for argv, r in workers.calls if r["mode"] == "time" and argv[0] == "python-b") == 1


def test_missing_interpreter_fails_that_variant_in_prepare() -> None:
    def spawn(argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
              timeout: float) -> tuple[int, str, str]:
        if argv[0] == "python-missing":
            raise FileNotFoundError(argv[0])
        return 0, standard_script(argv, json.loads(stdin)), ""

    runner = MicroRunner(spawn=spawn)
    missing = Variant("new", command="python-missing")
    bench = python_bench()
    notices = runner.prepare(bench, [A, missing])
    assert len(notices) == 1
    assert "'new'" in notices[0].message and "'python-missing' not found" in notices[0].message
    assert runner.measure(bench, missing, 0, False, lambda _m: None).failed
    assert not runner.measure(bench, A, 0, False, lambda _m: None).failed


def test_baseline_that_cannot_run_hands_calibration_to_the_next_variant() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "calibrate" and argv[0] == "python-a":
            return answer(ok=False, stage="load", error="SyntaxError: invalid syntax (x.py:1)")
        return standard_script(argv, request)

    runner = MicroRunner(spawn=FakeWorkers(script))
    bench = python_bench()
    notices = runner.prepare(bench, [A, B])
    assert [n.kind for n in notices] == ["benchmark-failed", "calibration"]
    assert "SyntaxError" in notices[0].message and "'a'" in notices[0].message
    assert runner.loops(bench) == 7


def test_timeout_is_a_failed_replicate_not_an_exception() -> None:
    def spawn(argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
              timeout: float) -> tuple[int, str, str]:
        request = json.loads(stdin)
        if request["mode"] == "time":
            raise subprocess.TimeoutExpired(argv, timeout)
        return 0, standard_script(argv, request), ""

    runner = MicroRunner(spawn=spawn)
    bench = python_bench()
    runner.prepare(bench, [A])
    rep = runner.measure(bench, A, 0, False, lambda _m: None)
    assert rep.failed and "timed out" in rep.notices[0].message


def test_worker_command_line_and_env() -> None:
    workers = FakeWorkers(standard_script)
    runner = MicroRunner(spawn=workers)
    v = Variant("yjit", command="ruby --yjit", env={"RUBY_GC_X": "1"})
    runner.call(v, "ruby", {"mode": "probe"}, 10)
    argv, _ = workers.calls[0]
    assert argv[:2] == ["ruby", "--yjit"] and argv[2].endswith("rb_harness.rb")


def test_fixed_loops_skip_calibration() -> None:
    workers = FakeWorkers(standard_script)
    runner = MicroRunner(spawn=workers)
    bench = python_bench(loops=123)
    runner.prepare(bench, [A, B])
    assert runner.loops(bench) == 123
    assert not any(r["mode"] == "calibrate" for _, r in workers.calls)


def test_too_few_samples_per_process_is_a_user_error() -> None:
    with pytest.raises(UserError, match="at least 2"):
        MicroRunner(samples=1)


def test_metrics_mark_allocation_counts_exact() -> None:
    ruby = {m.name: m for m in micro_metrics("ruby")}
    assert ruby["allocs_per_op"].exact and not ruby["time_per_op"].exact
    assert ruby["ops_per_s"].direction == "higher"


def test_a_worker_whose_single_op_outlasts_the_target_gets_a_timeout_that_fits_it() -> None:
    # pyperformance's barnes_hut: one loop takes 5 s, far over a 10 ms target; the worker runs
    # 3 samples of one loop each, so a timeout sized from the target (60.9 s) would not always fit.
    timeouts: list[float] = []

    class Recording(FakeWorkers):
        def __call__(self, argv: list[str], stdin: str, env: Mapping[str, str], cwd: str | None,
                     timeout: float) -> tuple[int, str, str]:
            if json.loads(stdin).get("mode") == "time":
                timeouts.append(timeout)
            return super().__call__(argv, stdin, env, cwd, timeout)

    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "probe":
            return answer()
        if request["mode"] == "calibrate":
            return answer(loops=1, time=5.0)
        return timing_answer(request, per_loop=5.0)

    runner = MicroRunner(spawn=Recording(script), samples=2, warmup=1, target_time=0.01)
    bench = python_bench()
    runner.prepare(bench, [A, B])
    runner.measure(bench, A, 0, False, lambda _: None)
    assert timeouts and timeouts[0] >= 60 + 30 * 3 * 5.0


def test_allocations_are_counted_in_one_process_per_variant_not_every_block() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "time" and not request["alloc"]:
            return answer(**{k: v for k, v in json.loads(timing_answer(request).split(MARKER)[1]).items()
                             if k != "alloc"})
        return standard_script(argv, request)

    workers = FakeWorkers(script)
    runner = MicroRunner(spawn=workers, seed=1)
    bench = python_bench()
    runner.prepare(bench, [A, B])
    reps = [runner.measure(bench, v, block, False, lambda _m: None) for block in range(4) for v in (A, B)]
    asked = [(argv[0], r["alloc"]) for argv, r in workers.calls if r["mode"] == "time"]
    assert [a for a in asked if a[1]] == [("python-a", True), ("python-b", True)]
    counted = [(s.variant, s.block) for r in reps for s in r.samples if s.metric == "mem_blocks_per_op"]
    assert counted == [("a", 0), ("b", 0)]  # the same block on both sides: the exact comparison pairs them


def test_batches_are_asked_by_the_sample_time_and_become_the_process_series() -> None:
    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] != "time":
            return standard_script(argv, request)
        k, loops = request["batches"], request["loops"]
        sizes = [loops // k] * k
        per_sample = [[1e-6 * n for n in sizes] for _ in range(request["warmup"] + request["samples"])]
        per_sample[0][0] *= 3.0  # the first batch is a JIT's interpreted start
        return answer(loops=loops, warmup=[sum(b) for b in per_sample[:request["warmup"]]],
                      samples=[sum(b) for b in per_sample[request["warmup"]:]], overhead=1e-8,
                      batches=per_sample, batch_loops=sizes, alloc={})

    workers = FakeWorkers(script)
    runner = MicroRunner(spawn=workers)  # calibrated: 0.1 s samples, 8 batches of 12.5 ms
    bench = python_bench()
    runner.prepare(bench, [A, B])
    rep = runner.measure(bench, A, 0, False, lambda _m: None)
    assert workers.calls[-1][1]["batches"] == 8
    series = rep.series
    # CPython's 1 warm-up sample (the probe says CPython; 2 before warm-up went by interpreter) and the pilot's 5
    assert series is not None and series.per_sample == 8 and len(series.values) == (1 + 5) * 8
    assert series.values[0] == pytest.approx(3e-6 - 1e-8) and series.values[1] == pytest.approx(1e-6 - 1e-8)

    def quick(argv: list[str], request: dict[str, Any]) -> str:
        return answer(loops=1000, time=0.004) if request["mode"] == "calibrate" else script(argv, request)

    workers.script = quick
    short = MicroRunner(spawn=workers, target_time=0.004)  # under 10 ms: a sample is not split
    short.prepare(python_bench("short"), [A, B])
    short_rep = short.measure(python_bench("short"), A, 0, False, lambda _m: None)
    assert workers.calls[-1][1]["batches"] == 1 and short_rep.series is None


def test_under_fixed_loops_the_first_process_sizes_the_batches_of_the_next() -> None:
    workers = FakeWorkers(standard_script)  # 1 µs an op: 123,000 loops make 0.123 s samples
    runner = MicroRunner(spawn=workers)
    bench = python_bench(loops=123_000)
    runner.prepare(bench, [A, B])
    runner.measure(bench, A, 0, False, lambda _m: None)
    runner.measure(bench, B, 0, False, lambda _m: None)
    assert [r["batches"] for _, r in workers.calls if r["mode"] == "time"] == [1, 8]


class TwoLevelWorkers:
    """Timing answers from two-level data: each process its own level (layout, hash seeds), each
    sample noise around it; a simulated clock that a process advances by its start-up and samples."""

    def __init__(self, between: float, within: float, process_s: float = 0.4, sample_s: float = 0.1) -> None:
        import random

        self.rng = random.Random(7)
        self.between, self.within, self.process_s, self.sample_s = between, within, process_s, sample_s
        self.now = 0.0
        self.workers = FakeWorkers(self.script)

    def clock(self) -> float:
        return self.now

    def script(self, argv: list[str], request: dict[str, Any]) -> str:
        import math

        if request["mode"] != "time":
            return standard_script(argv, request)
        k, loops = request["samples"], request["loops"]
        level = 1e-6 * math.exp(self.rng.gauss(0.0, self.between))
        samples = [level * loops * math.exp(self.rng.gauss(0.0, self.within)) for _ in range(k)]
        self.now += self.process_s + k * self.sample_s + (5.0 if request["alloc"] else 0.0)
        return answer(loops=loops, warmup=[level * loops] * request["warmup"], samples=samples, overhead=0.0,
                      clocks={"clock": "cpu", "wall": k * self.sample_s, "cpu": k * self.sample_s, "loops": k * loops},
                      alloc={})


def asked_samples(sim: TwoLevelWorkers) -> list[int]:
    return [r["samples"] for _, r in sim.workers.calls if r["mode"] == "time"]


def test_samples_per_process_are_planned_from_the_spreads_after_the_pilot_blocks() -> None:
    """Processes that differ far more than their samples (CPython's layouts): after the 3 pilot
    blocks at 5, fewer samples per process, more processes per second; said once under -v."""
    sim = TwoLevelWorkers(between=0.03, within=0.005)
    runner = MicroRunner(spawn=sim.workers, seed=1, clock=sim.clock)
    bench = python_bench()
    runner.prepare(bench, [A, B])
    reps = [runner.measure(bench, v, block, False, lambda _m: None) for block in range(8) for v in (A, B)]
    asked = asked_samples(sim)
    assert asked[:6] == [5] * 6
    assert set(asked[6:]) == {2}
    plans = [n for r in reps for n in r.notices if n.kind == "sample-plan"]
    assert len(plans) == 1 and "2 samples per process from block 4" in plans[0].message
    assert all(len([s for s in r.samples if s.metric == "time_per_op" and not s.warmup]) == 2 for r in reps[6:])


def test_samples_that_differ_more_than_processes_get_more_samples_per_process() -> None:
    sim = TwoLevelWorkers(between=0.001, within=0.05)
    runner = MicroRunner(spawn=sim.workers, seed=1, clock=sim.clock)
    bench = python_bench()
    runner.prepare(bench, [A, B])
    for block in range(13):
        for v in (A, B):
            runner.measure(bench, v, block, False, lambda _m: None)
    asked = asked_samples(sim)
    assert asked[-1] > 5  # planned again at blocks 6 and 12 on more processes


def test_given_samples_are_kept() -> None:
    for runner_samples, options in ((5, {}), (None, {"samples": 5})):
        sim = TwoLevelWorkers(between=0.03, within=0.005)
        runner = MicroRunner(spawn=sim.workers, seed=1, clock=sim.clock, samples=runner_samples)
        bench = python_bench(**options)
        runner.prepare(bench, [A, B])
        reps = [runner.measure(bench, v, block, False, lambda _m: None) for block in range(6) for v in (A, B)]
        assert set(asked_samples(sim)) == {5}
        assert not [n for r in reps for n in r.notices if n.kind == "sample-plan"]
