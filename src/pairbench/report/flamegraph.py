"""Flame graphs as self-contained SVG (no script): a variant's own, and the differential one.

Brendan Gregg's layout (flamegraph.pl): the root at the bottom, each frame as wide as the time
spent in it and what it calls, its callees stacked above in name order. The differential graph is
his too ("Differential Flame Graphs", 2014): the candidate's stacks drawn as widths, each frame
coloured by the change of its own (self) time, red where the candidate spends more, blue where
less, white where nothing changed; the deeper the colour, the larger the change against the largest
one. A frame the candidate no longer calls has no width there, so the removed time is listed in
the table beside the graph. Hovering shows each frame's figures (an SVG `<title>`, no script).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Mapping

from pairbench.analysis.profiles import ProfileDifference, clean_stacks, rename_files, variant_stacks
from pairbench.model import Run
from pairbench.report.format import format_delta, format_percent, format_value
from pairbench.report.svg import esc

__all__ = ["flame_svg", "profiles_html"]

WIDTH_PX = 960.0
ROW_PX = 16.0
MIN_PX = 0.3
"""Frames narrower than this are not drawn (flamegraph.pl's --minwidth)."""
CHAR_PX = 6.5
"""Width of a label character at the graph's 11 px font."""


@dataclass
class _Node:
    name: str
    value: float = 0.0
    own_delta: float = 0.0
    children: dict[str, _Node] = field(default_factory=dict)


def _tree(stacks: Mapping[str, float], deltas: Mapping[str, float]) -> _Node:
    root = _Node("all")
    for stack, value in stacks.items():
        node = root
        node.value += value
        for frame in stack.split(";"):
            node = node.children.setdefault(frame, _Node(frame))
            node.value += value
    for stack, delta in deltas.items():
        node = root
        for frame in stack.split(";"):
            node = node.children.setdefault(frame, _Node(frame))
        node.own_delta += delta
    return root


def _depth(node: _Node) -> int:
    return 1 + max((_depth(c) for c in node.children.values() if c.value > 0), default=0)


def _warm(name: str) -> str:
    """flamegraph.pl's "hot" palette, chosen by the name so a frame keeps its colour across graphs."""
    h = zlib.crc32(name.encode("utf-8"))
    return f"rgb({205 + h % 50},{(h >> 8) % 180},{(h >> 16) % 55})"


def _diff_colour(delta: float, largest: float) -> str:
    if largest <= 0 or delta == 0:
        return "rgb(250,250,250)"
    depth = int(210 * min(abs(delta) / largest, 1.0))
    return f"rgb(255,{250 - depth},{250 - depth})" if delta > 0 else f"rgb({250 - depth},{250 - depth},255)"


def flame_svg(stacks: Mapping[str, float], deltas: Mapping[str, float] | None = None, unit: str = "s",
              label: str = "") -> str:
    """One flame graph as an `<svg>` element.

    Args:
        stacks: folded stacks, as seconds per run (the widths).
        deltas: per stack, the change of its time (candidate minus baseline): a differential graph.
        unit: the unit of the figures in the tooltips.
        label: the graph's accessible name.
    """
    deltas = deltas or {}
    root = _tree(stacks, deltas)
    if root.value <= 0:
        return ""
    largest = max((abs(d) for d in deltas.values()), default=0.0)
    depth = min(_depth(root), 60)
    height = depth * ROW_PX + 4
    scale = WIDTH_PX / root.value
    parts = [f'<svg class="flame" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH_PX:.0f} {height:.0f}" '
             f'width="{WIDTH_PX:.0f}" height="{height:.0f}" role="img" aria-label="{esc(label)}" '
             'font-family="Verdana,sans-serif" font-size="11">']

    def draw(node: _Node, x: float, level: int) -> None:
        width = node.value * scale
        if width < MIN_PX or level >= depth:
            return
        y = height - (level + 1) * ROW_PX
        colour = _diff_colour(node.own_delta, largest) if deltas else _warm(node.name)
        share = format_percent(node.value / root.value, signed=False)
        tip = f"{node.name}: {format_value(node.value, unit)} ({share})"
        if deltas:
            tip += f", own time {format_delta(node.own_delta, unit)}"
        parts.append(f'<g><title>{esc(tip)}</title><rect x="{x:.2f}" y="{y:.1f}" width="{width:.2f}" '
                     f'height="{ROW_PX - 1:.0f}" fill="{colour}" rx="1"/>')
        fits = int((width - 4) / CHAR_PX)
        if fits >= 3:
            text = node.name if len(node.name) <= fits else node.name[:fits - 2] + ".."
            parts.append(f'<text x="{x + 3:.2f}" y="{y + ROW_PX - 4:.1f}">{esc(text)}</text>')
        parts.append("</g>")
        child_x = x
        for name in sorted(node.children):
            child = node.children[name]
            draw(child, child_x, level + 1)
            child_x += child.value * scale

    draw(root, 0.0, 0)
    parts.append("</svg>")
    return "".join(parts)


def _side(run: Run, d: ProfileDifference, variant: str, seconds: float) -> dict[str, float]:
    blocks = [rename_files(clean_stacks(p.stacks), d.files) for p in sorted(run.profiles, key=lambda p: p.block)
              if p.benchmark == d.benchmark and p.variant == variant]
    return variant_stacks(blocks, seconds)


def profiles_html(run: Run, benchmark: str) -> str:
    """The benchmark's profile section: per candidate the differential flame graph and the frames that
    moved most; each variant's own flame graph folded away below."""
    parts: list[str] = []
    own: dict[str, str] = {}
    for d in run.profile_differences:
        if d.benchmark != benchmark:
            continue
        unit = d.unit
        base, cand = _side(run, d, d.baseline, d.baseline_s), _side(run, d, d.candidate, d.candidate_s)
        deltas = {s: cand.get(s, 0.0) - base.get(s, 0.0) for s in set(base) | set(cand)}
        parts.append(f"<h4>Where: {esc(d.candidate)} vs {esc(d.baseline)} ({format_delta(d.difference_s, unit)} "
                     f"per {d.per}, by {esc(d.sampler)}, {d.blocks} profiling blocks)</h4>")
        if d.too_short:
            parts.append('<p class="warn">Too few samples to say where: make each run longer.</p>')
            continue
        parts.append('<p class="notes">Red: the candidate spends more time in the frame itself; blue: less; '
                     "width: the candidate's time.</p>")
        parts.append(flame_svg(cand, deltas, unit, f"differential flame graph of {d.candidate} against {d.baseline}"))
        rows = "".join(
            f"<tr><td>{esc(f.frame)}</td><td>{format_delta(f.self_s, unit)}{' ~' if f.noise else ''}</td>"
            f"<td>{format_percent(f.self_share)}</td><td>{format_delta(f.total_s, unit)}</td>"
            f"<td>{format_percent(f.total_share)}</td></tr>" for f in d.added(5) + d.removed(5))
        parts.append("<table><tr><th>frame</th><th>self</th><th>share</th><th>total</th><th>share</th></tr>"
                     f"{rows}</table>")
        for variant, stacks in ((d.baseline, base), (d.candidate, cand)):
            if variant not in own:
                own[variant] = flame_svg(stacks, None, unit, f"flame graph of {variant}")
    if own:
        parts.append("<details><summary>Each variant's own flame graph</summary>"
                     + "".join(f"<h4>{esc(v)}</h4>{svg}" for v, svg in own.items()) + "</details>")
    return "".join(parts)
