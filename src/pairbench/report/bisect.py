"""Bisect's closing report: the evidence of every step as a table, then each change or range found."""

from __future__ import annotations

from typing import Sequence

from pairbench.analysis.bisection import BisectStep, Commit, Finding
from pairbench.model import Comparison
from pairbench.report.format import confidence_label

__all__ = ["render_bisect", "bisect_document", "WHY"]

WHY = {
    "undecided": "a step could not tell whether the commit in the middle behaves like either end",
    "untestable": "the commits inside do not build",
    "interrupted": "bisect was stopped before this range was narrowed",
}
"""Why a range could not be narrowed to one commit, by Finding.reason."""


def _inverse(c: Comparison | None) -> str:
    """The tested commit relative to an end (`end / tested` stored, so shown inverted), with its CI."""
    if c is None or c.ratio is None or c.ratio <= 0:
        return "-"
    ci = c.adjusted_ci or c.ci
    text = f"{1 / c.ratio:.3f}x"
    if ci and ci[0] > 0 and ci[1] > 0:
        text += f" [{1 / ci[1]:.3f}, {1 / ci[0]:.3f}]"
    return text


def _ratio(c: Comparison) -> str:
    if c.ratio is None:
        return "no ratio"
    ci = c.adjusted_ci or c.ci
    text = f"{c.ratio:.3f}x"
    if ci:
        text += f" ({confidence_label(c.confidence)} CI {ci[0]:.3f}-{ci[1]:.3f})"
    return text


def _table(steps: Sequence[BisectStep]) -> list[str]:
    head = ("step", "commit", "subject", "tested/good", "tested/bad", "verdict", "blocks", "time")
    rows = [head]
    for i, s in enumerate(steps, 1):
        subject = s.tested.subject if len(s.tested.subject) <= 32 else s.tested.subject[:31] + "…"
        when = "reused" if s.reused else f"{s.seconds:.1f} s"
        rows.append((str(i), s.tested.short, subject, _inverse(s.vs_good), _inverse(s.vs_bad), s.outcome,
                     str(s.blocks) if s.outcome != "skipped" else "-", when))
    widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def _finding(commits: Sequence[Commit], f: Finding, confirmed: Comparison | None, command: str) -> list[str]:
    good, bad = commits[f.good], commits[f.bad]
    if f.exact:
        lines = [f"first bad commit: {bad.id} {bad.subject!r}"]
        if confirmed is not None:
            lines.append(f"  {_ratio(confirmed)} its parent {good.short}: {confirmed.verdict}")
        if command:
            lines.append(f"  reproduce: {command}")
        return lines
    inside = f.bad - f.good
    lines = [f"the change lies after {good.short} and at or before {bad.short} ({inside} commits): {WHY[f.reason]}",
             f"  commits: git log --oneline {good.short}..{bad.short}"]
    if f.skipped:
        lines.append("  not built: " + ", ".join(commits[i].short for i in f.skipped))
    return lines


def render_bisect(commits: Sequence[Commit], steps: Sequence[BisectStep], findings: Sequence[Finding],
                  confirmed: Sequence[Comparison | None], commands: Sequence[str], metric: str,
                  seconds: float) -> str:
    """The closing text of `pairbench bisect`.

    Args:
        commits: the bisected commits, good end first.
        steps: every step in the order measured.
        findings: the changes and ranges found, in commit order.
        confirmed: per finding, the found commit against its parent (None for ranges).
        commands: per finding, a command that reproduces that comparison ("" for ranges).
        metric: the metric that decided the steps.
        seconds: wall time of the whole bisect.
    """
    lines = [f"bisect of {len(commits)} commits, {commits[0].short} (good) .. {commits[-1].short} (bad), "
             f"deciding on {metric}", ""]
    lines += _table(steps) if steps else ["(no step measured)"]
    lines.append("")
    for i, f in enumerate(findings):
        lines += _finding(commits, f, confirmed[i] if i < len(confirmed) else None,
                          commands[i] if i < len(commands) else "")
    changes = sum(1 for f in findings if f.exact)
    if len(findings) > 1:
        lines.append(f"{changes} change{'s' if changes != 1 else ''} and {len(findings) - changes} "
                     f"range{'s' if len(findings) - changes != 1 else ''} found")
    skipped = [s.tested for s in steps if s.outcome == "skipped"]
    if skipped:
        lines.append("skipped (did not build): " + ", ".join(f"{c.short} {c.subject!r}" for c in skipped))
    reused = sum(1 for s in steps if s.reused)
    lines.append(f"{len(steps)} step{'s' if len(steps) != 1 else ''}"
                 + (f" ({reused} reused from the history)" if reused else "") + f" in {seconds:.1f} s")
    return "\n".join(lines) + "\n"


def _comparison(c: Comparison | None) -> dict[str, object] | None:
    if c is None:
        return None
    ci = c.adjusted_ci or c.ci
    return {"benchmark": c.benchmark, "metric": c.metric, "baseline": c.baseline, "candidate": c.candidate,
            "ratio": c.ratio, "ci": list(ci) if ci else None,
            "confidence": c.confidence, "verdict": c.verdict, "meaningful": c.meaningful, "n": c.n}


def bisect_document(commits: Sequence[Commit], steps: Sequence[BisectStep], findings: Sequence[Finding],
                    confirmed: Sequence[Comparison | None], commands: Sequence[str], metric: str,
                    seconds: float) -> dict[str, object]:
    """The same result as `render_bisect`, as data for `--export-json` (scripts, CI)."""
    return {
        "schema": "pairbench.bisect", "version": 1, "metric": metric, "seconds": round(seconds, 3),
        "commits": [{"id": c.id, "subject": c.subject} for c in commits],
        "steps": [{"tested": s.tested.id, "good": s.good.id, "bad": s.bad.id, "outcome": s.outcome,
                   "vs_good": _comparison(s.vs_good), "vs_bad": _comparison(s.vs_bad), "blocks": s.blocks,
                   "seconds": round(s.seconds, 3), "reused": s.reused, "run_file": s.run_file} for s in steps],
        "findings": [{"kind": "change" if f.exact else "range", "reason": f.reason,
                      "good": commits[f.good].id, "bad": commits[f.bad].id,
                      "skipped": [commits[i].id for i in f.skipped],
                      "against_parent": _comparison(confirmed[i] if i < len(confirmed) else None),
                      "reproduce": commands[i] if i < len(commands) else ""} for i, f in enumerate(findings)],
    }
