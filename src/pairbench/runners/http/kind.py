"""What the kinds table knows of kind "http": the metrics a benchmark yields and its runner."""

from __future__ import annotations

from pairbench.model import Metric
from pairbench.runners.base import Runner
from pairbench.runners.http.options import HttpOptions, parse_http_options

__all__ = ["parse_http_options", "http_kind_metrics", "make_http"]


def http_kind_metrics(options: HttpOptions, declared: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The same metrics for every load: throughput and latency judged, the rest recorded."""
    from pairbench.runners.http.metrics import http_metrics

    return http_metrics(open_loop=options.rate is not None)


def make_http(seed: int | None, options: HttpOptions | None) -> Runner:
    """One runner for every http benchmark; servers' logs go to the options' log_dir if given."""
    from pairbench.runners.http.runner import HttpRunner

    return HttpRunner(log_dir=options.log_dir if options is not None else None)
