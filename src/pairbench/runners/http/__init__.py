"""HTTP benchmarks: a server per variant and round, loaded by the built-in engine or wrk.

    engine.py     the built-in load engine's entry point (closed and open loop) and loop glue
    spec.py       the load types, shared by the engine and wrk.py
    scheduler.py  one load's budget, schedule and connections
    http1.py      one connection's HTTP/1 framing and bookkeeping
    blocking_loop.py  one kept-alive connection on a blocking socket, no event loop
    histogram.py  the mergeable latency histogram
    framing.py    an HTTP/1 response head on the per-request path: closes, framed alike, parser
    server.py     server lifecycle (start, readiness, stop, CPU and RSS)
    wrk.py        wrk as an optional engine
    metrics.py    the kind's metrics and the figures of one load
    runner.py     the Runner for kind "http"
    options.py    the typed options
    kind.py       its metrics and runner for the kinds table

Imports stay light here: importing the package does not import the engine. The names other
layers use are importable from here; the runner itself is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairbench.runners.http.metrics import http_metrics
from pairbench.runners.http.options import HTTP_ALIASES, HTTP_ENGINES, HttpOptions, parse_http_options

if TYPE_CHECKING:
    from pairbench.runners.http.runner import HttpRunner

__all__ = ["HttpRunner", "HttpOptions", "parse_http_options", "HTTP_ALIASES", "HTTP_ENGINES", "http_metrics"]


def __getattr__(name: str) -> Any:
    # `pairbench.runners.http.HttpRunner` (how the suite command finds a kind's runner), imported
    # on first use so that importing the package stays light.
    if name == "HttpRunner":
        from pairbench.runners.http.runner import HttpRunner

        return HttpRunner
    raise AttributeError(name)
