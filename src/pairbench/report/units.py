"""Human formatting of SI values; the only place units are converted."""

from __future__ import annotations

import math

__all__ = ["format_value", "format_percent", "format_ratio"]

_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_BYTE_STEPS = ((2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"), (1.0, "B"))
_SCALE_STEPS = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _sig(x: float, digits: int = 4) -> str:
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = max(digits - 1 - int(math.floor(math.log10(abs(x)))), 0)
    return f"{x:.{decimals}f}"


def format_value(value: float | None, unit: str, digits: int = 4) -> str:
    """`0.01234, "s"` -> `12.34 ms`; `3.2e6, "op/s"` -> `3.200M op/s`; bytes in binary prefixes."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
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


def format_percent(fraction: float | None, digits: int = 1, signed: bool = True) -> str:
    """0.074 -> `+7.4%` (minus as a real minus sign)."""
    if fraction is None or not math.isfinite(fraction):
        return "–"
    text = f"{fraction * 100:{'+' if signed else ''}.{digits}f}%"
    return text.replace("-", "−")


def format_ratio(ratio: float | None) -> str:
    if ratio is None or not math.isfinite(ratio):
        return "–"
    return f"{ratio:.3f}" if 0.01 <= ratio < 100 else f"{ratio:.3g}"
