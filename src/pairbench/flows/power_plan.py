"""`--plan EFFECT`: how many blocks and how much time detecting a change would take, before measuring.

The noise comes from the newest stored calibration of every benchmark's primary metric on this
machine (`pairbench calibrate`; not with --no-history), or else from a short pilot: the run itself, measured for its -r
blocks (10 by default) with no adaptive stopping and nothing recorded in the history. The plan is
printed (report/power_plan.py) and nothing else is measured.
"""

from __future__ import annotations

import dataclasses
import socket
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from pairbench.analysis.power_plan import NoiseSource
    from pairbench.flows.settings import Measuring
    from pairbench.model import Run
    from pairbench.runners.base import Runner

__all__ = ["MIN_PILOT_BLOCKS", "plan_run"]

MIN_PILOT_BLOCKS = 3
"""A pilot needs 3 blocks at least for an SD of the log-ratios with 2 degrees of freedom."""


class _BlockClock:
    """Observer that notes when each pilot block ends, passing everything on to the progress view."""

    def __init__(self, inner: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
        self.clock = clock
        self.start = clock()
        self.ends: list[float] = []

    def started(self, run: Any, planned_blocks: int, steps_per_block: int) -> None:
        # `start` stays at construction, just before the session: preparing (micro's loop
        # calibration, builds) is part of what a run costs before its first block
        if self.inner is not None:
            self.inner.started(run, planned_blocks, steps_per_block)

    def step_done(self, step: Any, replicate: Any, warmup: bool) -> None:
        if self.inner is not None:
            self.inner.step_done(step, replicate, warmup)

    def block_done(self, run: Any, blocks_done: int, planned_blocks: int) -> None:
        self.ends.append(self.clock())
        if self.inner is not None:
            self.inner.block_done(run, blocks_done, planned_blocks)

    def status(self, text: str) -> None:
        if self.inner is not None:
            self.inner.status(text)

    def finished(self, run: Any) -> None:
        if self.inner is not None:
            self.inner.finished(run)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()

    def costs(self) -> tuple[float, float]:
        """(seconds a block, seconds before the first): the median gap between block ends, and the rest."""
        if not self.ends:
            return 0.0, 0.0
        gaps = sorted(b - a for a, b in zip(self.ends, self.ends[1:]))
        block = gaps[len(gaps) // 2] if gaps else self.ends[0] - self.start
        return block, max(self.ends[0] - self.start - block, 0.0)


def _calibrated(run: Run, history: str | None) -> tuple[dict[str, NoiseSource], float] | None:
    """Every benchmark's stored noise on this machine and the seconds a block of them all takes,
    or None when one has no calibration."""
    from pairbench.analysis.power_plan import NoiseSource
    from pairbench.errors import UserError
    from pairbench.store.calibrations import latest_calibration
    from pairbench.store.history import open_history

    host = str(run.metadata.get("hostname") or socket.gethostname())
    try:
        store = open_history(history, create=False)
    except (UserError, OSError):
        return None
    found: dict[str, NoiseSource] = {}
    block_s = 0.0
    with store:
        for bench in run.benchmarks:
            if not bench.metrics:
                return None
            rec = latest_calibration(store, host, bench.name, bench.metrics[0].name)
            if rec is None or not rec.ratio_sd > 0 or not rec.block_s > 0:
                return None
            when = time.strftime("%Y-%m-%d", time.localtime(rec.recorded_at))
            found[bench.name] = NoiseSource(rec.ratio_sd, rec.blocks, f"calibration #{rec.id} of {when}")
            block_s += rec.block_s * len(run.variants) / 2  # a calibration's block is A and its copy
    return found, block_s


def plan_run(run: Run, measuring: Measuring, effect: float, *, runners: Mapping[str, Runner] | None = None,
             kind_options: Mapping[str, Any] | None = None, fake: Any = None, observer: Any = None) -> int:
    """Print what detecting `effect` (a fraction) at 80% power takes for `run`; measure only a pilot.

    Returns:
        0: a plan is an answer, not a verdict.
    """
    from pairbench.analysis.power_plan import RunPlan, plan_comparisons
    from pairbench.errors import UserError
    from pairbench.report.display import console_for
    from pairbench.report.power_plan import render_plan
    from pairbench.runners.kinds import make_runners
    from pairbench.session import execute

    options = measuring.options
    if len(run.variants) < 2:
        raise UserError("--plan needs a baseline and at least one candidate to plan a comparison for")
    stored = _calibrated(run, options.history) if options.record_history else None
    if stored is not None:
        noise, block_s = stored
        plan = RunPlan(effect, plan_comparisons(run, effect, confidence=options.confidence,
                                                correction=options.correction, calibrated=noise), block_s, 0.0)
    else:
        if options.runs < MIN_PILOT_BLOCKS:
            raise UserError(f"--plan measures a pilot of -r blocks first: give -r {MIN_PILOT_BLOCKS} or more "
                            f"(got {options.runs})")
        pilot = dataclasses.replace(options, max_time=None, max_runs=None, default_bound=None, min_time=None,
                                    record_history=False, fail_on_regression=False)
        chosen = dict(runners) if runners is not None and fake is None else make_runners(run, pilot.seed,
                                                                                          kind_options, fake)
        clock = _BlockClock(observer)
        try:
            execute(run, chosen, pilot, observer=clock)
        finally:
            clock.close()
        block_s, startup_s = clock.costs()
        plan = RunPlan(effect, plan_comparisons(run, effect, confidence=options.confidence,
                                                correction=options.correction), block_s, startup_s)
    out = console_for(measuring.reports.style)
    out.print(render_plan(plan, options.confidence), end="", markup=False, highlight=False, soft_wrap=True)
    if stored is None:
        out.print(f"pilot run file: {run.metadata.get('run_file', '')}", markup=False, highlight=False,
                  soft_wrap=True)
    return 0
