"""Progress while a run measures: the live bar on a terminal (blocks done, time left, the current
estimate for each candidate), and a quiet line at most every 30 s elsewhere (a CI log, a file),
so that a long run off a terminal is not minutes of silence.

Observers of the session, so they live with the measuring flow: they follow the plan's steps and
the runners' replicates as they come, where reports only read a finished Run.
"""

from __future__ import annotations

import math
import sys
import time
from typing import TYPE_CHECKING, Callable

from pairbench.model import Run
from pairbench.plan import Step
from pairbench.runners.base import Replicate

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import TaskID

__all__ = ["ProgressBar", "ProgressLines", "quick_estimates", "LINE_EVERY_S"]

LINE_EVERY_S = 30.0
"""Off a terminal: seconds between progress lines (a run shorter than that prints none)."""


def quick_estimates(run: Run) -> str:
    """Geometric-mean ratio of each candidate to the baseline on the first benchmark's primary metric.

    A running point estimate only (no CI): the verdict comes from the full analysis at the end.
    """
    from pairbench.analysis import replicate_values

    if not run.benchmarks or not run.benchmarks[0].metrics:
        return ""
    bench = run.benchmarks[0]
    metric = bench.metrics[0]
    values = replicate_values(run, bench.name, metric.name)
    base = values.get(run.baseline.name, {})
    parts = []
    for variant in run.variants:
        if variant.name == run.baseline.name:
            continue
        cand = values.get(variant.name, {})
        logs = [math.log(cand[b] / base[b]) for b in cand if b in base and cand[b] > 0 and base[b] > 0]
        if logs:
            ratio = math.exp(sum(logs) / len(logs))
            parts.append(f"{variant.name} {ratio:.3f}×")
    return f"{bench.name}/{metric.name}: " + ", ".join(parts) if parts else ""


