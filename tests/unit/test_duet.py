"""`--duet` scheduling without processes: CPUs, start order, and one simultaneous pair per block."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from pairbench.errors import UserError
from pairbench.model import Benchmark, Metric, Sample, Variant
from pairbench.runners.base import Replicate
from pairbench.runners.command.duet import DuetPair
from pairbench.runners.kinds import get_kind
from pairbench.runners.options import Flags

A, B = Variant("A", "a", baseline=True), Variant("B", "b")
BENCH = Benchmark("loop", "command", (Metric("time"),), {"command": "{variant}", "duet": True})


class _Side:
    """A command runner stand-in: one launcher pid, records what it measured."""

    pids = iter(range(1000, 2000))

    def __init__(self, log: list[tuple[str, int, bool]], barrier: threading.Barrier) -> None:
        self.pid = next(self.pids)
        self.log, self.barrier, self.closed = log, barrier, False

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list:
        assert benchmark.options["duet"] is False  # each side measures alone
        return []

    def _spawner_process(self) -> SimpleNamespace:
        return SimpleNamespace(pid=self.pid)

    def measure(self, benchmark, variant, block, warmup, progress) -> Replicate:
        self.barrier.wait(timeout=10)  # both sides must be running at once, or this times out
        self.log.append((variant.name, block, warmup))
        return Replicate(samples=[Sample(benchmark.name, variant.name, m, v, block, warmup=warmup)
                                  for m, v in (("time", 0.03), ("user", 0.02), ("sys", 0.005))])

    def close(self) -> None:
        self.closed = True


def _pair() -> tuple[DuetPair, list, list]:
    log: list = []
    pins: list = []
    barrier = threading.Barrier(2)
    sides: list[_Side] = []

    def make() -> _Side:
        sides.append(_Side(log, barrier))
        return sides[-1]

    pair = DuetPair(make, (0, 1), pin=lambda pid, cpus: pins.append((pid, cpus)))
    pair.prepare(BENCH, [A, B])
    return pair, log, pins


def test_cpus_swap_every_block_and_the_first_started_side_every_other_block() -> None:
    pair, _, _ = _pair()
    plans = [pair.plan(b) for b in range(4)]
    assert [p[1] for p in plans] == [{"A": 0, "B": 1}, {"A": 1, "B": 0}, {"A": 0, "B": 1}, {"A": 1, "B": 0}]
    assert [p[0][0] for p in plans] == ["A", "A", "B", "B"]
    # over four blocks each variant starts first once on each CPU
    assert sorted((first, cpus[first]) for (first, _), cpus in plans) == [("A", 0), ("A", 1), ("B", 0), ("B", 1)]


def test_the_first_request_of_a_block_measures_both_at_once_and_the_second_is_served_from_it() -> None:
    pair, log, pins = _pair()
    variants = {"A": A, "B": B}
    got_b = pair.measure(BENCH, B, 1, False, lambda _t: None, variants)
    assert sorted(log) == [("A", 1, False), ("B", 1, False)]
    pids = {pid: cpus for pid, cpus in pins}
    assert sorted(pids.values(), key=min) == [{0}, {1}]  # one launcher per CPU
    got_a = pair.measure(BENCH, A, 1, False, lambda _t: None, variants)
    assert len(log) == 2  # no third run
    assert {s.variant for s in got_a.samples} == {"A"} and {s.variant for s in got_b.samples} == {"B"}
    cpu = next(s for s in got_a.samples if s.metric == "cpu")
    assert cpu.value == pytest.approx(0.025)  # user + sys, the CPU time both sides are compared on too
    pair.close()


def test_duet_takes_exactly_two_variants_and_adds_cpu_time() -> None:
    pair = DuetPair(lambda: None, (0, 1), pin=lambda pid, cpus: None)
    with pytest.raises(UserError, match="--duet compares exactly 2 variants"):
        pair.prepare(BENCH, [A, B, Variant("C", "c")])
    kind = get_kind("command")
    typed = kind.parse_options({"command": "{variant}", "duet": True}, Flags({"duet": "--duet"}))
    assert [m.name for m in kind.metrics(typed, ())][:2] == ["time", "cpu"]


def test_runs_shorter_than_the_shells_start_up_are_said_once_for_both_sides() -> None:
    """Each side's runner says it once; the pair, measuring one benchmark, says it once in all."""
    from pairbench.model import Notice

    pair, _, _ = _pair()
    for side in pair.runners.values():
        measure = side.measure

        def noisy(benchmark, variant, block, warmup, progress, measure=measure, said=[]):
            r = measure(benchmark, variant, block, warmup, progress)
            if not said:  # as CommandRunner: once per runner
                said.append(True)
                r.notices.append(Notice("shell-startup", f"`{variant.command}` is shorter than ...", "", "loop"))
            return r

        side.measure = noisy
    variants = {"A": A, "B": B}
    got = [pair.measure(BENCH, v, block, False, lambda _t: None, variants) for block in (0, 1) for v in (A, B)]
    assert sum(n.kind == "shell-startup" for r in got for n in r.notices) == 1
