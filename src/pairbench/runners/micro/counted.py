"""The micro runner with `--measure instructions`: an exact instruction count per operation.

The loop count N is calibrated on time, outside the counter, as for a timed run. Each replicate
then runs the variant's harness twice under the counter (runners/instructions.py): once doing N
operations followed by N iterations of the empty loop, once doing 2N operations and none of the
empty loop. The second count less the first is N operations less N empty iterations: the
interpreter's start-up, its imports, the harness, the benchmark's set-up and the loop itself are
the same in both processes and cancel exactly, so `instructions_per_op` is what one operation
costs beyond the empty loop, as `time_per_op` is. With `time` too, the timed worker runs first and
its samples are kept as the plain micro runner makes them.

Why two processes and not one: a count can only be read when a counted process ends. Why the
same path in both: a Ruby harness names its script file after its directory, and a name that
differs between the two processes (a pid in it) hashes differently and moves the count.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import tempfile
from typing import Any, Callable

from pairbench.model import Benchmark, Metric, Notice, Sample, Variant
from pairbench.runners.base import Profiled, ProgressFn, Replicate
from pairbench.runners.counters import counted_values, counter_metrics, perf_events
from pairbench.runners.instructions import InstructionCounter, counters_simulated, default_counter, vary_notice
from pairbench.runners.micro.profiled import MicroProfiler
from pairbench.runners.micro.runner import MicroRunner
from pairbench.runners.micro.worker import WorkerResult, parse_answer
from pairbench.runners.shims import resolve_shim

__all__ = ["CountingMicroRunner", "INSTRUCTIONS_PER_OP", "counted_metrics"]

INSTRUCTIONS_PER_OP = Metric("instructions_per_op", "count", "lower", exact=True,
                             description="instructions per operation, empty loop subtracted (counted, N vs 2N ops)")
COUNTED_TIMEOUT_FACTOR = 100
"""A counted worker may take this many times a sample's time per op counted (valgrind: 20-60x)."""
COUNT_SHARE = 0.2
"""Counted processes do this share of a timed sample's calibrated loops (at least 1): counts are
exact, so N need not be large, only large enough to spread a GC run or a table resize over many
ops; under valgrind the 3N ops of a replicate then take ~0.06 s x 50. A fixed --loops is used as is."""
PAD_VARIABLE = "PAIRBENCH_ENV_PAD"
"""The random environment padding of timed workers; counted ones go without it."""

Counter = Callable[..., InstructionCounter]
_RATIOS = ("ipc", "branch-miss-rate")
"""Derived figures: a ratio of two per-op counts is the same per op as per process."""


def _per_op_name(name: str) -> str:
    return name if name in _RATIOS else f"{name}_per_op"


def _counted_per_op(counted: tuple[str, ...]) -> tuple[Metric, ...]:
    """The per-operation metrics of the counters named (instructions alone: instructions_per_op)."""
    if counted == ("instructions",):
        return (INSTRUCTIONS_PER_OP,)
    return tuple(dataclasses.replace(m, name=_per_op_name(m.name), description=m.description + (
        "" if m.name in _RATIOS else " per operation, empty loop subtracted"))
        for m in counter_metrics(counted, counters_simulated()))


