"""HTTP benchmarks: a server per variant and round, loaded by the built-in engine or wrk.

    engine.py     the built-in load engine's entry point (closed and open loop) and loop glue
    spec.py       the load types, shared by the engine and wrk.py
    scheduler.py  one load's budget, schedule and connections
    http1.py      one connection's HTTP/1 framing and bookkeeping
    blocking_loop.py  one kept-alive connection on a blocking socket, no event loop
    histogram.py  the mergeable latency histogram
    server.py     server lifecycle (start, readiness, stop, CPU and RSS)
    wrk.py        wrk as an optional engine
    runner.py     the Runner for kind "http"

Imports stay light here: importing the package does not import the engine.
"""

from __future__ import annotations

from typing import Any

__all__ = ["HttpRunner"]


def __getattr__(name: str) -> Any:
    # `pairbench.runners.http.HttpRunner` (how the suite command finds a kind's runner), imported
    # on first use so that importing the package stays light.
    if name == "HttpRunner":
        from pairbench.runners.http.runner import HttpRunner

        return HttpRunner
    raise AttributeError(name)
