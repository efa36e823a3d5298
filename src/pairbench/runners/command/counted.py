"""The command runner with its modes: `--measure instructions` (a counted run per replicate, beside or
instead of the timed one) and `--duet` (both variants at once, duet.py).

A benchmark whose `measure` names `instructions` gets, per replicate, one run under the counter
of runners/instructions.py (perf or valgrind); with `time` too, the timed run comes first and its
samples are kept as the plain runner makes them. A benchmark that measures only time is left to
the plain runner untouched.
"""

from __future__ import annotations

import random
import time

from pairbench.errors import BenchmarkFailed
from pairbench.model import Benchmark, Notice, Sample, Variant
from pairbench.runners.base import Profiled, ProgressFn, Replicate
from pairbench.runners.command.duet import DuetPair, duet_cpus
from pairbench.runners.command.invocation import expand_command
from pairbench.runners.command.options import failure_ignored
from pairbench.runners.command.profiled import CommandProfiler
from pairbench.runners.command.runner import CommandRunner
from pairbench.runners.counters import RUSAGE_COUNTERS, counted_values, perf_events, rusage_values
from pairbench.runners.instructions import InstructionCounter, counters_simulated, default_counter, vary_notice

__all__ = ["CountingCommandRunner"]

COUNTED_TIMEOUT_FACTOR = 100
"""A counted run may take this many times --timeout (valgrind runs programs 20-60x slower)."""


_TIMED = ("time", "user", "sys", "rss")
"""The timed run's own metrics, kept only when `time` is measured."""


def _measures(benchmark: Benchmark) -> tuple[str, ...]:
    return tuple(benchmark.options.get("measure") or ("time",))


def _counted(benchmark: Benchmark) -> tuple[str, ...]:
    """The measured names that a counted run gives (instructions, the hardware or simulated counters)."""
    return tuple(n for n in _measures(benchmark) if n != "time" and n not in RUSAGE_COUNTERS)


def _counts(benchmark: Benchmark) -> bool:
    return bool(_counted(benchmark)) or bool(RUSAGE_COUNTERS & set(_measures(benchmark)))


