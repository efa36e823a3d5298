"""Warm-up samples per micro process: chosen by the interpreter's kind unless given.

Why: a warm-up sample costs as much as a measured one. CPython has no JIT to warm up, so one
(pyperf's default) is enough there; a JIT (PyPy, Ruby's YJIT) keeps two. A given number
(`--warmup-samples`, a suite's `warmup`) wins on every interpreter. The workers here are scripted:
their probe answer says which interpreter they are (tests/e2e/test_micro_warmup.py runs real ones).
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from pairbench.model import Benchmark
from pairbench.runners.micro import MicroRunner, micro_metrics, parse_micro_options
from pairbench.runners.options import Flags
from pairbench.runners.micro.sample_plan import PILOT_BLOCKS
from tests.unit.test_micro_runner import A, B, FakeWorkers, answer, python_bench, timing_answer


def interpreter(implementation: str, jit: str | None = None,
                timing: Callable[[dict[str, Any]], str] = timing_answer) -> Callable[[list[str], dict[str, Any]], str]:
    """A worker whose probe says it is `implementation` (with `jit`)."""

    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "probe":
            return answer(implementation=implementation, **({"jit": jit} if jit else {}))
        if request["mode"] == "calibrate":
            return answer(loops=1000, time=0.1)
        return timing(request)

    return script


def ruby_bench() -> Benchmark:
    return Benchmark("plus", "micro", micro_metrics("ruby"), {"language": "ruby", "stmt": "1 + 1"})


def warm_samples(runner: MicroRunner, bench: Benchmark, workers: FakeWorkers) -> tuple[list[int], list[int]]:
    """(warm-up samples each process was asked for, warm-up samples flagged per process), 2 blocks."""
    runner.prepare(bench, [A])
    flagged = []
    for block in range(2):
        rep = runner.measure(bench, A, block, False, lambda _m: None)
        flagged.append(sum(s.warmup for s in rep.samples if s.metric == "time_per_op"))
    return [r["warmup"] for _, r in workers.calls if r["mode"] == "time"], flagged


@pytest.mark.parametrize(("implementation", "jit", "language", "expected"), [
    ("CPython", None, "python", 1),
    ("PyPy", None, "python", 2),
    ("ruby", None, "ruby", 2),
    ("ruby", "yjit", "ruby", 2),
    ("GraalVM", None, "python", 2),  # not in the table: it may have a JIT, so as many as a JIT gets
])
def test_a_process_takes_the_warm_up_samples_of_its_interpreter_kind(
        implementation: str, jit: str | None, language: str, expected: int) -> None:
    workers = FakeWorkers(interpreter(implementation, jit))
    runner = MicroRunner(spawn=workers, samples=3)
    bench = ruby_bench() if language == "ruby" else python_bench()
    assert warm_samples(runner, bench, workers) == ([expected] * 2, [expected] * 2)
    assert runner.process(bench, A).warmup == expected


@pytest.mark.parametrize("implementation", ["CPython", "PyPy"])
@pytest.mark.parametrize("given", [0, 3])
def test_a_given_number_of_warm_up_samples_wins_on_every_interpreter(implementation: str, given: int) -> None:
    # --warmup-samples N reaches the runner and every benchmark's options; a suite's `warmup` the options only
    for runner_warmup, options in [(given, {"warmup": given}), (None, {"warmup": given}), (given, {})]:
        workers = FakeWorkers(interpreter(implementation))
        runner = MicroRunner(spawn=workers, samples=3, warmup=runner_warmup)
        assert warm_samples(runner, python_bench(**options), workers) == ([given] * 2, [given] * 2)


def test_a_whole_script_still_takes_no_warm_up_sample() -> None:
    workers = FakeWorkers(interpreter("ruby", "yjit"))
    runner = MicroRunner(spawn=workers)
    script = Benchmark("app_fib", "micro", micro_metrics("ruby"),
                       {"language": "ruby", "file": "/x/app_fib.rb", "script": True, "loops": 1})
    assert (runner.process(script, A).warmup, runner.process(script, A).samples) == (0, 1)


def test_options_without_warmup_leave_it_to_the_interpreter() -> None:
    where = Flags()
    assert parse_micro_options({"stmt": "x"}, where).warmup is None
    assert parse_micro_options({"stmt": "x", "warmup": 3}, where).warmup == 3


def test_samples_still_falling_after_cpythons_one_warm_up_sample_are_still_flagged() -> None:
    """The check that says a JIT has not settled reads the measured samples, whatever the warm-up:
    with CPython's default of one warm-up sample it fires as it did with two."""
    falling = [1.0, 0.8, 0.6]

    def timing(request: dict[str, Any]) -> str:
        loops = request["loops"]
        return answer(loops=loops, warmup=[1.2 * loops * 1e-6] * request["warmup"],
                      samples=[t * loops * 1e-6 for t in falling], overhead=0.0, alloc={})

    workers = FakeWorkers(interpreter("CPython", timing=timing))
    runner = MicroRunner(spawn=workers, samples=3)
    bench = python_bench()
    runner.prepare(bench, [A])
    reps = [runner.measure(bench, A, i, False, lambda _m: None) for i in range(4)]
    assert [[n.kind for n in rep.notices] for rep in reps] == [[], [], ["not-settled"], []]
    assert "--warmup-samples" in reps[2].notices[0].hint
    assert {r["warmup"] for _, r in workers.calls if r["mode"] == "time"} == {1}



def test_a_plan_of_two_samples_takes_the_same_measured_samples_after_each_interpreters_warm_up() -> None:
    """The plan (sample_plan.py) is the same for every variant of a block, whatever its warm-up:
    CPython's process of a plan of 2 takes 1 + 2 samples (the time the change saves), PyPy's 2 + 2."""
    rng = random.Random(5)

    def script(argv: list[str], request: dict[str, Any]) -> str:
        if request["mode"] == "probe":
            return answer(implementation="PyPy" if argv[0] == "python-b" else "CPython")
        if request["mode"] == "calibrate":
            return answer(loops=1000, time=0.1)
        loops, k = request["loops"], request["samples"]
        level = 1e-6 * rng.uniform(0.7, 1.3)  # processes differ; a process's samples barely do
        return answer(loops=loops, warmup=[level * loops] * request["warmup"],
                      samples=[level * loops * (1 + 1e-4 * i) for i in range(k)], overhead=0.0, alloc={},
                      clocks={"wall": 0.9, "cpu": 0.9})

    ticks = iter(range(10**6))
    workers = FakeWorkers(script)
    runner = MicroRunner(spawn=workers, alloc=False, clock=lambda: float(next(ticks)))  # a process takes 1 s
    bench = python_bench()
    runner.prepare(bench, [A, B])
    plans = []
    for block in range(PILOT_BLOCKS + 1):
        for variant in (A, B):
            rep = runner.measure(bench, variant, block, False, lambda _m: None)
            plans += [n.message for n in rep.notices if n.kind == "sample-plan"]
    assert plans and "2 samples per process" in plans[0]  # the plan: as few as it may
    last = {argv[0]: (r["warmup"], r["samples"]) for argv, r in workers.calls if r["mode"] == "time"}
    assert last == {"python-a": (1, 2), "python-b": (2, 2)}
