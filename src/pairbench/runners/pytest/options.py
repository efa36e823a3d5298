"""Typed options of kind "pytest", parsed once from a mapping (a suite table, or flags)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from pairbench.runners.option_fields import Where, check_keys, read_choice, read_int, read_number, read_string, read_strings

__all__ = ["PytestOptions", "parse_pytest_options"]


@dataclass(frozen=True, slots=True)
class PytestOptions:
    """One test of a pytest-benchmark suite, timed in each variant's interpreter (runners/pytest/runner.py)."""

    nodeid: str = ""
    """The test's pytest node id (`bench/test_x.py::test_y[param]`); empty for the runner's defaults."""
    paths: tuple[str, ...] = ()
    """What pytest is given to collect (files, directories), as on its command line."""
    args: tuple[str, ...] = ()
    """More pytest arguments (`-- ARGS`), given to every worker."""
    cwd: str | None = None
    """The directory pytest runs in (default: the current one); node ids are relative to its rootdir."""
    loops: int | None = None
    """A fixed loop count per sample (skips calibration); otherwise calibrated once, shared by every variant."""
    samples: int = 5
    """Measured samples per process."""
    warmup: int = 1
    """Warm-up samples per process, discarded."""
    target_time: float = 0.1
    """Seconds per sample the loop count is calibrated to."""
    clock: str = "wall"
    """wall (pytest-benchmark's perf_counter: tests may wait or use threads) or cpu (the worker's CPU time)."""
    measure: str = "time"
    """time (time per call) or track (asv's track_*: the number the benchmark returns, once per process)."""
    unit: str = ""
    """track: the unit of the number (asv's `unit` attribute)."""


def parse_pytest_options(m: Mapping[str, Any], where: Where) -> PytestOptions:
    """Typed pytest options: the test's node id, what pytest collects, and the sample plan."""
    check_keys(m, tuple(f.name for f in dataclasses.fields(PytestOptions)), where, "pytest")
    return PytestOptions(
        nodeid=read_string(m, "nodeid", where, "") or "",
        paths=read_strings(m, "paths", where),
        args=read_strings(m, "args", where),
        cwd=read_string(m, "cwd", where, None, empty=False),
        loops=read_int(m, "loops", where, None, 1),
        samples=read_int(m, "samples", where, 5, 2) or 5,
        warmup=read_int(m, "warmup", where, 1, 0) or 0,
        target_time=read_number(m, "target_time", where, 0.1, positive=True) or 0.1,
        clock=read_choice(m, "clock", where, ("wall", "cpu")),
        measure=read_choice(m, "measure", where, ("time", "track")),
        unit=read_string(m, "unit", where, "") or "",
    )
