"""The runner for kind "micro": a snippet or function timed in a loop inside each variant's own
interpreter (CPython, PyPy, Ruby), one worker process per replicate.

Each worker runs `harness/py_harness.py` or `harness/rb_harness.rb` with the variant's interpreter
command, gets a JSON request on stdin and answers one JSON line. The loop count is calibrated once,
on the baseline, and reused for every variant (same work on each side: benchmark_driver's reused
loop_count, pyperformance `--same-loops`). Per process: `warmup` samples (flagged, never used in
estimates; by default 1 on CPython, 2 where a JIT warms up: warmup.py), `samples` measured
samples, the empty loop's cost per iteration (subtracted), then a separate allocation pass so that
counting never disturbs timing. Allocations are counted in the first measured block only (one
process per variant: the counts are exact, so more processes add cost, not information), in a
pass held to about the time of the process's timed samples.

Benchmark.options for kind "micro" (JSON-serialisable):
    language    "python" | "ruby"
    file        benchmark file (absolute), or absent for a `-s SETUP STMT` snippet
    func        Python: the `bench_*` function;  index: Ruby: position in the YAML `benchmark`
    script      Ruby: `file` is a whole .rb script, run once per process (one sample, no warm-up
                sample; objects allocated counted during that run), as benchmark_driver runs
                ruby/ruby's benchmark/*.rb
    param       Python: index into the function's params (its repr is in `param_repr`)
    setup, stmt the snippet (timeit style / benchmark_driver prelude + script)
    loops       a fixed loop count (skips calibration)
    samples, warmup, target_time   per-process sample plan (defaults below; warmup by interpreter)
    clock       "auto" (default: wall time for coroutines and pyperf benchmarks, which wait or time
                themselves, CPU time otherwise), "cpu" (the worker's CPU time, blind to other
                processes' time slices on a shared machine) or "wall" (for operations that sleep,
                wait or use threads)
    alloc       false skips the allocation-counting pass
    argv        Python: arguments of a pyperf script (pyperformance's extra_opts); `func` is then
                the name the script registers with pyperf's Runner (harness/pyperf)
    requires_python  Python: versions that may run it (pyperformance's requires-python); an
                interpreter outside them skips it with a notice, never started for it
They are parsed and checked before anything runs by options.py (`MicroOptions`).
"""

from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import time
from typing import Any, Callable, Sequence

from pairbench.errors import UserError
from pairbench.model import Benchmark, Notice, ProcessSeries, Sample, Variant
from pairbench.runners.base import ProgressFn, Replicate
from pairbench.runners.micro.clocks import clock_notice
from pairbench.runners.micro.process_plan import ProcessPlan, once_per_process, process_plan
from pairbench.runners.micro.python_spec import skip_reason
from pairbench.runners.micro.ruby_batch import RunDirectory, batch_requests
from pairbench.runners.micro.sample_plan import SamplePlans
from pairbench.runners.micro.settle import SettleCheck
from pairbench.runners.micro.warmup import default_warmup
from pairbench.runners.micro.worker import (
    HARNESS_DIR,
    PY_MIN_VERSION,
    Spawn,
    WorkerResult,
    batch_count,
    batch_times,
    default_spawn,
    parse_answer,
    worker_spec,
)

__all__ = ["MicroRunner"]

DEFAULT_TARGET = 0.1
"""Seconds per sample, like benchmark-ips's i/100ms warm-up estimate."""
ALLOC_SHARE = 1.0
"""The allocation pass may take about as long as the worker's timed samples (nsamples × target)."""
RUBY_PREPARE_TIMEOUT = 600.0
"""Seconds a Ruby calibration may take: a prelude may prepare data for minutes first
(so_reverse_complement.yml writes a 25 MB file; benchmark_driver waits for ever)."""
SCRIPT_TIMEOUT = 600.0
"""Seconds a whole-script worker may take before any run of it was seen (benchmark_driver waits
for ever; ruby/ruby's app_aobench.rb takes over a minute on a loaded 2-core machine)."""

# Time per op is never allowed to reach zero after subtracting the loop overhead (ratios and logs
# need positive values): it is floored at this fraction of the raw time per iteration.
OVERHEAD_FLOOR = 0.01


