"""The live progress bar: blocks done, time left, and the current estimate for each candidate.

An observer of the session, so it lives on the CLI side: it follows the plan's steps and the
runners' replicates as they come, where reports only read a finished Run.
"""

from __future__ import annotations

import math

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pairbench.model import Run
from pairbench.plan import Step
from pairbench.runners.base import Replicate

__all__ = ["ProgressBar", "quick_estimates"]


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


class ProgressBar:
    """An Observer that draws a rich progress bar on stderr while the session runs."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=16),
            TimeElapsedColumn(),
            TextColumn("{task.fields[estimate]}"),
            TextColumn("[dim]{task.fields[status]}"),
            console=self._console,
            transient=True,
        )
        self._task: TaskID | None = None
        self._steps_per_block = 1

    def started(self, run: Run, planned_blocks: int, steps_per_block: int) -> None:
        self._steps_per_block = max(steps_per_block, 1)
        self._progress.start()
        self._task = self._progress.add_task(
            f"block 0/{planned_blocks}", total=planned_blocks * self._steps_per_block, estimate="", status=""
        )

    def step_done(self, step: Step, replicate: Replicate, warmup: bool) -> None:
        if self._task is not None and not warmup:
            self._progress.advance(self._task)

    def block_done(self, run: Run, blocks_done: int, planned_blocks: int) -> None:
        if self._task is None:
            return
        self._progress.update(
            self._task,
            total=planned_blocks * self._steps_per_block,
            completed=blocks_done * self._steps_per_block,
            description=f"block {blocks_done}/{planned_blocks}",
            estimate=quick_estimates(run),
        )

    def status(self, text: str) -> None:
        if self._task is not None:
            self._progress.update(self._task, status=text[:30])

    def finished(self, run: Run) -> None:
        self.close()

    def close(self) -> None:
        self._progress.stop()
