"""Numbers as readers want to see them: SI values scaled to a readable unit, changes as signed percents.

Values are stored in SI units (seconds, bytes, operations per second); single values are formatted
by report/units.py, as in the terminal; this adds what reports need on top (CIs as percents, axis
ticks).
"""

from __future__ import annotations

import math
from typing import Callable

from pairbench.report import units

__all__ = ["format_value", "format_percent", "format_ratio", "format_ci_percent", "change_percent", "axis_formatter"]

_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_BYTE_STEPS = ((1024.0**3, "GiB"), (1024.0**2, "MiB"), (1024.0, "KiB"), (1.0, "B"))
_COUNT_STEPS = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _sig(x: float, digits: int = 4) -> str:
    """`digits` significant figures without scientific notation for everyday magnitudes."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    magnitude = int(math.floor(math.log10(abs(x))))
    decimals = max(0, digits - 1 - magnitude)
    return f"{x:.{decimals}f}"


def format_value(value: float | None, unit: str) -> str:
    """As the terminal shows it (report/units.py), with whole counts shown as integers."""
    if unit == "count" and value is not None and float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    return units.format_value(value, unit)


def change_percent(ratio: float) -> float:
    """Candidate vs baseline as a percent change: ratio 0.926 -> -7.4."""
    return (ratio - 1.0) * 100.0


def format_percent(pct: float, decimals: int = 1) -> str:
    """Always signed, so that a reader never wonders which way: `+2.0%`, `−7.4%` (a real minus, as the
    verdict sentences write it)."""
    return units.format_percent(pct / 100, decimals)


def format_ratio(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.3f}"


def format_ci_percent(ci: tuple[float, float] | None, decimals: int = 1) -> str:
    """A ratio CI shown as percent changes: `[-8.8%, -5.9%]`."""
    if ci is None:
        return "–"
    lo, hi = ci
    return f"[{format_percent(change_percent(lo), decimals)}, {format_percent(change_percent(hi), decimals)}]"


def axis_formatter(lo: float, hi: float, unit: str, ticks: int = 5) -> Callable[[float], str]:
    """Tick labels for [lo, hi] in one readable unit, with just enough decimals to tell ticks apart."""
    steps = {"s": _TIME_STEPS, "B": _BYTE_STEPS}.get(unit)
    scale, name = 1.0, unit
    top = max(abs(lo), abs(hi))
    if steps:
        for s, n in steps:
            if top >= s or s == steps[-1][0]:
                scale, name = s, n
                break
    elif unit in ("op/s", "req/s", "ops", "B/s", "count", ""):
        for s, prefix in _COUNT_STEPS:
            if top >= s or s == 1.0:
                scale, name = s, (prefix + unit if unit != "count" else prefix)
                break
    span = (hi - lo) / scale / max(1, ticks)
    decimals = max(0, -math.floor(math.log10(span))) if span > 0 and math.isfinite(span) else 0

    def fmt(v: float) -> str:
        return f"{v / scale:.{decimals}f} {name}".rstrip()

    return fmt
