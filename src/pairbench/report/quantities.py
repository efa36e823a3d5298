"""Kept for code written before report/format.py: the same functions, under their old names.

`format_percent` here takes a percent (7.4), not a fraction, as it always did.
"""

from __future__ import annotations

from pairbench.report import format as _format
from pairbench.report.format import axis_formatter, change_percent, format_ci_percent, format_ratio, format_value

__all__ = ["format_value", "format_percent", "format_ratio", "format_ci_percent", "change_percent", "axis_formatter"]


def format_percent(pct: float, decimals: int = 1) -> str:
    """A percent (not a fraction), signed: `+2.0%`, `−7.4%` (`decimals` is ignored: one rounding rule)."""
    return _format.format_percent(pct / 100)
