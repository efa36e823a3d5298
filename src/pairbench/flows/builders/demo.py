"""The builders of `pairbench demo`'s two runs: a bundled program and a bundled web app, in this Python."""

from __future__ import annotations

import os
import sys

from pairbench.flows.builders.common import new_run
from pairbench.model import Run

__all__ = ["demo_run", "demo_http_run", "DEMO_APP"]

# A str, not a Path: the demo app beside the demo workload, in the package's data.
DEMO_APP = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))), "data",
                        "demo_app.py")


def demo_run() -> Run:
    """The demo's Run: variants `sort-key` (baseline) and `sort-plain`, benchmarks `sort` and `json`."""
    import shlex
    from importlib import resources

    from pairbench.model import Benchmark, Metric, Variant
    from pairbench.runners.command import BUILTIN_METRICS

    script = resources.files("pairbench.data").joinpath("demo_workload.py")
    prefix = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    variants = [
        Variant("sort-key", env={"DEMO_SORT": "key"}, baseline=True,
                meta={"description": "sorts through a redundant identity key function"}),
        Variant("sort-plain", env={"DEMO_SORT": "plain"}, meta={"description": "sorts without a key function"}),
    ]
    work = Metric("work", "", "lower",
                  description="the task's CPU time ÷ a reference loop's beside it (median of 9 pairs)")
    # The question is the task's own cost: the process's wall time (interpreter start-up, a loaded
    # machine) is shown, but stopping waits for `work` only (see data/demo_workload.py).
    metrics = (work,) + BUILTIN_METRICS
    settle = {"settle": ["work"]}
    benchmarks = [
        Benchmark("sort", "command", metrics, {"command": f"{prefix} sort", "shell": False, **settle}),
        Benchmark("json", "command", metrics, {"command": f"{prefix} json", "shell": False, **settle}),
    ]
    return new_run(variants, benchmarks)


def demo_http_run(python: str = sys.executable, works: tuple[int, int] = (10, 30), duration: float = 1.0,
                  connections: int = 2) -> Run:
    """A Run comparing the bundled demo app at two amounts of work per request.

    For `pairbench demo`: measured with options.warmup = 0 (each round already warms up for 0.3 s);
    6 rounds take about 35 s on a quiet 2-core machine. The candidate does three times the work per page, so it must come out slower.
    """
    import shlex

    from pairbench.model import Benchmark, Variant
    from pairbench.runners.http.runner import http_metrics

    cmd = f"{shlex.quote(python)} {shlex.quote(str(DEMO_APP))} --port {{port}}"
    variants = [
        Variant(name=f"work={works[0]}", command=cmd, env={"PAIRBENCH_DEMO_WORK": str(works[0])}, baseline=True),
        Variant(name=f"work={works[1]}", command=cmd, env={"PAIRBENCH_DEMO_WORK": str(works[1])}),
    ]
    bench = Benchmark(name="/", kind="http", metrics=http_metrics(),
                      options={"url": "/", "connections": connections, "duration": duration, "warmup_time": 0.3,
                               "ready_path": "/health"})
    run = new_run(variants, [bench])
    run.metadata["demo"] = "http"
    return run