class CountingCommandRunner(CommandRunner):
    """CommandRunner plus instruction counts for the benchmarks that ask for them."""

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self._counter: InstructionCounter | None = None
        self._counts: dict[tuple[str, str], set[float]] = {}
        """(benchmark, variant) -> the instruction counts its measured runs gave."""
        self._duets: dict[str, tuple[DuetPair, dict[str, Variant]]] = {}
        """Benchmarks measured with --duet: their pair of runners and variants by name."""
        self._profiler = CommandProfiler()

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        if benchmark.options.get("duet"):
            seed = self._rng.randrange(2**31)
            pair = DuetPair(lambda: CountingCommandRunner(random.Random(seed)), duet_cpus())
            self._duets[benchmark.name] = (pair, {v.name: v for v in variants})
            return pair.prepare(benchmark, variants)
        notices = super().prepare(benchmark, variants)
        self._profiler.prepare(benchmark, variants)
        if _counted(benchmark):
            events = perf_events(_counted(benchmark)) if set(_counted(benchmark)) - {"instructions"} else ()
            self._counter = self._counter or default_counter(events)
            notices.append(Notice("instructions", self._counter.describe(), "", benchmark.name))
        return notices

    def measure(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                progress: ProgressFn) -> Replicate:
        if benchmark.name in self._duets:
            pair, variants = self._duets[benchmark.name]
            return pair.measure(benchmark, variant, block, warmup, progress, variants)
        if not _counts(benchmark):
            return super().measure(benchmark, variant, block, warmup, progress)
        measures = _measures(benchmark)
        timed = "time" in measures or bool(RUSAGE_COUNTERS & set(measures))
        if timed:
            replicate = super().measure(benchmark, variant, block, warmup, progress)
            self._add_rusage(replicate, benchmark, variant, block, warmup)
            if not _counted(benchmark):
                return replicate
        else:
            replicate = Replicate()
            prepare = benchmark.options.get("prepare")
            if prepare:
                self._run_hook("prepare", expand_command(str(prepare), variant), variant, benchmark)
        values, code = self._count(benchmark, variant, warmup, replicate)
        now = time.time()
        replicate.samples += [Sample(benchmark.name, variant.name, name, value, block, warmup=warmup, time=now)
                              for name, value in values.items()]
        count = values.get("instructions", next(iter(values.values()), 0.0))
        if not timed:
            replicate.samples.append(Sample(benchmark.name, variant.name, "exit_code", float(code), block,
                                            warmup=warmup, time=now))
        progress(f"{variant.name}: {count:.0f} {'instructions' if 'instructions' in values else 'counted'}")
        return replicate

    def profile(self, benchmark: Benchmark, variant: Variant, block: int, progress: ProgressFn) -> Profiled:
        """One profiled run of the variant's command (`--profile`; runners/command/profiled.py)."""
        if benchmark.name in self._duets:
            return Profiled(notice=Notice("profile", "--profile: not with --duet", "profile without --duet",
                                          benchmark.name), stop=True)
        return self._profiler.profile(self, benchmark, variant, block)

    def _add_rusage(self, replicate: Replicate, benchmark: Benchmark, variant: Variant, block: int,
                    warmup: bool) -> None:
        """The rusage counters of the timed run; its time metrics dropped when time is not measured."""
        measures = _measures(benchmark)
        if "time" not in measures:
            replicate.samples = [s for s in replicate.samples if s.metric not in _TIMED]
        outcome = self._last_outcome
        if outcome is None or not RUSAGE_COUNTERS & set(measures):
            return
        now = time.time()
        values = rusage_values(measures, outcome.faults, outcome.switches, outcome.user + outcome.sys)
        replicate.samples += [Sample(benchmark.name, variant.name, name, value, block, warmup=warmup, time=now)
                              for name, value in values.items()]

    def close(self) -> None:
        try:
            self._profiler.close()
            super().close()
            duets, self._duets = self._duets, {}
            for pair, _ in duets.values():
                pair.close()
        finally:
            if self._counter is not None:
                self._counter.close()
                self._counter = None

    def _count(self, benchmark: Benchmark, variant: Variant, warmup: bool,
               replicate: Replicate) -> tuple[dict[str, float], int]:
        """One counted run of the benchmark's command: (metric -> count, exit code)."""
        assert self._counter is not None, "prepare makes the counter"
        opts = benchmark.options
        command = expand_command(str(opts.get("command", "{variant}")), variant)
        run_command, path_first = self._shims.get((benchmark.name, variant.name), (command, ""))
        timeout = opts.get("timeout")
        outcome = self._run(run_command, variant, shell=self._shell_for(benchmark, variant),
                            timeout=float(timeout) * COUNTED_TIMEOUT_FACTOR if timeout else None,
                            path_first=path_first, keep_stdout=False, counter=self._counter)
        if outcome.timed_out or (outcome.exit_code != 0 and not failure_ignored(opts, outcome.exit_code)):
            what = "timed out" if outcome.timed_out else f"exited with code {outcome.exit_code}"
            tail = " ".join((outcome.stderr.tail or "").split())[-600:] or "(no output)"
            raise BenchmarkFailed(f"benchmark {benchmark.name!r}, variant {variant.name!r}: `{command}` under "
                                  f"{self._counter.source} {what}: {tail}")
        if outcome.exit_code != 0:
            replicate.notices.append(Notice("nonzero-exit", f"`{command}` exited with code {outcome.exit_code}",
                                            "", benchmark.name, variant.name))
        names = _counted(benchmark)
        if names == ("instructions",):
            values = {"instructions": float(self._counter.read())}
        else:
            values = counted_values(names, self._counter.read_events(), counters_simulated())
        if not warmup and "instructions" in values:
            self._check_repeatable(benchmark, variant, int(values["instructions"]), replicate)
        return values, outcome.exit_code

    def _check_repeatable(self, benchmark: Benchmark, variant: Variant, count: int, replicate: Replicate) -> None:
        """A notice the first time one variant's count changes between runs: the deltas are then not exact."""
        assert self._counter is not None
        seen = self._counts.setdefault((benchmark.name, variant.name), set())
        notice = vary_notice(self._counter, seen, float(count), benchmark.name, variant.name)
        if notice is not None:
            replicate.notices.append(notice)
