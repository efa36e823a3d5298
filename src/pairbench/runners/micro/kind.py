"""What the kinds table knows of kind "micro": the metrics a benchmark yields and its runner."""

from __future__ import annotations

from pairbench.model import Metric
from pairbench.runners.base import Runner
from pairbench.runners.micro.options import MicroOptions, parse_micro_options

__all__ = ["parse_micro_options", "micro_kind_metrics", "make_micro"]


def micro_kind_metrics(options: MicroOptions, declared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """Time per op first (or instructions per op, counted), then the allocation counts."""
    from pairbench.runners.micro.metrics import micro_metrics

    if options.measure == ("time",):
        return micro_metrics(options.language)
    from pairbench.runners.micro.counted import counted_metrics

    return counted_metrics(options.measure, micro_metrics(options.language))


def make_micro(seed: int | None, options: MicroOptions | None) -> Runner:
    """One runner for every micro benchmark, with the run's seed and the options' sample plan."""
    from pairbench.runners.micro.counted import CountingMicroRunner

    o = options or MicroOptions(stmt="")
    return CountingMicroRunner(samples=o.samples, warmup=o.warmup, target_time=o.target_time, alloc=o.alloc,
                               seed=seed)
