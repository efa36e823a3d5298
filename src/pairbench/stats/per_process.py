"""Per-process values of in-process benchmarks, and a CI of their centre.

Method (METHOD.md section 1): the process is the unit of replication. Several samples of one
process are reduced to one value (by analysis.replicates, the one reduction: the mean time per
operation, total time / total ops, which is the harmonic mean of the rates; averaging ips
directly would overweight fast samples, benchmark-ips#149). The spread across processes, not across samples, makes the interval
(Kalibera & Jones 2013: resample at the highest level). The interval is a t interval on log
times, exponentiated: a CI of the geometric mean that is symmetric in ratio terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from pairbench.stats._dist import t_ppf

__all__ = ["ProcessSummary", "summarize_processes"]


@dataclass(frozen=True, slots=True)
class ProcessSummary:
    """The centre of per-process values with its confidence interval."""

    center: float
    """Geometric mean of the per-process values."""
    low: float
    high: float
    n: int
    """Processes used."""
    confidence: float = 0.95


def summarize_processes(values: Iterable[float], confidence: float = 0.95) -> ProcessSummary | None:
    """Geometric mean of positive per-process values and its t interval (None without values).

    With one process the interval is the point itself and n = 1: there is no spread to show.
    """
    logs = [math.log(v) for v in values if v > 0 and math.isfinite(v)]
    n = len(logs)
    if n == 0:
        return None
    mean = sum(logs) / n
    if n == 1:
        c = math.exp(mean)
        return ProcessSummary(c, c, c, 1, confidence)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    half = t_ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return ProcessSummary(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, confidence)
