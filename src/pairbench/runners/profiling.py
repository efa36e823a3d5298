"""The profiling blocks of a run (`--profile N`): each variant profiled once per block, apart from
the timed blocks, in an interleaved order of its own.

The session runs one profiling block after each of the first N timed blocks (and any left over
after the last), with the steps `plan.plan_block` gives from a random source of its own: the timed
blocks' order, samples and verdict are the same with or without `--profile`. A runner that can
profile has a `profile` method (runners/base.py `Profiled`); a kind without one, or a benchmark its
sampler cannot profile, gets one notice and no more profiling blocks.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from pairbench.model import Notice, Run
from pairbench.runners.base import ProgressFn, Runner

__all__ = ["ProfilingBlocks"]


class ProfilingBlocks:
    """Counts the profiling blocks run and the benchmarks given up on."""

    def __init__(self, count: int) -> None:
        self.count = count
        """Profiling blocks asked for."""
        self.done = 0
        self._stopped: set[str] = set()

    @property
    def left(self) -> int:
        return max(self.count - self.done, 0)

    def run_block(self, run: Run, runners: Mapping[str, Runner], steps: Iterable[tuple[str, str]],
                  progress: ProgressFn) -> None:
        """Profile each (benchmark, variant) of one block, in the order given; add profiles and notices to `run`."""
        for bench_name, variant_name in steps:
            if bench_name in self._stopped:
                continue
            bench = run.benchmark(bench_name)
            profile: Any = getattr(runners[bench.kind], "profile", None)
            if profile is None:
                self._stopped.add(bench_name)
                run.notices.append(Notice("profile", f"--profile: no profiler for the {bench.kind} kind yet",
                                          "profile `pairbench cmd` runs of the same program", bench_name))
                continue
            variant = next(v for v in run.variants if v.name == variant_name)
            progress(f"profiling {variant.name}")
            result = profile(bench, variant, self.done, progress)
            if result.profile is not None:
                run.profiles.append(result.profile)
            if result.notice is not None:
                run.notices.append(result.notice)
            if result.stop:
                self._stopped.add(bench_name)
        self.done += 1
