"""The answer of `pairbench calibrate`: a table of the noise per metric and one sentence per benchmark."""

from __future__ import annotations

import math
from typing import Sequence

from pairbench.analysis.calibration import MetricCalibration
from pairbench.report.format import format_value

__all__ = ["calibration_sentence", "render_calibration"]


def _pct(fraction: float | None) -> str:
    """0.01 -> `1%`, 0.0083 -> `0.83%`, 0.0015 -> `0.15%`; `–` when not finite."""
    if fraction is None or not math.isfinite(fraction):
        return "–"
    if 0 < abs(fraction) < 1e-4:
        return "<0.01%"
    return f"{fraction * 100:.2g}%"  # two figures: a band of 0.15% must not read 0.1%


def _seconds(s: float) -> str:
    return f"{s:g} s"


def calibration_sentence(c: MetricCalibration, budget: float) -> str:
    """`on this machine, changes below 0.8% in `time` cannot be told from noise in 60 s; use δ = 1% or a longer budget`."""
    row = c.noise.at(budget)
    name = c.metric.name
    if not math.isfinite(row.mde):
        return (f"on this machine, {_seconds(budget)} fit only {row.blocks} blocks of `{c.benchmark}` (a block takes "
                f"{format_value(c.noise.block_seconds, 's')}): at least 6 are needed; give a longer budget")
    if math.isfinite(row.band) and row.band > row.mde:
        return (f"on this machine, A/A runs of `{name}` read differences up to {_pct(row.band)} in {_seconds(budget)} "
                f"(noise the blocks do not cancel); use δ = {_pct(row.delta)} or a longer budget")
    return (f"on this machine, changes below {_pct(row.mde)} in `{name}` cannot be told from noise in "
            f"{_seconds(budget)}; use δ = {_pct(row.delta)} or a longer budget")


def render_calibration(results: Sequence[MetricCalibration], budget: float, host: str) -> str:
    """The calibration report: per benchmark, a table of metrics and the sentence of its first metric."""
    lines: list[str] = []
    budgets = [b.seconds for b in results[0].noise.budgets] if results else [budget]
    for bench in dict.fromkeys(c.benchmark for c in results):
        mine = [c for c in results if c.benchmark == bench]
        first = mine[0].noise
        lines.append(f"calibration of `{bench}` on {host}: {first.blocks} A/A blocks, "
                     f"{format_value(first.block_seconds, 's')} a block")
        head = ["metric", "replicate SD", "log-ratio SD"] + [f"MDE {_seconds(s)}" for s in budgets] + [
            f"band {_seconds(budget)}", f"δ {_seconds(budget)}"]
        rows = [head]
        for c in mine:
            row = c.noise.at(budget)
            rows.append([c.metric.name, _pct(c.noise.replicate_sd), _pct(c.noise.ratio_sd)]
                        + [_pct(c.noise.at(s).mde) for s in budgets] + [_pct(row.band), _pct(row.delta)])
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines.extend("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows)
        if first.subruns:
            lines.append(f"  A/A false alarms (95% CI excludes 0) in {first.subrun_alarms} of {first.subruns} "
                         f"sub-runs of {first.subrun_blocks}+ blocks; the band keeps them at "
                         f"{_pct(first.target)} within {_seconds(budget)}")
        else:
            lines.append(f"  too few blocks ({first.blocks}) to cut into sub-runs: the band needs 12; give a longer budget")
        shifted = [c for c in mine if c.noise.shift > 0]
        for c in shifted:
            lines.append(f"  warning: `{c.metric.name}` of the command and of its copy differ by "
                         f"{_pct(c.noise.shift)} or more over the whole run (a slot or order effect): it is in the band")
        primary = next((c for c in mine if c.primary), mine[0])
        lines.append(calibration_sentence(primary, budget))
    return "\n".join(lines)
