"""`--max-time` as a bound on the whole run, and the sentence that says why a run stopped.

The rule (README, docs/runfile.md): `--max-time T` bounds the whole run, preparation and warm-ups
included. `-r N` is the fewest blocks adaptive stopping may stop at, and must fit in T: the first
replicates' cost (the warm-ups, else the first block) plans the rest, and when the minimum plainly
cannot fit, the run stops at once with the time it would need. Afterwards a block starts only
when its expected cost (the larger of the last block's and the mean block's) still fits.

The profiling blocks of `--profile` are outside the budget: they add no timed sample, and a
sampler's slowdown (callgrind's 50x) would otherwise eat the timed blocks' time silently. Their
seconds are counted apart (`excluded_s`) and the stop note gives them and the total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pairbench.errors import BudgetTooSmall

__all__ = ["Budget", "WARMUP_SLACK"]

WARMUP_SLACK = 2.0
"""Warm-ups are often slower than later runs (cold caches, JIT): from them alone, the minimum is
refused only when it needs more than twice the budget; from a measured block, beyond the budget."""


@dataclass(slots=True)
class Budget:
    """The time budget of one run and what its steps and blocks have cost so far."""

    max_time: float | None
    """Seconds for the whole run, or None for a fixed number of blocks."""
    min_blocks: int
    """-r: blocks to measure at least (exactly, without --max-time)."""
    steps_per_block: int
    """Replicates in one block: benchmarks × variants."""
    start: float
    """The clock when the run started."""
    step_costs: list[float] = field(default_factory=list)
    block_costs: list[float] = field(default_factory=list)
    look_cost: float = 0.0
    """Seconds the last interim analysis (adaptive look) took."""
    default_bound: float | None = None
    """Seconds that bound adaptive stopping by default (no -r, --max-time or -M): it plans the most
    blocks, but never refuses the -r minimum."""
    excluded_s: float = 0.0
    """Seconds spent outside the budget: the profiling blocks (`--profile`)."""

    def elapsed(self, now: float) -> float:
        """Seconds the budget has spent by `now` (the profiling blocks left out)."""
        return now - self.start - self.excluded_s

    def block_estimate(self) -> float:
        """Expected seconds of the next block."""
        if self.block_costs:
            return max(self.block_costs[-1], sum(self.block_costs) / len(self.block_costs))
        mean = sum(self.step_costs) / len(self.step_costs) if self.step_costs else 0.0
        return mean * self.steps_per_block

    def check_minimum(self, now: float, steps_left: int) -> None:
        """Raise BudgetTooSmall when the `steps_left` replicates up to the minimum cannot fit in the budget.

        Args:
            now: the clock now.
            steps_left: replicates (warm-ups included) still to run before -r blocks are complete.
        """
        if self.max_time is None or not self.step_costs:
            return
        elapsed = self.elapsed(now)
        per_step = (self.block_estimate() / self.steps_per_block if self.block_costs
                    else sum(self.step_costs) / len(self.step_costs))
        need = elapsed + steps_left * per_step
        limit = self.max_time if self.block_costs else self.max_time * WARMUP_SLACK
        if need <= limit and elapsed <= self.max_time:
            return
        suggestion = math.ceil(need * 1.2)
        raise BudgetTooSmall(
            f"--max-time {self.max_time:g} s cannot fit the minimum of {self.min_blocks} blocks (-r): a block "
            f"(each variant once) takes about {_seconds(per_step * self.steps_per_block)}, so the run would "
            f"need about {_seconds(need)} ({_seconds(elapsed)} spent); raise --max-time to {suggestion} or lower -r"
        )

    def next_block_fits(self, now: float, before: float = 0.0) -> bool:
        """Whether another block, at its expected cost, after `before` seconds of other work, ends in the budget."""
        limit = self.max_time if self.max_time is not None else self.default_bound
        if limit is None:
            return True
        return self.elapsed(now) + before + self.block_estimate() <= limit

    def stop_reason(self, now: float, blocks: int, why: str, max_blocks: int | None = None) -> str:
        """One line: how many blocks, the true elapsed time, and why measuring stopped.

        Args:
            why: `settled`, `budget` (the next block would not fit), `planned` (the most blocks
                planned: --max-runs or what the budget affords) or `fixed` (-r without --max-time).
        """
        return self._stop_reason(now, blocks, why, max_blocks) + (
            f"; the profiling blocks took {_seconds(self.excluded_s)} more, outside the budget "
            f"({_seconds(now - self.start)} in all)" if self.excluded_s > 0 else "")

    def _stop_reason(self, now: float, blocks: int, why: str, max_blocks: int | None) -> str:
        head = f"measured {blocks} block{'s' if blocks != 1 else ''} in {_seconds(self.elapsed(now))}"
        if why == "fixed":
            return f"{head}: the {self.min_blocks} asked for (-r)"
        if self.max_time is not None:
            budget = f"--max-time {self.max_time:g} s"
        elif self.default_bound is not None:
            budget = f"the default bound {self.default_bound:g} s"
        else:
            budget = "--max-runs"
        if why == "settled":
            return f"{head} of {budget}: stopped early at a planned look"
        if self.max_time is None and self.default_bound is not None and why in ("planned", "budget"):
            return f"{head}: the most {budget} affords (--max-time for more)"
        if why == "planned":
            return f"{head} of {budget}: the most planned ({max_blocks}, from --max-runs or the budget)"
        short = f", short of the minimum {self.min_blocks} (-r)" if blocks < self.min_blocks else ""
        return (f"{head} of {budget}: another block (~{_seconds(self.block_estimate())}) would not fit"
                f"{short}")


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 100 else f"{value:.0f} s"
