"""Whether a JIT has settled within a process: the `not-settled` warning.

A JIT still warming up makes each measured sample faster than the one before, whatever the number
of warm-up samples before them. One falling process is chance (1 in k! under pure noise), so the
warning is given when it is the pattern: it says to raise --warmup-samples so that warm-up samples
absorb the warm-up.
"""

from __future__ import annotations

from typing import Sequence

from pairbench.model import Notice

__all__ = ["SETTLE_DROP", "SETTLE_PROCESSES", "SettleCheck", "unsettled"]

SETTLE_DROP = 0.10
"""A process is flagged when its measured samples fall monotonically by more than this fraction."""
SETTLE_PROCESSES = 3
"""... and warned about when at least this many processes, and at least two thirds of them, show it."""


def unsettled(times: Sequence[float]) -> bool:
    """True when measured samples still trend down (a JIT not yet at steady state).

    A monotonic fall over at least three samples that totals more than SETTLE_DROP: noise on a
    settled process goes both ways, warm-up only one.
    """
    if len(times) < 3:
        return False
    falling = all(b < a for a, b in zip(times, times[1:]))
    return falling and times[-1] < times[0] * (1 - SETTLE_DROP)


class SettleCheck:
    """Per benchmark and variant: the processes seen and those still falling; the warning once."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], list[int]] = {}
        self._warned: set[tuple[str, str]] = set()

    def add(self, benchmark: str, variant: str, times: Sequence[float], loops: int) -> Notice | None:
        """Count one process's measured sample times (seconds per sample of `loops` ops); the
        `not-settled` notice the first time most processes still fell."""
        key = (benchmark, variant)
        counts = self._counts.setdefault(key, [0, 0])
        counts[0] += 1
        counts[1] += int(unsettled(times))
        if counts[1] < SETTLE_PROCESSES or 3 * counts[1] < 2 * counts[0] or key in self._warned:
            return None
        self._warned.add(key)
        return Notice(
            "not-settled", f"micro benchmark {benchmark!r} on {variant!r}: time per op still falling across the "
            f"measured samples ({times[0] / loops:.3g} s -> {times[-1] / loops:.3g} s); in {counts[1]} of "
            f"{counts[0]} processes; the JIT may not have reached a steady state",
            "raise --warmup-samples so warm-up samples absorb it", benchmark, variant)
