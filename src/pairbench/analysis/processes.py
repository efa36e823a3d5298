"""Per-process rates of in-process benchmarks, with a CI of their centre (the micro report's figures).

The process is the unit of replication (METHOD §1): each process's samples are reduced by the one
reduction (`analysis.replicates.process_values`), turned into rates, and summarised by
stats.per_process (geometric mean with a t interval across processes; Kalibera & Jones 2013).
Stats are imported inside the function, so reporters importing this stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pairbench.analysis.replicates import process_values
from pairbench.model import Run

if TYPE_CHECKING:
    from pairbench.stats.per_process import ProcessSummary

__all__ = ["process_rates"]


def process_rates(run: Run, benchmark: str, confidence: float = 0.95,
                  metric: str = "time_per_op") -> dict[str, ProcessSummary | None]:
    """Per variant: the centre of its processes' rates (1 / time per op) and its CI, or None.

    Args:
        run: the run.
        benchmark: a micro benchmark's name.
        confidence: CI level.
        metric: the time-per-operation metric.

    Returns:
        variant name -> ProcessSummary (None for a variant without a positive value).
    """
    from pairbench.stats.per_process import summarize_processes

    values = process_values(run, benchmark, metric)
    out: dict[str, ProcessSummary | None] = {}
    for variant in (v.name for v in run.variants):
        per_proc = list(values.get(variant, {}).values())
        out[variant] = summarize_processes([1.0 / t for t in per_proc if t > 0], confidence)
    return out
