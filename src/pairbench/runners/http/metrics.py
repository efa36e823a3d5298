"""The metrics of kind "http" and the figures of one load, by metric name."""

from __future__ import annotations

from pairbench.model import Metric
from pairbench.runners.http.spec import LoadResult

__all__ = ["PERCENTILES", "http_metrics", "figures_from_result", "rate_shortfall"]

PERCENTILES: tuple[int, ...] = (50, 66, 75, 80, 90, 95, 98, 99, 100)
"""The percentile table `ab` prints."""

_OWN_PERCENTILES: tuple[int, ...] = tuple(q for q in PERCENTILES if q not in (50, 99))
"""Percentiles stored as `latency_p{q}`: 50 and 99 are `latency_median` and `latency_p99` already,
and each figure is stored once (a second copy doubled it in run files, CSV and history)."""


def http_metrics(open_loop: bool = False) -> tuple[Metric, ...]:
    """Metrics of one HTTP benchmark: the first three are judged, the rest are recorded; an open
    loop (`rate`) also records the requests of its schedule it did not send."""
    ms = [
        Metric("req_per_s", "req/s", "higher", description="completed requests per second"),
        Metric("latency_median", "s", "lower", description="median latency"),
        Metric("latency_p99", "s", "lower", description="99th percentile latency"),
        Metric("latency_mean", "s", "none", description="mean latency (ab's time per request)"),
    ]
    ms += [Metric(f"latency_p{q}", "s", "none", description=f"{q}th percentile latency") for q in _OWN_PERCENTILES]
    ms[-1] = Metric("latency_p100", "s", "none", description="longest request (100th percentile latency)")
    ms += [
        Metric("requests", "count", "none", exact=True, description="completed requests"),
        Metric("failed", "count", "none", exact=True, description="requests failed (connect, reset, timeout)"),
        Metric("errors_connect", "count", "none", exact=True),
        Metric("errors_reset", "count", "none", exact=True),
        Metric("errors_timeout", "count", "none", exact=True),
        Metric("errors_protocol", "count", "none", exact=True),
        Metric("non_2xx", "count", "none", exact=True, description="responses with a status outside 200-299"),
        Metric("status_2xx", "count", "none", exact=True),
        Metric("status_3xx", "count", "none", exact=True),
        Metric("status_4xx", "count", "none", exact=True),
        Metric("status_5xx", "count", "none", exact=True),
        *([Metric("unsent", "count", "none", exact=True,
                  description="open loop: requests of the schedule not sent before the duration ended")]
          if open_loop else []),
        Metric("bytes", "B", "none", description="bytes received, headers included"),
        Metric("transfer_rate", "B/s", "none", description="bytes received per second"),
        Metric("elapsed", "s", "none", description="duration of the measured load"),
        Metric("server_cpu", "s", "none", description="server CPU time during the measured load"),
        Metric("server_cpu_per_req", "s", "none", description="server CPU time per completed request"),
        Metric("server_rss", "B", "none", description="server peak RSS (sum over its processes)"),
        Metric("client_cpu_per_req", "s", "none", description="load generator CPU time per request"),
    ]
    return tuple(ms)


SHORTFALL = 0.9
"""An open loop that completes less than this share of the rate asked is said to fall short."""


def rate_shortfall(result: LoadResult, rate: float | None) -> str | None:
    """The open loop's rate asked and achieved, when it achieved less than SHORTFALL of it, else None."""
    if rate is None or result.req_per_s >= SHORTFALL * rate:
        return None
    unsent = f"; {result.unsent} requests of the schedule were not sent in the duration" if result.unsent else ""
    return (f"asked {rate:,.6g} req/s, achieved {result.req_per_s:,.1f} req/s "
            f"({result.req_per_s / rate:.0%}){unsent}")


def figures_from_result(result: LoadResult) -> dict[str, float]:
    """The per-round figures of one load, by metric name (server figures are added by the runner)."""
    pct = result.percentiles_s(_OWN_PERCENTILES)
    median, p99 = result.percentiles_s([50, 99])
    # Per status class, when the engine says each response's status (wrk does not: none then).
    statuses = {f"status_{k}xx": 0.0 for k in range(2, 6)} if result.status_errors is None else {}
    for status, count in result.status_counts.items():
        key = f"status_{status // 100}xx"
        if key in statuses:
            statuses[key] += count
    figures = {
        "req_per_s": result.req_per_s,
        "latency_median": median,
        "latency_p99": p99,
        "latency_mean": result.histogram.mean_s,
        **{f"latency_p{q}": v for q, v in zip(_OWN_PERCENTILES, pct)},
        "requests": float(result.completed),
        "failed": float(result.failed),
        **{f"errors_{k}": float(result.errors.get(k, 0)) for k in ("connect", "reset", "timeout", "protocol")},
        "non_2xx": float(result.non_2xx),
        **statuses,
        "bytes": float(result.bytes_received),
        "transfer_rate": result.bytes_received / result.elapsed_s if result.elapsed_s > 0 else 0.0,
        "elapsed": result.elapsed_s,
        "client_cpu_per_req": result.client_cpu_s / result.completed if result.completed else 0.0,
    }
    if result.unsent is not None:
        figures["unsent"] = float(result.unsent)
    return figures
