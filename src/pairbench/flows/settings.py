"""The typed settings every measuring command shares, built once from its flags.

A command turns its flags into a `Measuring` (how much to measure and how to judge it, what to show,
whether to show progress, scripted timings) and hands it with a Run to the measuring flow
(flows/measure.py); the Python API builds the same values from keyword options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pairbench.session import RunOptions

__all__ = ["RunOptions", "Reports", "Measuring"]


@dataclass(frozen=True, slots=True)
class Reports:
    """What to show once the run is measured."""

    sweeps: bool = False
    """The sweep tables (a suite with sweeps)."""
    suite_summary: bool = False
    """The one-line-per-benchmark summary (several benchmarks)."""
    exports: tuple[tuple[str, str], ...] = ()
    """(format, target) written after the terminal report: ("markdown", "-"), ("html", "r.html")."""
    title: str = "pairbench report"
    style: str = "auto"
    """hyperfine's --style (report/display.py): colour, or no output at all with `none`."""
    time_unit: str | None = None
    """hyperfine's --time-unit: every time in this unit (None: chosen per value)."""
    sort: str = "auto"
    """hyperfine's --sort: the order of the variants in the tables."""
    verbose: bool = False
    """-v: every metric's row, each comparison's notes and every notice (default: the short answer)."""
    export_folded: str | None = None
    """--export-folded DIR: the profiles' folded stacks, a file per variant and per difference."""


@dataclass(frozen=True, slots=True)
class Measuring:
    """The shared measuring flags of a command, typed: a Run plus these is a whole measuring request."""

    options: RunOptions = field(default_factory=RunOptions)
    """How much to measure and how to judge it (blocks, budget, band, run file, history)."""
    reports: Reports = Reports()
    """What to show and export once measured."""
    progress: bool = True
    """The live progress bar on a terminal (False: --no-progress)."""
    fake: tuple[float, ...] | None = None
    """--debug-fake: scripted timings (variant i takes F_i times the first one's), no process runs."""
    auto_threshold: bool = False
    """--threshold auto: the band comes from the newest stored calibration (flows/calibrate.py)."""
    plan: float | None = None
    """--plan EFFECT (a fraction): print the blocks and time that detecting it takes, from a pilot or a
    stored calibration, and measure nothing more (flows/power_plan.py)."""
