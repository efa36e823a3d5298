"""How many samples one micro worker process takes, warm-up and measured, and of what length.

A given number wins: the benchmark's options (a suite's keys, or the flags copied into them), then
the runner's (the flags). Else the measured samples are the run's sample plan (sample_plan.py)
and the warm-up samples the interpreter's default (warmup.py). A whole script, or a
benchmark_driver item of loop_count 1 (require.yml), is one sample and no warm-up: one run is
one sample, as benchmark_driver runs it, and its state may not survive a rerun in the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["ProcessPlan", "once_per_process", "process_plan"]


@dataclass(frozen=True, slots=True)
class ProcessPlan:
    """What one worker process takes."""

    samples: int
    """Measured samples."""
    warmup: int
    """Warm-up samples before them, flagged and never used."""
    target: float
    """Seconds per sample the loop count is calibrated to."""


def once_per_process(options: Mapping[str, Any]) -> bool:
    """A whole script or a loop_count 1 item: one sample a process, no warm-up."""
    return bool(options.get("script") or options.get("loop_count") == 1)


def process_plan(options: Mapping[str, Any], samples: int | None, target_time: float, planned_samples: int,
                 default_warmup: Callable[[], int]) -> ProcessPlan:
    """The plan of one process.

    Args:
        options: the benchmark's options.
        samples: the runner's measured samples per process (None: planned).
        target_time: the runner's seconds per sample.
        planned_samples: the measured samples the run's sample plan says now.
        default_warmup: the warm-up samples when the options give none (called only then: it may
            probe the interpreter).
    """
    target = float(options.get("target_time", target_time))
    if once_per_process(options):
        return ProcessPlan(1, 0, target)
    given = options.get("warmup")
    warmup = int(given) if given is not None else default_warmup()
    return ProcessPlan(int(options.get("samples", samples) or planned_samples), warmup, target)
