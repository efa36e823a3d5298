"""Which clock timed a micro benchmark, and a warning when the other one tells a different story.

Why: a plain snippet is timed by the worker's CPU time (blind to other processes on a shared
machine), and an op that sleeps or waits spends its time off the CPU: `time.sleep(0.001)` read
23 µs per op. The harness reads both clocks around its samples (four reads per worker), so an op
whose wall time far exceeds its CPU time is said, with the flag that times it by the wall.
"""

from __future__ import annotations

from typing import Any, Mapping

from pairbench.model import Benchmark, Notice

__all__ = ["WAITING_FACTOR", "clock_notice"]

WAITING_FACTOR = 10.0
"""Wall time over CPU time beyond which an op is said to wait. A busy machine (load 6 on 2
cores) stretches the wall time of pure CPU work about 3-4x; a 1 ms sleep is 40x or more."""


def clock_notice(benchmark: Benchmark, clocks: Any) -> Notice | None:
    """The warning for a benchmark timed by CPU time whose wall time is WAITING_FACTOR times more,
    from the harness's `clocks` ({"clock", "wall", "cpu", "loops"}), or None."""
    if not isinstance(clocks, Mapping) or clocks.get("clock") != "cpu":
        return None
    try:
        wall, cpu, loops = float(clocks["wall"]), float(clocks["cpu"]), max(int(clocks.get("loops") or 1), 1)
    except (KeyError, TypeError, ValueError):
        return None
    if wall <= WAITING_FACTOR * max(cpu, 1e-9) or wall < 1e-3:
        return None
    return Notice(
        "micro-clock",
        f"micro benchmark {benchmark.name!r}: timed by CPU time (--clock cpu, the default for code that does "
        f"not await), {_seconds(cpu / loops)} per op, while its wall time is {_seconds(wall / loops)} per op "
        f"({wall / max(cpu, 1e-9):.0f}x): the op sleeps, waits for I/O or other processes, or runs threads, "
        "and CPU time leaves that out",
        "give --clock wall to time what it waits for, or clock = \"wall\" in a suite; keep --clock cpu to "
        "time its CPU work alone",
        benchmark.name)


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"
