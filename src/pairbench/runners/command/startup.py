"""A shell's own start-up: what is taken off a command's times when a shell runs it, and the notices.

Why the fastest of the shell's runs of an empty command, not their median (hyperfine's): half of
the shell's own runs exceed its median, so a command about as short as the start-up read below 0
in about half its runs on a loaded machine (`sh -c true`: 98 of 200 runs, and the median of 10
runs in 10 of 20 trials, at load 6 on 2 cores). The fastest is a lower bound of the shell's cost:
taking it off, never more than the run took, no time reads below 0 (8 of 200 runs read 0, no
trial's median did), and a 5 ms command still reads 5 ms above `:`. A run whose remainder lies
within the start-up's spread (fastest to 90th percentile) is mostly the shell's noise: said once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pairbench.model import Notice

__all__ = ["CALIBRATION_RUNS", "SPREAD_QUANTILE", "ShellCost", "shell_cost", "shell_notices", "spread_notice"]

CALIBRATION_RUNS = 30
"""Runs of `SHELL -c ''` that measure the shell's start-up (hyperfine uses 50)."""
SPREAD_QUANTILE = 0.9
"""The quantile of those runs up to which a run's remainder counts as the shell's own noise."""


@dataclass(frozen=True, slots=True)
class ShellCost:
    """A shell's start-up, from its runs of an empty command."""

    wall: float
    """The fastest run's wall time, s: taken off each run of a command through this shell."""
    user: float
    """The least user CPU time of those runs, s."""
    sys: float
    """The least system CPU time of those runs, s."""
    spread: float
    """From the fastest run to the SPREAD_QUANTILE, s: a remainder below it is the shell's noise."""

    def net(self, wall: float, user: float, sys: float) -> tuple[float, float, float]:
        """A run's (wall, user, sys) with the shell's start-up taken off, each down to 0 at most."""
        return wall - min(self.wall, wall), user - min(self.user, user), sys - min(self.sys, sys)

    def within_spread(self, wall: float) -> bool:
        """The run's remainder is within the start-up's spread: mostly the shell's own noise."""
        return wall - self.wall < self.spread


def shell_cost(runs: Sequence[tuple[float, float, float]]) -> ShellCost:
    """The ShellCost of the shell's (wall, user, sys) runs of an empty command."""
    walls = sorted(r[0] for r in runs)
    upper = walls[int(SPREAD_QUANTILE * (len(walls) - 1))]
    return ShellCost(wall=walls[0], user=min(r[1] for r in runs), sys=min(r[2] for r in runs), spread=upper - walls[0])


def shell_notices(benchmark: str, variants: Sequence[str], shelled: Sequence[str], shell: str,
                  cost: ShellCost | None, chosen: bool) -> list[Notice]:
    """Which variants ran directly and which through `shell` (for the run file and the report).

    Args:
        benchmark: the benchmark's name.
        variants: every variant's name.
        shelled: the names of those that ran through the shell.
        shell: the shell's command line (`sh`, `bash --norc`).
        cost: its measured start-up (None when no variant needed it).
        chosen: the user named the shell (-S), rather than the default taking it for shell syntax.
    """
    direct = [v for v in variants if v not in shelled]
    notices = []
    if direct:
        notices.append(Notice("no-shell", "ran directly, without a shell (no shell syntax): nothing is subtracted"
                              + _which(direct, variants), "", benchmark))
    if shelled and cost is not None:
        why = "" if chosen else " (shell syntax)"
        notices.append(Notice(
            "shell", f"ran through `{shell} -c`{why}: its fastest start-up in {CALIBRATION_RUNS} runs "
            f"({_ms(cost.wall)}) is taken off each run, never below 0" + _which(shelled, variants), "", benchmark))
    return notices


def spread_notice(benchmark: str, command: str, shell: str, cost: ShellCost) -> Notice:
    """A run shorter than the spread of the shell's start-up: its times are mostly the shell's noise."""
    return Notice(
        "shell-startup",
        f"`{command}` is shorter than the spread of {shell}'s start-up ({_ms(cost.wall)} to "
        f"{_ms(cost.wall + cost.spread)} in {CALIBRATION_RUNS} runs), whose fastest is taken off each run: "
        "its times are mostly the shell's own noise, and a run quicker than that start-up reads 0",
        "run it without a shell (-N, or drop the shell syntax) or make each run longer", benchmark)


def _which(names: Sequence[str], variants: Sequence[str]) -> str:
    """`: A, B` when not every variant is meant."""
    return "" if len(names) == len(variants) else ": " + ", ".join(names)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"
