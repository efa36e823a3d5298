"""Kept for code written before report/format.py: the same functions, under their old names."""

from __future__ import annotations

from pairbench.report import format as _format
from pairbench.report.format import format_ratio, format_value

__all__ = ["format_value", "format_percent", "format_ratio"]


def format_percent(fraction: float | None, digits: int = 1, signed: bool = True) -> str:
    """report.format.format_percent (`digits` is ignored: one rounding rule for every format)."""
    return _format.format_percent(fraction, signed)
