"""The live bar's total stays put and its ETA follows the blocks' pace (synthetic events, fake clock)."""

from __future__ import annotations

import io

from rich.console import Console

from pairbench.flows.progress import ProgressBar
from pairbench.model import Run, Variant
from pairbench.plan import Step
from pairbench.runners.base import Replicate


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _bar(clock: Clock, **bounds) -> ProgressBar:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    return ProgressBar(console, clock=clock, **bounds)


RUN = Run(metadata={}, variants=[Variant("a", baseline=True), Variant("b")], benchmarks=[])
STEP = Step("bench", "a", 0)


def _block(bar: ProgressBar, clock: Clock, done: int, planned: int, seconds: float, steps: int = 2) -> None:
    for _ in range(steps):
        clock.now += seconds / steps
        bar.step_done(STEP, Replicate(), warmup=False)
    bar.block_done(RUN, done, planned)


def test_under_max_time_the_total_is_the_budget_while_the_plan_grows_from_8_to_14() -> None:
    clock = Clock()
    bar = _bar(clock, max_time=30.0)
    bar.started(RUN, 8, 2)
    totals = [bar.total]
    _block(bar, clock, 1, 14, seconds=2.0)  # after the first block the session plans 14
    totals.append(bar.total)
    for done in range(2, 6):
        _block(bar, clock, done, 14, seconds=2.0)
        totals.append(bar.total)
    assert set(totals) == {30.0}
    assert bar.description() == "block 5 (min 8, ≤30 s)"
    assert bar.eta() == "≤ 18 s left"  # 9 blocks at 2 s, within the 20 s of budget left
    bar.close()


def test_the_eta_never_goes_past_the_budget() -> None:
    clock = Clock()
    bar = _bar(clock, max_time=10.0)
    bar.started(RUN, 8, 2)
    _block(bar, clock, 1, 100, seconds=2.0)
    assert bar.eta() == "≤ 8.0 s left"
    bar.close()


def test_a_fixed_run_counts_its_blocks_and_the_eta_excludes_the_warmups() -> None:
    clock = Clock()
    bar = _bar(clock)
    bar.started(RUN, 10, 2)
    clock.now += 50.0  # a slow warm-up
    bar.step_done(STEP, Replicate(), warmup=True)
    _block(bar, clock, 1, 10, seconds=3.0)
    _block(bar, clock, 2, 10, seconds=3.0)
    assert bar.total == 20.0 and bar.description() == "block 2/10"
    assert bar.eta() == "ETA 24 s"
    bar.close()


def test_max_runs_alone_counts_up_to_the_bound_from_the_start() -> None:
    clock = Clock()
    bar = _bar(clock, max_runs=40)
    bar.started(RUN, 10, 2)
    first = bar.total
    _block(bar, clock, 1, 40, seconds=1.0)
    assert first == bar.total == 80.0 and bar.description() == "block 1 of ≤40"
    assert bar.eta() == "≤ 39 s left"
    bar.close()


def test_off_a_terminal_a_line_at_most_every_30_s_and_none_for_a_shorter_run() -> None:
    from pairbench.flows.progress import ProgressLines

    clock = Clock()
    lines: list[str] = []
    observer = ProgressLines(lines.append, clock=clock)
    clock.now += 3600.0
    observer.status("preparing bench")  # before the run starts (a runner's prepare): no line
    assert lines == []
    observer.started(RUN, 10, 2)
    for done in range(1, 6):  # 25 s: no line yet
        _block(observer, clock, done, 10, seconds=5.0)
    assert lines == []
    for done in range(6, 21):  # 75 s more, a step every 2.5 s
        _block(observer, clock, done, 20, seconds=5.0)
        observer.status(f"bench · b · block {done + 1}")
    assert len(lines) == 3  # at 30, 60 and 90 s: never two within 30 s
    assert lines[0].startswith("pairbench: block ") and "30 s elapsed" in lines[0], lines[0]
    assert "ETA" in lines[-1] and "bench · b" in lines[-1], lines[-1]
    observer.finished(RUN)
    observer.close()
    assert len(lines) == 3


def test_observer_for_draws_the_bar_on_a_terminal_and_lines_off_one(monkeypatch) -> None:
    import sys

    from pairbench.flows.measure import observer_for
    from pairbench.flows.progress import ProgressLines

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert isinstance(observer_for("auto", True), ProgressLines)
    assert observer_for("auto", False) is None  # --no-progress
    assert observer_for("none", True) is None  # --style none: nothing but the results
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    bar = observer_for("auto", True)
    assert isinstance(bar, ProgressBar)
    bar.close()
