"""Where the difference is (`--profile`): the "where" table under the verdict, and the folded files.

The figures come from analysis/profiles.py (each frame's change in time per run, candidate minus
baseline, and its share of the measured difference). The table lists the frames that added the
most time, then those that gave the most back, by self time, with their total time beside; a
frame whose interval across the profiling blocks holds zero is marked `~` (the blocks disagree on
its sign: noise, not a cause). `--export-folded DIR` writes each variant's stacks (seconds per
run, scaled to microseconds: flamegraph.pl, inferno and speedscope want whole counts) and each
difference (signed: the candidate's stacks with a second column, flamegraph.pl's difffolded.pl
form `stack baseline candidate`, which inferno-diff-folded and flamegraph.pl draw red and blue).
"""

from __future__ import annotations

import os
import re
from typing import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pairbench.analysis.profiles import ProfileDifference, clean_stacks, format_folded, rename_files, variant_stacks
from pairbench.model import Run
from pairbench.report.escape import visible
from pairbench.report.format import format_delta, format_percent

__all__ = ["render_where", "where_lines", "where_markdown", "export_folded", "WHERE_ROWS", "FOLDED_SCALE"]

WHERE_ROWS = 5
"""Frames listed each way (added, removed)."""
WHERE_CAPTION = ("self: time in the frame itself, per run (or op); total: with what it calls; share: of the measured "
                 "difference; ~: the profiling blocks disagree on its sign (noise, not a cause)")
FOLDED_SCALE = {"run": 1e6, "op": 1e12, "request": 1e9}
"""Folded files count microseconds per run, nanoseconds per request, picoseconds per operation:
the tools read whole numbers."""


def _describe(d: ProfileDifference) -> str:
    change = format_delta(d.difference_s, d.unit)
    return (f"where: {visible(d.candidate)} vs {visible(d.baseline)} ({visible(d.benchmark)}): {change} per {d.per}, "
            f"by {d.sampler}, {d.blocks} profiling block{'s' if d.blocks != 1 else ''}")


def where_lines(d: ProfileDifference) -> list[str]:
    """The one line said instead of a table when the profile cannot say where, else []."""
    if d.too_short:
        return [f"profile [{visible(d.benchmark)}]: too few samples to say where ({d.samples[0]:.0f} and "
                f"{d.samples[1]:.0f}); make each run longer (0.2 s or more) or give --profile-blocks more blocks"]
    if not d.frames:
        return [f"profile [{visible(d.benchmark)}]: the profiles of {visible(d.baseline)} and "
                f"{visible(d.candidate)} do not differ"]
    if not d.significant:
        return [f"profile [{visible(d.benchmark)} · {visible(d.candidate)}]: no significant difference to place "
                "(the verdict found none); `report --html` draws the profiles, --export-folded writes them"]
    return []


def render_where(run: Run, console: Console) -> None:
    """The "where" table of each candidate (top frames by added and removed self time)."""
    for d in run.profile_differences:
        lines = where_lines(d)
        if lines:
            for line in lines:
                console.print(Text(line, style="dim"))
            console.print()
            continue
        unit = d.unit
        console.print(Text(_describe(d)))
        table = Table(show_edge=False, pad_edge=False)
        table.add_column("frame", overflow="fold")
        for name in ("self", "share", "total", "share"):
            table.add_column(name, justify="right", no_wrap=True)
        rows = d.added(WHERE_ROWS) + d.removed(WHERE_ROWS)
        for f in rows:
            mark = " ~" if f.noise else ""
            table.add_row(Text(visible(f.frame)), format_delta(f.self_s, unit) + mark, format_percent(f.self_share),
                          format_delta(f.total_s, unit), format_percent(f.total_share))
        console.print(table)
        console.print(Text(WHERE_CAPTION, style="dim"))
        console.print()


def where_markdown(run: Run, escape: Callable[[str], str]) -> list[str]:
    """The "where" tables as Markdown lines (`report`'s default format)."""
    out: list[str] = []
    for d in run.profile_differences:
        out += [f"### {escape(_describe(d))}", ""]
        lines = where_lines(d)
        if lines:
            out += [escape(line) for line in lines] + [""]
            continue
        unit = d.unit
        out += ["| frame | self | share | total | share |", "|---|---:|---:|---:|---:|"]
        for f in d.added(WHERE_ROWS) + d.removed(WHERE_ROWS):
            out.append(f"| {escape(f.frame)} | {format_delta(f.self_s, unit)}{' ~' if f.noise else ''} | "
                       f"{format_percent(f.self_share)} | {format_delta(f.total_s, unit)} | "
                       f"{format_percent(f.total_share)} |")
        out += ["", escape(WHERE_CAPTION), ""]
    return out


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "variant"


def export_folded(run: Run, directory: str) -> list[str]:
    """Write the folded stacks of every profiled variant and every difference into `directory`.

    Returns:
        The paths written: `<benchmark>.<variant>.folded` (microseconds per run, picoseconds per op) and
        `<benchmark>.<candidate>-vs-<baseline>.diff.folded` (`stack baseline candidate`).
    """
    os.makedirs(directory, exist_ok=True)
    written: list[str] = []
    for d in run.profile_differences:
        sides = {}
        for variant, seconds in ((d.baseline, d.baseline_s), (d.candidate, d.candidate_s)):
            blocks = [rename_files(clean_stacks(p.stacks), d.files) for p in sorted(run.profiles, key=lambda p: p.block)
                      if p.benchmark == d.benchmark and p.variant == variant]
            sides[variant] = {k: round(v * FOLDED_SCALE.get(d.per, 1e6)) for k, v in variant_stacks(blocks, seconds).items()}
            path = os.path.join(directory, f"{_safe(d.benchmark)}.{_safe(variant)}.folded")
            if path not in written:
                _write(path, format_folded({k: v for k, v in sides[variant].items() if v > 0}))
                written.append(path)
        base, cand = sides[d.baseline], sides[d.candidate]
        lines = [f"{stack} {base.get(stack, 0)} {cand.get(stack, 0)}"
                 for stack in sorted(set(base) | set(cand), key=lambda s: -abs(cand.get(s, 0) - base.get(s, 0)))]
        path = os.path.join(directory, f"{_safe(d.benchmark)}.{_safe(d.candidate)}-vs-{_safe(d.baseline)}.diff.folded")
        _write(path, "\n".join(lines) + ("\n" if lines else ""))
        written.append(path)
    return written


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
