"""The metrics a micro benchmark yields, by language."""

from __future__ import annotations

from pairbench.model import Metric

__all__ = ["micro_metrics"]


def micro_metrics(language: str) -> tuple[Metric, ...]:
    """Metrics a micro benchmark in `language` yields: time first, then exact allocation counts."""
    timing = (
        Metric("time_per_op", "s", "lower", description="time per operation, loop overhead subtracted"),
        Metric("ops_per_s", "op/s", "higher", description="operations per second"),
    )
    alloc: tuple[Metric, ...]
    if language == "ruby":
        alloc = (
            Metric("allocs_per_op", "count", "lower", True, "objects allocated per op (GC.stat total_allocated_objects)"),
            Metric("malloc_bytes_per_op", "B", "lower", True, "malloc'd bytes per op (GC.stat malloc_increase_bytes)"),
            Metric("gc_per_1k_ops", "count", "lower", True, "GC runs per 1000 ops"),
        )
    else:
        alloc = (
            Metric("mem_blocks_per_op", "count", "lower", True, "memory blocks still allocated per op (tracemalloc, net)"),
            Metric("mem_bytes_per_op", "B", "lower", True, "bytes still allocated per op (tracemalloc, net)"),
            Metric("peak_bytes_per_op", "B", "lower", True, "peak transient bytes during one op (tracemalloc)"),
            Metric("gc_per_1k_ops", "count", "lower", True, "cyclic GC collections per 1000 ops"),
        )
    return timing + alloc