class MicroRunner:
    """Runner for kind "micro" (see the module docstring for the method)."""

    def __init__(self, *, samples: int | None = None, warmup: int | None = None,
                 target_time: float = DEFAULT_TARGET, alloc: bool = True, seed: int | None = None,
                 spawn: Spawn | None = None, clock: Callable[[], float] = time.time,
                 machine: str = "") -> None:
        if samples is not None and samples < 2:
            raise UserError(f"--samples {samples}: need at least 2 samples per process")
        self.samples = samples
        """Measured samples per process; None: planned from the run's variance components (sample_plan.py)."""
        self._sample_plans = SamplePlans()
        self.warmup = warmup
        """Warm-up samples per process; None: by interpreter (warmup.py)."""
        self.target_time = target_time
        self.alloc = alloc
        self.machine = machine
        self._spawn = spawn or default_spawn
        self._clock = clock
        self._rng = random.Random(seed)
        self._probes: dict[str, tuple[dict[str, Any], str]] = {}
        self._loops: dict[str, int] = {}
        self._sample_s: dict[str, float] = {}
        """benchmark -> seconds a sample took in calibration (over the target when one loop is), or under
        --loops in the first process: sizes the timeouts and the batches."""
        self._failed: dict[tuple[str, str], str] = {}
        """(benchmark, variant) -> the error that stops it; later replicates return at once."""
        self._warned: set[tuple[str, str, str]] = set()
        self._settle = SettleCheck()
        self._setup_s: dict[str, float] = {}
        """benchmark -> seconds its set-up (a Ruby prelude) took in calibration."""
        self._alloc_block: dict[str, int] = {}
        """benchmark -> the block whose processes count allocations (the first measured one)."""
        self._ruby_sources: dict[str, Any] = {}
        """Ruby file -> its code as the list request read it, handed to later workers."""
        self._ruby_dir = RunDirectory()
        """The Ruby workers' shared run directory (made on first use, removed by close)."""

    # -- worker plumbing -------------------------------------------------------------------

    @staticmethod
    def language(benchmark: Benchmark) -> str:
        return str(benchmark.options.get("language", "python"))

    def _argv(self, variant: Variant, language: str) -> list[str]:
        try:
            prefix = shlex.split(variant.command)
        except ValueError as exc:
            raise UserError(f"variant {variant.name!r}: cannot parse command {variant.command!r}: {exc}")
        if not prefix:
            raise UserError(f"variant {variant.name!r}: no interpreter given")
        script = "rb_harness.rb" if language == "ruby" else "py_harness.py"
        return [*prefix, *variant.args, str(HARNESS_DIR / script)]

    def _env(self, variant: Variant) -> dict[str, str]:
        env = dict(os.environ)
        for name in variant.unset_env:
            env.pop(name, None)
        env.update(variant.env)
        # Random environment size per process moves the initial stack, so one lucky or unlucky
        # memory layout is not baked into every sample (Mytkowicz et al.; hyperfine does the same).
        env["PAIRBENCH_ENV_PAD"] = "x" * self._rng.randrange(0, 4096)
        return env

    def call(self, variant: Variant, language: str, request: dict[str, Any], timeout: float,
             wrap: Any = None) -> WorkerResult:
        """Run one worker process with `request`; never raises for a failing worker.

        `wrap(argv, env) -> (argv, env)` runs it under a profiler (`--profile`, runners/micro/profiled.py).
        """
        try:
            argv = self._argv(variant, language)
        except UserError as exc:
            return WorkerResult(False, {}, str(exc))
        env = self._env(variant)
        if wrap is not None:
            argv, env = wrap(argv, env)
        if language == "ruby":
            source = self._ruby_sources.get(str(request.get("file")))  # no yaml to load in the worker
            request = {**request, "run_dir": self._ruby_dir.path(),
                       **({"source": source} if source and request["mode"] != "list" else {})}
        try:
            code, out, err = self._spawn(argv, json.dumps(request), env, variant.cwd, timeout)
        except FileNotFoundError:
            return WorkerResult(False, {}, f"interpreter {argv[0]!r} not found; check the path or PATH")
        except PermissionError:
            return WorkerResult(False, {}, f"interpreter {argv[0]!r} is not executable")
        except subprocess.TimeoutExpired:
            return WorkerResult(False, {}, f"worker timed out after {timeout:.0f} s")
        return parse_answer(code, out, err)

    def probe(self, variant: Variant, language: str) -> tuple[dict[str, Any], str]:
        """(facts about the interpreter, error or ""): implementation and version, checked once."""
        key = f"{language}\0{variant.name}"
        if key in self._probes:
            return self._probes[key]
        result = self.call(variant, language, {"mode": "probe"}, timeout=60)
        info = {k: result.data[k] for k in ("implementation", "version", "executable", "jit")
                if result.data.get(k) is not None}
        error = ""
        if not result.ok:
            error = result.error
            if language == "python" and "without an answer" in error:
                error = self._python_too_old(variant) or error
        self._probes[key] = (info, error)
        return info, error

    def _python_too_old(self, variant: Variant) -> str:
        """A harness that cannot even parse means an old Python; ask it its version plainly."""
        try:
            prefix = shlex.split(variant.command)
            code, out, _ = self._spawn(
                [*prefix, *variant.args, "-c", "import sys, platform; print(platform.python_version())"],
                "", self._env(variant), variant.cwd, 30)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return ""
        version = out.strip()
        if code == 0 and version:
            return (f"{variant.command} is Python {version}; the micro harness needs CPython "
                    f"{PY_MIN_VERSION[0]}.{PY_MIN_VERSION[1]}+ or PyPy 3.9+")
        return ""

    _spec = staticmethod(worker_spec)
    """What the worker times: its file and function (or index), or the snippet, and its clock."""

    def process(self, benchmark: Benchmark, variant: Variant) -> ProcessPlan:
        """The samples one of `variant`'s processes takes (process_plan.py)."""
        return process_plan(benchmark.options, self.samples, self.target_time,
                            self._sample_plans.samples(benchmark.name),
                            lambda: self.variant_warmup(variant, self.language(benchmark)))

    def variant_warmup(self, variant: Variant, language: str) -> int:
        """Warm-up samples per process on `variant` for a benchmark that sets none: the runner's
        number (--warmup-samples), else its interpreter's default (warmup.py; probed in prepare)."""
        return self.warmup if self.warmup is not None else default_warmup(self.probe(variant, language)[0])

    def _planned(self, benchmark: Benchmark) -> bool:
        """Whether the samples per process are planned (no --samples, no whole script)."""
        o = benchmark.options
        return self.samples is None and "samples" not in o and not once_per_process(o)

    def _fail(self, benchmark: Benchmark, variant: Variant, error: str) -> Notice | None:
        """Record that `variant` cannot run `benchmark`; the Notice only the first time."""
        if (benchmark.name, variant.name) in self._failed:
            return None
        message = f"micro benchmark {benchmark.name!r} on variant {variant.name!r}: {error}"
        self._failed[(benchmark.name, variant.name)] = message
        hint = "its other variants and the other benchmarks still run"
        loop_count = benchmark.options.get("loop_count")
        if loop_count and benchmark.options.get("loops") != loop_count:
            # a Ruby prelude may prepare exactly loop_count iterations of work (io_close)
            hint = f"the file declares loop_count: {loop_count}; --loops file runs that many per sample; " + hint
        return Notice("benchmark-failed", message, hint, benchmark.name, variant.name)

    # -- Runner protocol -------------------------------------------------------------------

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        """Probe every interpreter, then calibrate the loop count once, on the baseline."""
        language = self.language(benchmark)
        notices: list[Notice] = []
        working: list[Variant] = []
        for v in variants:
            info, error = self.probe(v, language)
            o = benchmark.options  # pyperformance's requires-python: a 3.12 benchmark is not run on 3.11
            error = error or skip_reason(o.get("requires_python"), o.get("requires_from"), info.get("version"))
            if error:
                notices.extend(n for n in [self._fail(benchmark, v, error)] if n)
            else:
                working.append(v)
        if benchmark.options.get("loops"):
            self._loops[benchmark.name] = int(benchmark.options["loops"])
            return notices
        if benchmark.name in self._loops:  # prepared before (the command calibrates up front)
            return notices
        target = float(benchmark.options.get("target_time", self.target_time))
        baseline = next((v for v in working if v.baseline), working[0] if working else None)
        order = [baseline] + [v for v in working if v is not baseline] if baseline else []
        for v in order:
            result = self.call(v, language, {"mode": "calibrate", "target": target, **self._spec(benchmark)},
                               timeout=max(RUBY_PREPARE_TIMEOUT if language == "ruby" else 60.0, 100 * target))
            if result.ok:
                self._loops[benchmark.name] = int(result.data["loops"])
                self._sample_s[benchmark.name] = float(result.data.get("time") or 0.0)
                self._setup_s[benchmark.name] = float(result.data.get("setup") or 0.0)
                notices.extend(self._clock_notices(benchmark, result.data))
                if v is not baseline:
                    notices.append(Notice(
                        "calibration", f"micro benchmark {benchmark.name!r}: loop count calibrated on "
                        f"{v.name!r} because the baseline failed", "", benchmark.name, v.name))
                break
            notices.extend(n for n in [self._fail(benchmark, v, result.error)] if n)
        return notices

    def calibrate_files(self, benchmarks: Sequence[Benchmark], variants: Sequence[Variant]) -> None:
        """Calibrate the benchmarks of each Ruby file together, in one worker on the baseline: one
        start-up and prelude instead of one per benchmark. A benchmark that fails there is left to
        `prepare`, which calibrates it alone and reports its error."""
        baseline = next((v for v in variants if v.baseline), None)
        if baseline is None or self.probe(baseline, "ruby")[1]:
            return
        todo = [b for b in benchmarks if b.name not in self._loops]
        for group, request in batch_requests(todo, self._spec, self.target_time):
            timeout = max(RUBY_PREPARE_TIMEOUT, 100 * float(request["target"])) + 10.0 * len(group)
            result = self.call(baseline, "ruby", request, timeout)
            for item in result.data.get("calibrations", []) if result.ok else []:
                bench = group.get(int(item.get("index", -1)))
                if bench is not None and item.get("loops"):
                    self._loops[bench.name] = int(item["loops"])
                    self._sample_s[bench.name] = float(item.get("time") or 0.0)
                    self._setup_s[bench.name] = float(item.get("setup") or 0.0)

    def loops(self, benchmark: Benchmark) -> int | None:
        """The shared loop count chosen in prepare (None if no variant could run it)."""
        return self._loops.get(benchmark.name)

    def measure(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                progress: ProgressFn) -> Replicate:
        """One worker process: warm-up and measured samples, then the allocation pass."""
        key = (benchmark.name, variant.name)
        if key in self._failed:
            return Replicate(failed=True)  # the notice was given once, in prepare or first failure
        loops = self._loops.get(benchmark.name)
        if loops is None:
            notice = self._fail(benchmark, variant, "no loop count: no variant could run it to calibrate")
            return Replicate(failed=True, notices=[notice] if notice else [])
        planned = self._planned(benchmark) and not warmup
        plan = self._sample_plans.replan(benchmark.name, block) if planned else None
        process = self.process(benchmark, variant)
        nsamples, nwarm, target = process.samples, process.warmup, process.target
        # the allocation pass gets a share of the worker's timing, not 10-15 s for a slow op, and
        # runs in one block only: every variant counts in the same block, so the exact counts pair
        if not warmup:
            self._alloc_block.setdefault(benchmark.name, block)
        # a calibrated loop count makes samples of about the target; a given one, what the first process saw
        sample_s = self._sample_s.get(benchmark.name, 0.0)
        sample_s = sample_s if benchmark.options.get("loops") else max(sample_s, target)
        request = {"mode": "time", "loops": loops, "warmup": nwarm, "samples": nsamples,
                   "batches": batch_count(sample_s),
                   "alloc": (bool(benchmark.options.get("alloc", self.alloc)) and not warmup
                             and self._alloc_block.get(benchmark.name) == block),
                   "alloc_budget": ALLOC_SHARE * nsamples * target,
                   "alloc_op_s": target / max(loops, 1),
                   **self._spec(benchmark)}
        progress(f"{benchmark.name} · {variant.name} · block {block + 1}")
        # Generous: startup, calibrated samples (a slower variant may take several times the
        # target), the empty loop and the allocation pass under tracemalloc.
        # A single loop may outlast the target (a pyperformance op of seconds): size by what it took.
        timeout = 60.0 + 30 * (nsamples + nwarm) * max(target, self._sample_s.get(benchmark.name, 0.0))
        timeout += 2 * self._setup_s.get(benchmark.name, 0.0)  # the prelude runs in every worker
        if benchmark.options.get("script"):  # never calibrated: a long script (app_aobench) runs a minute
            timeout = max(SCRIPT_TIMEOUT, timeout)
        started = self._clock()
        result = self.call(variant, self.language(benchmark), request, timeout)
        if not result.ok:
            notice = self._fail(benchmark, variant, result.error)
            return Replicate(failed=True, notices=[notice] if notice else [])
        took = self._clock() - started
        if benchmark.options.get("script"):
            longest = max([float(t) for t in result.data.get("samples", [])] or [0.0])
            self._sample_s[benchmark.name] = max(self._sample_s.get(benchmark.name, 0.0), longest)
        rep = self._replicate(benchmark, variant, block, warmup, result.data, started)
        if planned:  # the costs of a plain process: an allocation pass is not one
            values = [s.value for s in rep.samples if s.metric == "time_per_op" and not s.warmup]
            self._sample_plans.record(benchmark.name, block, variant.name, values, result.data.get("clocks"),
                                      None if request["alloc"] else took)
        if plan is not None:
            rep.notices.append(Notice("sample-plan", f"micro benchmark {benchmark.name!r}: {plan.describe()}", "",
                                      benchmark.name))
        return rep

    def _replicate(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                   data: dict[str, Any], started: float) -> Replicate:
        # pyperf's inner_loops: each of the `loops` iterations is that many operations
        inner = int(data.get("inner_loops") or 1)
        loops = int(data["loops"]) * inner
        overhead = float(data.get("overhead") or 0.0) / inner
        rep = Replicate()
        warm_times = [float(t) for t in data.get("warmup", [])]
        times = [float(t) for t in data.get("samples", [])]
        below = 0

        def add(metric: str, value: float, iteration: int, is_warm: bool) -> None:
            rep.samples.append(Sample(benchmark.name, variant.name, metric, value, block, 0, iteration,
                                      is_warm, started, self.machine))

        for i, total in enumerate(warm_times + times):
            raw = total / loops
            per_op = raw - overhead
            if per_op < raw * OVERHEAD_FLOOR:
                per_op = raw * OVERHEAD_FLOOR
                below += 1
            is_warm = warmup or i < len(warm_times)
            add("time_per_op", per_op, i, is_warm)
            add("ops_per_s", 1.0 / per_op, i, is_warm)
        if times:  # under --loops, the batches of later processes are sized from the first one's samples
            self._sample_s.setdefault(benchmark.name, sorted(times)[len(times) // 2])
        batched = batch_times(data, overhead, inner, OVERHEAD_FLOOR)
        if batched is not None:
            rep.series = ProcessSeries(benchmark.name, variant.name, block, 0, "time_per_op", *batched)
        if below and self._once(benchmark, variant, "resolution"):
            rep.notices.append(Notice(
                "resolution", f"micro benchmark {benchmark.name!r} on {variant.name!r}: the operation costs "
                "less than the empty loop around it; times are at the timer's resolution",
                "measure a larger unit of work per operation", benchmark.name, variant.name))
        settle = self._settle.add(benchmark.name, variant.name, times, loops)  # a JIT still warming up
        rep.notices.extend([settle] if settle else [])
        rep.notices.extend(self._clock_notices(benchmark, data))
        alloc = data.get("alloc")
        if isinstance(alloc, dict) and not warmup:
            if "unavailable" in alloc:
                if self._once(benchmark, variant, "alloc"):
                    rep.notices.append(Notice(
                        "alloc-unavailable", f"allocations on {variant.name!r}: unavailable ({alloc['unavailable']})",
                        "", benchmark.name, variant.name))
            else:
                names = {m.name for m in benchmark.metrics}
                for metric, value in alloc.items():
                    if metric in names and isinstance(value, (int, float)):
                        add(metric, float(value), 0, False)
        return rep

    def _clock_notices(self, benchmark: Benchmark, data: dict[str, Any]) -> list[Notice]:
        """Once per benchmark: timed by CPU time, its op spends far more wall time (clocks.py)."""
        notice = clock_notice(benchmark, data.get("clocks"))
        if notice is None or (benchmark.name, "", "clock") in self._warned:
            return []
        self._warned.add((benchmark.name, "", "clock"))
        return [notice]

    def _once(self, benchmark: Benchmark, variant: Variant, kind: str) -> bool:
        key = (benchmark.name, variant.name, kind)
        if key in self._warned:
            return False
        self._warned.add(key)
        return True

    def list_benchmarks(self, path: str, language: str, variants: Sequence[Variant],
                        argv: Sequence[str] = ()) -> tuple[list[dict[str, Any]], str]:
        """Benchmarks in a file, as listed by the first variant able to load it: (items, error).

        `argv`: the arguments a pyperf script is run with (its benchmarks' names may depend on them)."""
        error = ""
        probe_error = ""
        for v in variants:
            _, perr = self.probe(v, language)
            if perr:
                probe_error = probe_error or f"{perr} (variant {v.name!r})"
                continue
            result = self.call(v, language, {"mode": "list", "file": path, **({"argv": list(argv)} if argv else {})},
                               timeout=60)
            if result.ok:
                if language == "ruby" and isinstance(result.data.get("source"), dict):
                    self._ruby_sources[path] = result.data["source"]
                return list(result.data.get("benchmarks", [])), ""
            error = error or f"{result.error} (loaded by {v.name!r})"
        return [], error or f"no variant's interpreter could run: {probe_error}"

    def close(self) -> None:
        """Workers end with their request; nothing is left running. The Ruby run directory goes."""
        self._ruby_dir.remove()
