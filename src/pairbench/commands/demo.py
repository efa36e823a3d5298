"""`pairbench demo`: a bundled comparison that needs nothing but this Python.

Two variants of one program differ by a real change (sorting through a redundant key function,
or not); one benchmark exercises the change (a real difference), the other does not (a real
non-difference). Both run as whole processes under the interpreter running pairbench.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

from pairbench.commands.common import add_run_options, measuring_from, options_from_args

__all__ = ["DEMO_BAND_PERCENT", "register", "build_demo_run", "demo_measurings", "run_demo"]

DEMO_BAND_PERCENT = 5.0
"""The demo's noise band δ (percent), stated before it runs.

Why it is 5% and not 3%: "no meaningful difference" needs the CI, at the level of 2 comparisons
(Holm) over up to 5 looks (about 99.5%, t ≈ 3), to fit inside ±δ around an estimate near 0.
With a per-block spread s of the paired log-differences that takes n ≈ (3·s/(δ − |Δ̂|))² blocks.
On the loaded shared 2-core machine the program's own time varied by s ≈ 12-25% between
processes (wall time 20-35%): no band a reader would accept settles in 50 s (about 20 blocks
at a load of 8). Its `work` ratio varies by s ≈ 4-7%: with ±5%, 20 blocks give a half-width
of about 3%, which leaves room for an estimate within ±2%; with ±3% the estimate would have to
sit within a fraction of a percent of 0. A quiet machine (s ≈ 1%) settles at the first look.
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="run a bundled comparison (a real difference and a real non-difference)",
        description="Compare two variants of a bundled program: one benchmark differs for real, one does not.",
    )
    add_run_options(p, runs=10, warmup=1)
    p.set_defaults(handler=_handle)


def build_demo_run() -> Any:
    """The demo's first Run (flows.builders.demo.demo_run)."""
    from pairbench.flows.builders.demo import demo_run

    return demo_run()


def demo_measurings(args: argparse.Namespace) -> tuple[Any, Any]:
    """The measuring settings of the demo's two parts from its flags: the program, then the web app."""
    import dataclasses

    # Adaptive stopping inside 50 s (40 s for the HTTP part) with a band of ±DEMO_BAND_PERCENT (see its docstring).
    options = options_from_args(args, max_time=50.0, threshold=DEMO_BAND_PERCENT)
    second = _second_path(options.export_json)  # checked before anything runs
    measuring = measuring_from(args, options)
    http_options = dataclasses.replace(
        options, warmup=0, runs=min(options.runs, 6), max_time=min(options.max_time or 50.0, 40.0),
        export_json=second,
    )
    return measuring, dataclasses.replace(measuring, options=http_options)


def run_demo(args: argparse.Namespace) -> tuple[int, list[Any]]:
    """Both parts measured, each introduced; (exit code, [the two runs])."""
    from pairbench.flows.builders.demo import demo_http_run, demo_run
    from pairbench.flows.measure import measure

    measuring, http_measuring = demo_measurings(args)
    options = measuring.options
    print("pairbench demo, part 1 of 2: does sorting without a redundant key function make a program faster?")
    print("  variants: sort-key (baseline, DEMO_SORT=key) vs sort-plain (DEMO_SORT=plain)")
    print("  benchmarks: sort (uses the change: a real difference), json (does not: no real difference)")
    print(f"  noise band ±{options.threshold:g}%: a change inside it counts as no meaningful difference; the "
          "verdicts rest on `work`, each process's task time relative to a reference loop it runs beside it\n")
    run = demo_run()
    code = measure(run, measuring)
    print("\npairbench demo, part 2 of 2: a bundled web app served by this Python, at 10 vs 30 units of")
    print("work per page; a server per variant and round, loaded by the built-in HTTP engine\n")
    http_run = demo_http_run()
    http_code = measure(http_run, http_measuring)
    return max(code, http_code), [run, http_run]


def _handle(args: argparse.Namespace) -> int:
    return run_demo(args)[0]


def _second_path(path: str | None) -> str | None:
    """The HTTP part's run file beside the first one (`demo.json` -> `demo-http.json`)."""
    if not path:
        return None
    if path == "-":
        from pairbench.errors import UserError

        raise UserError("the demo writes two run files; give --export-json a file name, not '-'")
    stem, dot, ext = path.rpartition(".")
    return f"{stem}-http.{ext}" if dot else f"{path}-http"
