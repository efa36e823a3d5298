"""How results are shown, as hyperfine's --style, --time-unit and --sort choose.

--style sets colour and the live bar (the bar itself is the CLI's); --time-unit fixes the unit of
every time in the terminal and the markup exports (not CSV or JSON, which stay in seconds);
--sort orders the variants of the tables: `command` (and `auto`) as given, `mean-time` by the
mean of the first benchmark's primary metric.
"""

from __future__ import annotations

import dataclasses
import io
from typing import TYPE_CHECKING, Any

from pairbench.model import Run

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["STYLES", "SORTS", "TIME_UNITS", "console_for", "shows_progress", "sorted_view"]

STYLES = ("auto", "basic", "full", "nocolor", "color", "none")
SORTS = ("auto", "command", "mean-time")
TIME_UNITS = ("second", "millisecond", "microsecond", "nanosecond")


def console_kwargs(style: str) -> dict[str, Any]:
    """rich Console arguments for a style (auto: rich's own detection, NO_COLOR honoured)."""
    if style in ("basic", "nocolor"):
        return {"no_color": True, "color_system": None}
    if style in ("full", "color"):
        return {"force_terminal": True, "no_color": False}
    if style == "none":
        return {"file": io.StringIO()}
    return {}


def console_for(style: str, stderr: bool = False) -> Console:
    """The console the report (or its warnings) is printed on, in `style`; `none` prints nothing."""
    from rich.console import Console

    return Console(stderr=stderr, **console_kwargs(style))


def shows_progress(style: str, is_terminal: bool) -> bool:
    """Whether the live bar is drawn: on a terminal (auto, nocolor), always (full), never (basic, color, none)."""
    if style == "full":
        return True
    return style in ("auto", "nocolor") and is_terminal


def sorted_view(run: Run, sort: str) -> Run:
    """The run with its variants in the order the tables show them (the samples are shared)."""
    if sort != "mean-time" or not run.benchmarks or not run.benchmarks[0].metrics:
        return run
    bench, metric = run.benchmarks[0].name, run.benchmarks[0].metrics[0].name
    sums: dict[str, list[float]] = {}
    for s in run.samples:
        if s.benchmark == bench and s.metric == metric and not s.warmup:
            sums.setdefault(s.variant, []).append(s.value)

    def mean(name: str) -> float:
        values = sums.get(name)
        return sum(values) / len(values) if values else float("inf")

    order = sorted(run.variants, key=lambda v: mean(v.name))
    if run.benchmarks[0].metrics[0].direction == "higher":
        order.reverse()
    return dataclasses.replace(run, variants=order)
