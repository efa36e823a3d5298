"""`--duet`: the baseline and the candidate run at the same time, one per CPU.

Duet benchmarking (Bulej, Horký, Tůma et al., "Duet benchmarking: improving measurement accuracy
in the cloud", ICPE 2020): two versions run simultaneously on one machine, so the machine's phases
(frequency, noisy neighbours, a VM's steal) hit both at once, and the paired analysis pairs the
two simultaneous runs of a block. Each variant has its own command runner (its own launcher
process); for every block both launchers are pinned with `os.sched_setaffinity`, each to its own
CPU, the CPUs swapped every block and the side started first alternated every other block (on
this kind of machine the side started first read ~4% slower without the alternation). The
session asks for one variant at a time: the first request of a block measures both, the second
is answered from that pair.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Callable

from pairbench.errors import UserError
from pairbench.model import Benchmark, Metric, Notice, Sample, Variant
from pairbench.runners.base import ProgressFn, Replicate

__all__ = ["CPU_METRIC", "DuetPair", "duet_cpus"]

CPU_METRIC = Metric("cpu", "s", "lower", description="user + system CPU time (duet: less sensitive to the partner)")

THREADED_CPU_PER_WALL = 1.2
"""CPU time above this share of wall time means the command runs threads in parallel."""

CAUTION = ("duet runs both variants at once, each pinned to one CPU: a multi-threaded command competes with its "
           "partner, and memory-bandwidth-bound work slows both sides (it interferes with itself)")


def duet_cpus() -> tuple[int, int]:
    """Two CPUs this process may use; a UserError when it has fewer."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise UserError(f"--duet needs 2 CPUs, one per variant; this process may use {len(cpus)} "
                        "(check taskset or the container's CPU limit), or drop --duet")
    return cpus[0], cpus[1]


class DuetPair:
    """Two variants of one benchmark measured side by side, one runner (and launcher) each."""

    def __init__(self, make: Callable[[], object], cpus: tuple[int, int],
                 pin: Callable[[int, set[int]], None] = os.sched_setaffinity) -> None:
        self._make = make
        self.cpus = cpus
        self._pin = pin
        self.runners: dict[str, object] = {}
        self.order: list[str] = []
        self._pending: dict[tuple[int, bool, str], Replicate] = {}
        self._threaded: set[str] = set()
        self._startup_said = False
        """A side's runner said its runs are shorter than the shell's start-up spread (said once for both)."""
        self._solo: Benchmark | None = None
        """The benchmark as each side's own runner sees it (without duet)."""

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        if len(variants) != 2:
            raise UserError(f"--duet compares exactly 2 variants side by side, one per CPU; benchmark "
                            f"{benchmark.name!r} has {len(variants)}: drop --duet or compare two at a time")
        notices = [Notice("duet", f"{CAUTION}; CPUs {self.cpus[0]} and {self.cpus[1]}", "", benchmark.name)]
        self.order = [v.name for v in variants]
        self._solo = dataclasses.replace(benchmark, options={**benchmark.options, "duet": False})
        for v in variants:
            runner = self.runners.get(v.name) or self._make()
            self.runners[v.name] = runner
            # each runner knows one variant: a notice both give (the same shell, say) is kept once
            notices.extend(n for n in runner.prepare(self._solo, [v]) if n not in notices)  # type: ignore[attr-defined]
        return notices

    def plan(self, block: int) -> tuple[tuple[str, str], dict[str, int]]:
        """(the variant started first, the other) and each variant's CPU in `block`.

        The CPUs swap every block; the side started first alternates every other block, so that
        over four blocks each variant starts first on each CPU once.
        """
        index = abs(block) // 2 % 2
        cpu_of = {name: self.cpus[(i + block) % 2] for i, name in enumerate(self.order)}
        return (self.order[index], self.order[1 - index]), cpu_of

    def measure(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool, progress: ProgressFn,
                variants: dict[str, Variant]) -> Replicate:
        key = (block, warmup, variant.name)
        if key in self._pending:
            return self._pending.pop(key)
        (first, second), cpu_of = self.plan(block)
        results: dict[str, Replicate | BaseException] = {}
        # Launchers are started (and pinned) here, in the calling thread: a launcher asks the
        # kernel for SIGTERM when the thread that started it ends (PR_SET_PDEATHSIG).
        for name in self.order:
            self._pin(self.runners[name]._spawner_process().pid, {cpu_of[name]})  # type: ignore[attr-defined]

        def one(name: str) -> None:
            runner = self.runners[name]
            try:
                results[name] = runner.measure(self._solo, variants[name], block, warmup,  # type: ignore[attr-defined]
                                               lambda _text: None)
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                results[name] = exc

        threads = [threading.Thread(target=one, args=(name,)) for name in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results.values():
            if isinstance(r, BaseException):
                raise r
        for name, r in results.items():
            assert isinstance(r, Replicate)
            self._add_cpu(benchmark, name, r)
            if any(n.kind == "shell-startup" for n in r.notices):
                if self._startup_said:
                    r.notices[:] = [n for n in r.notices if n.kind != "shell-startup"]
                self._startup_said = True
            if name != variant.name:
                self._pending[(block, warmup, name)] = r
        progress(f"duet block {block}: {first} and {second}")
        mine = results[variant.name]
        assert isinstance(mine, Replicate)
        return mine

    def _add_cpu(self, benchmark: Benchmark, name: str, r: Replicate) -> None:
        """The `cpu` sample (user + sys) and, once per variant, a notice when the command ran threads."""
        got = {s.metric: s for s in r.samples}
        if "user" not in got or "sys" not in got:
            return
        u, s = got["user"], got["sys"]
        r.samples.append(Sample(u.benchmark, u.variant, "cpu", u.value + s.value, u.block, warmup=u.warmup,
                                time=u.time))
        wall = got["time"].value if "time" in got else 0.0
        if wall > 0 and (u.value + s.value) > THREADED_CPU_PER_WALL * wall and name not in self._threaded:
            self._threaded.add(name)
            r.notices.append(Notice("duet-threads", f"the command used {(u.value + s.value) / wall:.1f}x its wall time "
                                    "in CPU time: it runs threads, which compete with the partner pinned beside it",
                                    "drop --duet for multi-threaded commands", benchmark.name, name))

    def close(self) -> None:
        for runner in self.runners.values():
            runner.close()  # type: ignore[attr-defined]
        self.runners = {}