class _Pace:
    """The run's pace as the session reports it: blocks done of those planned, the time they
    took and what is left (shared by the bar and the lines)."""

    def __init__(self, *, max_time: float | None = None, max_runs: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._max_time = max_time
        self._max_runs = max_runs
        self._steps_per_block = 1
        self._start = 0.0
        self._measuring_start: float | None = None
        self._warmed = 0.0
        self._blocks = 0
        self._planned = 0
        self._minimum = 0

    @property
    def adaptive(self) -> bool:
        return self._max_time is not None or self._max_runs is not None

    def eta(self) -> str:
        """`ETA 12 s`, or `≤ 12 s left` when adaptive stopping may end the run sooner; '' before a block."""
        if self._blocks == 0 or self._measuring_start is None:
            return ""
        now = self._clock()
        per_block = (now - self._measuring_start) / self._blocks
        left = max(self._planned - self._blocks, 0) * per_block
        if self._max_time is not None:
            left = min(left, max(self._max_time - (now - self._start), 0.0))
        text = _duration(left)
        return f"≤ {text} left" if self.adaptive else f"ETA {text}"

    def description(self) -> str:
        """`block 3/10`; `block 3 of ≤40` with --max-runs; `block 3 (min 10, ≤60 s)` under --max-time
        or the default bound, where the budget, not a count, bounds the run."""
        if self._max_time is not None:  # the bound stated beside the ETA: until settled, at most this
            return f"block {self._blocks} (min {self._minimum}, ≤{self._max_time:g} s)"
        if self._max_runs is not None:
            return f"block {self._blocks} of ≤{self._max_runs}"
        return f"block {self._blocks}/{self._planned}"

    def _begin(self, planned_blocks: int, steps_per_block: int) -> None:
        self._steps_per_block = max(steps_per_block, 1)
        self._start = self._warmed = self._clock()
        self._minimum = planned_blocks
        self._planned = max(planned_blocks, self._max_runs or 0)

    def _stepped(self, warmup: bool) -> None:
        if warmup:  # the blocks' pace is measured from the end of the warm-ups
            self._warmed = self._clock()
        elif self._measuring_start is None:
            self._measuring_start = self._warmed


class ProgressLines(_Pace):
    """An Observer for a stderr that is no terminal: `pairbench: block 3/10, 1 min 00 s elapsed,
    ETA 2 min 20 s`, at most every `every` seconds and only as the session reports (so a run
    shorter than `every` prints nothing, and nothing is drawn over)."""

    def __init__(self, write: Callable[[str], None] | None = None, *, every: float = LINE_EVERY_S,
                 max_time: float | None = None, max_runs: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(max_time=max_time, max_runs=max_runs, clock=clock)
        self._write = write or (lambda text: print(text, file=sys.stderr, flush=True))
        self._every = every
        self._last: float | None = None
        """When the last line was printed (or the run started); None before it starts."""
        self._status = ""

    def started(self, run: Run, planned_blocks: int, steps_per_block: int) -> None:
        self._begin(planned_blocks, steps_per_block)
        self._last = self._start

    def step_done(self, step: Step, replicate: Replicate, warmup: bool) -> None:
        self._stepped(warmup)
        self._maybe()

    def block_done(self, run: Run, blocks_done: int, planned_blocks: int) -> None:
        self._blocks = blocks_done
        self._planned = planned_blocks
        self._maybe()

    def status(self, text: str) -> None:
        self._status = text
        self._maybe()

    def finished(self, run: Run) -> None:
        pass

    def close(self) -> None:
        pass

    def _maybe(self) -> None:
        now = self._clock()
        if self._last is None or now - self._last < self._every:
            return
        self._last = now
        parts = [self.description(), f"{_duration(now - self._start)} elapsed", self.eta()]
        line = "pairbench: " + ", ".join(p for p in parts if p)
        self._write(line + (f" · {self._status}" if self._status else ""))


class ProgressBar(_Pace):
    """An Observer that draws a rich progress bar on stderr while the session runs.

    The total never moves: a fixed run counts its -r blocks; with --max-runs alone, the blocks up
    to that bound; under --max-time, the bar is the time budget itself (adaptive stopping fixes
    its most blocks only after the first block, and the count used to jump from -r to that). The
    ETA is the blocks left at the mean block's cost, and never past the budget; `≤` says that an
    adaptive run may stop sooner.
    """

    def __init__(self, console: Console | None = None, *, max_time: float | None = None,
                 max_runs: int | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        # rich's progress only here: a run off a terminal (CI, a pipe) never loads it
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        super().__init__(max_time=max_time, max_runs=max_runs, clock=clock)
        self._console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=16),
            TimeElapsedColumn(),
            TextColumn("{task.fields[eta]}"),
            TextColumn("{task.fields[estimate]}"),
            TextColumn("[dim]{task.fields[status]}"),
            console=self._console,
            transient=True,
            get_time=clock,
        )
        self._task: TaskID | None = None

    @property
    def total(self) -> float:
        """The bar's total: seconds of the budget under --max-time, else replicates."""
        if self._max_time is not None:
            return self._max_time
        blocks = self._max_runs if self._max_runs is not None else self._planned
        return float(max(blocks, 1) * self._steps_per_block)

    def started(self, run: Run, planned_blocks: int, steps_per_block: int) -> None:
        self._begin(planned_blocks, steps_per_block)
        self._progress.start()
        self._task = self._progress.add_task(self.description(), total=self.total, estimate="", status="", eta="")

    def step_done(self, step: Step, replicate: Replicate, warmup: bool) -> None:
        if self._task is None:
            return
        self._stepped(warmup)
        if warmup:
            return
        if self._max_time is not None:
            self._progress.update(self._task, completed=min(self._clock() - self._start, self._max_time))
        else:
            self._progress.advance(self._task)

    def block_done(self, run: Run, blocks_done: int, planned_blocks: int) -> None:
        if self._task is None:
            return
        self._blocks = blocks_done
        self._planned = planned_blocks
        done = (min(self._clock() - self._start, self._max_time) if self._max_time is not None
                else blocks_done * self._steps_per_block)
        self._progress.update(self._task, total=self.total, completed=done, description=self.description(),
                              estimate=quick_estimates(run), eta=self.eta(), refresh=True)

    def status(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, status=text[:30])

    def finished(self, run: Run) -> None:
        self.close()

    def close(self) -> None:
        self._progress.stop()


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
