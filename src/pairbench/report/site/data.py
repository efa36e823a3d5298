"""What the history site shows: the series the history analysis made (re-exported for the pages),
and a change point in the words of a verdict."""

from __future__ import annotations

from pairbench.analysis.history import Point, Series, SiteData

__all__ = ["Point", "Series", "SiteData", "change_verdict"]


def change_verdict(change: float, direction: str) -> str:
    """A change point's relative step in the words of a verdict: a step up in a time is "slower"."""
    if direction == "none":
        return "changed"
    worse = change > 0 if direction == "lower" else change < 0
    return "slower" if worse else "faster"
