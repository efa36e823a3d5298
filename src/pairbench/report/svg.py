"""A very small SVG plotting kit for the HTML report: scales, ticks, axes, marks.

Generated in Python so the page needs no JavaScript library and no network. Every piece of text
goes through `html.escape`, so user strings (benchmark and variant names) cannot become markup.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

__all__ = ["Scale", "Canvas", "nice_ticks", "PALETTE", "esc"]

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd")


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (Heckbert's "nice numbers")."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(lo / step) * step
    ticks = []
    v = start
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 12))
        v += step
    return ticks


@dataclass
class Scale:
    """Maps data values in [lo, hi] to pixels in [a, b]."""

    lo: float
    hi: float
    a: float
    b: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            self.lo, self.hi = 0.0, 1.0
        if self.hi <= self.lo:
            pad = abs(self.lo) * 0.05 or 1.0
            self.lo, self.hi = self.lo - pad, self.hi + pad

    @classmethod
    def padded(cls, values: Sequence[float], a: float, b: float, pad: float = 0.06) -> Scale:
        lo, hi = min(values), max(values)
        span = (hi - lo) or (abs(hi) * 0.1) or 1.0
        return cls(lo - span * pad, hi + span * pad, a, b)

    def __call__(self, v: float) -> float:
        return self.a + (v - self.lo) / (self.hi - self.lo) * (self.b - self.a)


@dataclass
class Canvas:
    """One plot: an <svg> with a plot area inside margins."""

    width: int = 640
    height: int = 260
    left: int = 150
    right: int = 20
    top: int = 28
    bottom: int = 40
    title: str = ""
    parts: list[str] = field(default_factory=list)

    @property
    def x0(self) -> float:
        return float(self.left)

    @property
    def x1(self) -> float:
        return float(self.width - self.right)

    @property
    def y0(self) -> float:
        return float(self.height - self.bottom)

    @property
    def y1(self) -> float:
        return float(self.top)

    def add(self, svg: str) -> None:
        self.parts.append(svg)

    def text(self, x: float, y: float, s: object, *, anchor: str = "start", size: int = 11, cls: str = "",
             color: str = "#333", tip: str = "") -> None:
        """A label; `tip` (the full name behind a shortened label) shows on hover."""
        c = f' class="{cls}"' if cls else ""
        t = f"<title>{esc(tip)}</title>" if tip and tip != s else ""
        self.add(f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" font-size="{size}" fill="{color}"{c}>'
                 f'{t}{esc(s)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str = "#999", width: float = 1,
             dash: str = "") -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" stroke="{color}" '
                 f'stroke-width="{_num(width)}"{d}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float = 1.0, tip: str = "") -> None:
        t = f"<title>{esc(tip)}</title>" if tip else ""
        self.add(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(max(w, 0))}" height="{_num(max(h, 0))}" '
                 f'fill="{fill}" fill-opacity="{_num(opacity)}">{t}</rect>')

    def circle(self, x: float, y: float, r: float, fill: str, opacity: float = 0.7, tip: str = "") -> None:
        t = f"<title>{esc(tip)}</title>" if tip else ""
        self.add(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" fill="{fill}" fill-opacity="{_num(opacity)}">{t}</circle>')

    def polyline(self, pts: Sequence[tuple[float, float]], color: str, width: float = 1.5) -> None:
        p = " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)
        self.add(f'<polyline points="{p}" fill="none" stroke="{color}" stroke-width="{_num(width)}"/>')

    def polygon(self, pts: Sequence[tuple[float, float]], fill: str, opacity: float = 0.25) -> None:
        p = " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)
        self.add(f'<polygon points="{p}" fill="{fill}" fill-opacity="{_num(opacity)}" stroke="none"/>')

    def x_axis(self, scale: Scale, fmt: Callable[[float], str], label: str = "", ticks: Sequence[float] | None = None) -> None:
        self.line(self.x0, self.y0, self.x1, self.y0, "#666")
        for t in ticks if ticks is not None else nice_ticks(scale.lo, scale.hi):
            x = scale(t)
            if self.x0 - 0.5 <= x <= self.x1 + 0.5:
                self.line(x, self.y0, x, self.y0 + 4, "#666")
                self.line(x, self.y1, x, self.y0, "#eee")
                self.text(x, self.y0 + 16, fmt(t), anchor="middle", size=10)
        if label:
            self.text((self.x0 + self.x1) / 2, self.height - 6, label, anchor="middle", size=11)

    def y_axis(self, scale: Scale, fmt: Callable[[float], str], label: str = "") -> None:
        self.line(self.x0, self.y1, self.x0, self.y0, "#666")
        for t in nice_ticks(scale.lo, scale.hi):
            y = scale(t)
            if self.y1 - 0.5 <= y <= self.y0 + 0.5:
                self.line(self.x0 - 4, y, self.x0, y, "#666")
                self.line(self.x0, y, self.x1, y, "#eee")
                self.text(self.x0 - 6, y + 3, fmt(t), anchor="end", size=10)
        if label:
            self.add(f'<text transform="translate(14,{_num((self.y0 + self.y1) / 2)}) rotate(-90)" '
                     f'text-anchor="middle" font-size="11" fill="#333">{esc(label)}</text>')

    def render(self, kind: str) -> str:
        head = (f'<svg class="plot plot-{esc(kind)}" xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" role="img" '
                f'aria-label="{esc(self.title)}">')
        title = f"<title>{esc(self.title)}</title>" if self.title else ""
        return head + title + "".join(self.parts) + "</svg>"
