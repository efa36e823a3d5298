"""Numbers as readers see them: the one place values, percents, ratios and CIs are formatted.

Values are stored in SI units (seconds, bytes, operations per second) and converted only here
(hyperfine's util/units.rs). Every format (terminal, Markdown, HTML, sentences, sweep and suite
tables) calls these functions, so a table and the sentence under it write one change the same way:
a percent has one decimal, two below 0.05% (so a real shift never reads 0.0%) and none from 100%
up; a minus is a real minus sign.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

__all__ = [
    "MINUS",
    "fixed_time_unit",
    "axis_formatter",
    "change_percent",
    "confidence_label",
    "format_change",
    "format_ci_percent",
    "format_delta",
    "format_percent",
    "format_exact_percent",
    "format_exact_ratio",
    "format_ratio",
    "format_value",
    "current_time_unit",
]

MINUS = "\u2212"

_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_FIXED_UNITS = {"second": (1.0, "s"), "millisecond": (1e-3, "ms"), "microsecond": (1e-6, "µs"),
                "nanosecond": (1e-9, "ns")}
_time_unit: ContextVar[str | None] = ContextVar("time_unit", default=None)


@contextmanager
def fixed_time_unit(unit: str | None) -> Iterator[None]:
    """Within the block, every time is written in `unit` (`millisecond`, ...; None: chosen per value).

    hyperfine's --time-unit: one unit makes a column of times comparable at a glance.
    """
    token = _time_unit.set(unit)
    try:
        yield
    finally:
        _time_unit.reset(token)


def current_time_unit() -> str | None:
    """The unit `fixed_time_unit` set for this block (None: chosen per value)."""
    return _time_unit.get()


_BYTE_STEPS = ((2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"), (1.0, "B"))
_SCALE_STEPS = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _sig(x: float, digits: int = 4) -> str:
    """`digits` significant figures without scientific notation for everyday magnitudes."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    magnitude = int(math.floor(math.log10(abs(x))))
    if abs(float(f"{x:.{max(digits - 1 - magnitude, 0)}f}")) >= 10.0 ** (magnitude + 1):
        magnitude += 1  # 9.99996 rounds up to 10: four figures are `10.00`, not `10.000`
    decimals = max(digits - 1 - magnitude, 0)
    return f"{x:.{decimals}f}"


def format_value(value: float | None, unit: str, digits: int = 4) -> str:
    """`0.01234, "s"` -> `12.34 ms`; `3.2e6, "op/s"` -> `3.200M op/s`; bytes in binary prefixes;
    counts as plain numbers (the metric's name says what is counted), whole ones below a million
    as integers (`2`, and `10` for a geometric mean a rounding error off 10)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if unit == "count":
        whole = round(value) if math.isfinite(value) else value
        if abs(value - whole) <= 1e-9 * max(1.0, abs(value)) and abs(whole) < 1e6:
            return str(int(whole))
        unit = ""
    if unit == "s" and _time_unit.get() is not None:
        factor, name = _FIXED_UNITS[_time_unit.get() or "second"]
        return f"{_sig(value / factor, digits)} {name}"
    if unit == "s":
        for factor, name in _TIME_STEPS:
            if abs(value) >= factor or factor == 1e-9:
                return f"{_sig(value / factor, digits)} {name}"
    if unit == "B":
        for factor, name in _BYTE_STEPS:
            if abs(value) >= factor or factor == 1.0:
                return f"{_sig(value / factor, digits)} {name}"
    if unit in ("op/s", "req/s", "B/s", "count", "op", "") and abs(value) >= 1e4:
        for factor, name in _SCALE_STEPS:
            if abs(value) >= factor:
                suffix = f" {unit}" if unit else ""
                return f"{_sig(value / factor, digits)}{name}{suffix}"
    return f"{_sig(value, digits)}{(' ' + unit) if unit else ''}"


def format_delta(delta: float | None, unit: str) -> str:
    """An exact difference, signed: `+20`, `−1.500 ms`, `±0`."""
    if delta is None or not math.isfinite(delta):
        return "–"
    sign = "+" if delta > 0 else (MINUS if delta < 0 else "±")
    return sign + format_value(abs(delta), unit)


def format_percent(fraction: float | None, signed: bool = True) -> str:
    """0.074 -> `+7.4%`, -0.0003 -> `−0.03%`, 1.5 -> `+150%`; `–` for None or a non-finite value."""
    if fraction is None or not math.isfinite(fraction):
        return "–"
    pct = fraction * 100
    a = abs(pct)
    if a != 0 and a < 0.05:
        text = f"{a:.2f}"
    elif a >= 100:
        text = f"{a:.0f}"
    else:
        text = f"{a:.1f}"
    if not signed or float(text) == 0:
        return f"{text}%"
    return f"{'+' if pct > 0 else MINUS}{text}%"


def format_exact_percent(fraction: float | None) -> str:
    """An exact count's change, never read as zero when it is not: 4e-6 -> `+0.0004%`; two
    significant figures below 0.05%, else as `format_percent`."""
    if fraction is None or not math.isfinite(fraction) or fraction == 0:
        return format_percent(fraction)
    a = abs(fraction * 100)
    if a >= 0.05:
        return format_percent(fraction)
    text = f"{a:.{1 - math.floor(math.log10(a))}f}".rstrip("0").rstrip(".")
    return f"{'+' if fraction > 0 else MINUS}{text}%"


def format_exact_ratio(ratio: float | None) -> str:
    """An exact count's ratio as `format_ratio`, with the decimals it takes to differ from 1 when it
    does: 1.000004 -> `1.000004` (not `1.000`)."""
    text = format_ratio(ratio)
    if ratio is None or not math.isfinite(ratio) or ratio == 1.0 or float(text) != 1.0:
        return text
    gap = abs(ratio - 1.0)
    return f"{ratio:.{1 - math.floor(math.log10(gap))}f}".rstrip("0")


def change_percent(ratio: float) -> float:
    """Candidate vs baseline as a percent change: ratio 0.926 -> -7.4."""
    return (ratio - 1.0) * 100.0


def format_change(ratio: float | None) -> str:
    """A ratio as its signed percent change: 0.926 -> `−7.4%`."""
    return "–" if ratio is None else format_percent(ratio - 1.0)


def format_ratio(ratio: float | None) -> str:
    """0.92612 -> `0.926`; three significant figures outside [0.01, 100)."""
    if ratio is None or not math.isfinite(ratio):
        return "–"
    return f"{ratio:.3f}" if 0.01 <= ratio < 100 else f"{ratio:.3g}"


def format_ci_percent(ci: tuple[float, float] | None) -> str:
    """A ratio CI shown as percent changes: `[−8.8%, −5.9%]`."""
    if ci is None:
        return "–"
    return f"[{format_change(ci[0])}, {format_change(ci[1])}]"


def confidence_label(confidence: float) -> str:
    """0.95 -> '95%', 0.98333 -> '98.3%'."""
    text = f"{confidence * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


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
        for s, prefix in _SCALE_STEPS:
            if top >= s or s == 1.0:
                scale, name = s, (prefix + unit if unit != "count" else prefix)
                break
    span = (hi - lo) / scale / max(1, ticks)
    decimals = max(0, -math.floor(math.log10(span))) if span > 0 and math.isfinite(span) else 0

    def fmt(v: float) -> str:
        return f"{v / scale:.{decimals}f} {name}".rstrip()

    return fmt
