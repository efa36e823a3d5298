"""`pairbench demo`: a bundled comparison that needs nothing but this Python.

Two variants of one program differ by a real change (sorting through a redundant key function,
or not); one benchmark exercises the change (a real difference), the other does not (a real
non-difference). Both run as whole processes under the interpreter running pairbench.
"""

from __future__ import annotations

import argparse
from typing import Any

from pairbench.commands.common import add_run_options, new_run, options_from_args

__all__ = ["register", "build_demo_run"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="run a bundled comparison (a real difference and a real non-difference)",
        description="Compare two variants of a bundled program: one benchmark differs for real, one does not.",
    )
    add_run_options(p, runs=10, warmup=1)
    p.set_defaults(handler=_handle)


def build_demo_run() -> Any:
    """The demo's Run: variants `sort-key` (baseline) and `sort-plain`, benchmarks `sort` and `json`."""
    import shlex
    import sys
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
    work = Metric("work_time", "s", "lower", description="time the program measured for its own task")
    metrics = (BUILTIN_METRICS[0], work) + BUILTIN_METRICS[1:]
    benchmarks = [
        Benchmark("sort", "command", metrics, {"command": f"{prefix} sort", "shell": False}),
        Benchmark("json", "command", metrics, {"command": f"{prefix} json", "shell": False}),
    ]
    return new_run(variants, benchmarks)


def _handle(args: argparse.Namespace) -> int:
    import dataclasses
    import random

    from pairbench.commands.common import run_and_report
    from pairbench.commands.http import demo_http_run, print_http_figures
    from pairbench.runners.command import CommandRunner

    # Adaptive stopping inside 50 s (40 s for the HTTP part), and a ±3% band: enough to settle both questions on a
    # desktop machine, and a showcase of stopping as soon as the answer is clear.
    options = options_from_args(args, max_time=50.0, threshold=3.0)
    print("pairbench demo, part 1 of 2: does sorting without a redundant key function make a program faster?")
    print("  variants: sort-key (baseline, DEMO_SORT=key) vs sort-plain (DEMO_SORT=plain)")
    print("  benchmarks: sort (uses the change: a real difference), json (does not: no real difference)\n")
    run = build_demo_run()
    code = run_and_report(run, {"command": CommandRunner(random.Random(options.seed))}, options,
                          progress=not args.no_progress)
    print("\npairbench demo, part 2 of 2: a bundled web app served by this Python, at 10 vs 30 units of")
    print("work per page; a server per variant and round, loaded by the built-in HTTP engine\n")
    http_run, runner = demo_http_run()
    http_options = dataclasses.replace(
        options, warmup=0, runs=min(options.runs, 6), max_time=min(options.max_time or 50.0, 40.0),
        export_json=_second_path(options.export_json),
    )
    http_code = run_and_report(http_run, {"http": runner}, http_options, progress=not args.no_progress,
                               extra_reports=(print_http_figures,))
    return max(code, http_code)


def _second_path(path: str | None) -> str | None:
    """The HTTP part's run file beside the first one (`demo.json` -> `demo-http.json`)."""
    if not path:
        return None
    stem, dot, ext = path.rpartition(".")
    return f"{stem}-http.{ext}" if dot else f"{path}-http"