def counted_metrics(measure: tuple[str, ...], timed: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The metrics of a micro benchmark measuring `measure`, given those of its timed run."""
    counted = tuple(n for n in measure if n != "time")
    if not counted:
        return timed
    per_op = _counted_per_op(counted)
    if "time" not in measure:
        return per_op
    if measure[0] != "time":
        return per_op + timed
    return timed[:2] + per_op + timed[2:]


def _measures(benchmark: Benchmark) -> tuple[str, ...]:
    return tuple(benchmark.options.get("measure") or ("time",))


def _counted(benchmark: Benchmark) -> tuple[str, ...]:
    return tuple(n for n in _measures(benchmark) if n != "time")


def _spawn_with_request_file(argv: list[str], request: str, env: dict[str, str], cwd: str | None, timeout: float,
                             path: str) -> tuple[int, str, str]:
    """A counted worker reads its request from a file, not a pipe: Ruby reading a pipe whose data has
    not arrived yet waits and retries, and those instructions would land in one count and not another."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(request)
    with open(path, encoding="utf-8") as stdin:
        proc = subprocess.run(argv, stdin=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


class CountingMicroRunner(MicroRunner):
    """MicroRunner plus instruction counts per operation for the benchmarks that ask for them."""

    def __init__(self, *, counter: Counter | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._make_counter = counter or default_counter
        self._counter: InstructionCounter | None = None
        self._seen: dict[tuple[str, str], set[float]] = {}
        """(benchmark, variant) -> the per-op counts its replicates gave."""
        self._noted: set[str] = set()
        self._profiler = MicroProfiler()

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        notices = super().prepare(benchmark, variants)
        counted = _counted(benchmark)
        if counted and benchmark.name not in self._noted:
            events = perf_events(counted) if counted != ("instructions",) else ()
            self._counter = self._counter or (self._make_counter(events) if events else self._make_counter())
            self._noted.add(benchmark.name)
            notices.append(Notice("instructions", f"{self._counter.describe()}; per operation: a process of N ops "
                                  "and N empty iterations against one of 2N ops", "", benchmark.name))
        return notices

    def measure(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                progress: ProgressFn) -> Replicate:
        measures = _measures(benchmark)
        if not _counted(benchmark):
            return super().measure(benchmark, variant, block, warmup, progress)
        replicate = super().measure(benchmark, variant, block, warmup, progress) if "time" in measures else Replicate()
        if replicate.failed or warmup:
            return replicate
        loops = self._counted_loops(benchmark)
        if (benchmark.name, variant.name) in self._failed or loops is None:
            return super().measure(benchmark, variant, block, warmup, progress)  # runs nothing: says why, once
        progress(f"{benchmark.name} · {variant.name} · block {block + 1} · counting instructions")
        started = self._clock()
        per_op, error = self._per_op(benchmark, variant, loops)
        if error:
            notice = self._fail(benchmark, variant, error)
            return Replicate(failed=True, notices=replicate.notices + ([notice] if notice else []))
        replicate.samples += [Sample(benchmark.name, variant.name, name, value, block, time=started,
                                     machine=self.machine) for name, value in per_op.items()]
        assert self._counter is not None
        seen = self._seen.setdefault((benchmark.name, variant.name), set())
        if INSTRUCTIONS_PER_OP.name in per_op:
            notice = vary_notice(self._counter, seen, per_op[INSTRUCTIONS_PER_OP.name], benchmark.name, variant.name)
            if notice is not None:
                replicate.notices.append(notice)
        return replicate

    def _counted_loops(self, benchmark: Benchmark) -> int | None:
        """N for the counted processes: the fixed --loops, else a share of the calibrated count."""
        loops = self.loops(benchmark)
        if loops is None or benchmark.name not in self._sample_s:  # fixed: never calibrated here
            return loops
        return max(1, int(loops * COUNT_SHARE))

    def _per_op(self, benchmark: Benchmark, variant: Variant, loops: int) -> tuple[dict[str, float], str]:
        """(metric -> count per op, error or ""): count(2N ops) - count(N ops + N empty), over N, for
        each event; the counters and their ratios are then read from the per-op events."""
        spec = {"mode": "count", **self._spec(benchmark)}
        op_s = max(self.target_time, self._sample_s.get(benchmark.name, 0.0)) / max(loops, 1)
        timeout = 120.0 + COUNTED_TIMEOUT_FACTOR * 3 * loops * op_s
        with tempfile.TemporaryDirectory(prefix="pairbench-count-") as run_dir:
            counts = []
            for ops, empty in ((loops, loops), (2 * loops, 0)):
                result, count = self._counted_call(variant, self.language(benchmark),
                                                   {**spec, "loops": ops, "empty_loops": empty,
                                                    "count_dir": os.path.join(run_dir, "run")}, timeout)
                if not result.ok:
                    return {}, f"under {self._counter.source if self._counter else 'the counter'}: {result.error}"
                counts.append(count)
                inner = int(result.data.get("inner_loops") or 1)
        ops = float(loops * inner)
        per_op = {e: (counts[1].get(e, 0) - counts[0].get(e, 0)) / ops for e in counts[1]}
        counted = _counted(benchmark)
        if counted == ("instructions",):
            return {INSTRUCTIONS_PER_OP.name: per_op["instructions"]}, ""
        values = counted_values(counted, per_op, counters_simulated())  # type: ignore[arg-type]
        return {_per_op_name(k): v for k, v in values.items()}, ""

    def _counted_call(self, variant: Variant, language: str, request: dict[str, Any],
                      timeout: float) -> tuple[WorkerResult, dict[str, int]]:
        """One worker under the counter: its answer and the events it counted (`instructions` alone
        when only instructions are counted)."""
        assert self._counter is not None, "prepare makes the counter"
        argv = self._argv(variant, language)
        env = self._env(variant)
        env.pop(PAD_VARIABLE, None)
        shim = resolve_shim(argv[0], env, variant.cwd)
        if shim is not None and shim.executable:  # count the interpreter, not its manager's shell script
            argv[0] = shim.executable
            env["PATH"] = os.pathsep.join(x for x in (shim.bin_dir, env.get("PATH", "")) if x)
        argv, env = self._counter.wrap(argv, env)
        try:
            code, out, err = _spawn_with_request_file(argv, json.dumps(request), env, variant.cwd, timeout,
                                                      str(request["count_dir"]) + ".json")
        except FileNotFoundError:
            return WorkerResult(False, {}, f"{argv[0]!r} not found"), {}
        except subprocess.TimeoutExpired:
            return WorkerResult(False, {}, f"worker timed out after {timeout:.0f} s"), {}
        result = parse_answer(code, out, err)
        if not result.ok:
            return result, {}
        try:
            events = self._counter.read_events() if self._counter.events else {"instructions": self._counter.read()}
            return result, events
        except (OSError, ValueError) as exc:
            return WorkerResult(False, {}, f"no instruction count: {exc}"), {}

    def profile(self, benchmark: Benchmark, variant: Variant, block: int, progress: ProgressFn) -> Profiled:
        """One profiled worker of the benchmark (`--profile`; runners/micro/profiled.py)."""
        return self._profiler.profile(self, benchmark, variant, block)

    def close(self) -> None:
        self._profiler.close()
        try:
            super().close()
        finally:
            if self._counter is not None:
                self._counter.close()
                self._counter = None
