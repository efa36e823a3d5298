"""Noise-aware bisection: each step's verdict, and the search that narrows commits to changes.

Method: like `git bisect`, but a step is decided by two paired, interleaved comparisons measured
in one run (the tested commit as the baseline, the interval's good and bad ends as candidates),
not by one timing. The step's commit behaves like the good end when its comparison with the bad
end is a meaningful difference (verdict beyond the ±δ band) and its comparison with the good end is
not, with that CI nearer the good end than the bad (less than half the good→bad step in log
scale); like the bad end the other way round. When it differs meaningfully from both ends the
change is made of several steps ("between"): both halves are searched, so two changes are
reported as two, never folded into one wrong commit. Anything else is "undecided": that interval
is reported as a range, never guessed. Commits that do not build are skipped, as `git bisect skip`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

from pairbench.model import Comparison

__all__ = ["Outcome", "OUTCOMES", "decide_step", "decide_benchmarks", "Finding", "search_changes", "Commit", "BisectStep"]

Outcome = Literal["good", "bad", "between", "undecided", "skipped"]
OUTCOMES: tuple[str, ...] = ("good", "bad", "between", "undecided", "skipped")

Probe = Callable[[int, int, int], Outcome]
"""(good index, tested index, bad index) -> how the tested commit behaves."""


def _differs(c: Comparison) -> bool:
    """A meaningful difference: significant and beyond the ±δ band."""
    return c.verdict in ("faster", "slower") and c.meaningful


def _log_ci(c: Comparison) -> tuple[float, float] | None:
    ci = c.adjusted_ci or c.ci
    if ci is None or ci[0] <= 0 or ci[1] <= 0:
        return None
    return math.log(ci[0]), math.log(ci[1])


def _nearer_to_tested(c: Comparison, half_step: float) -> bool:
    """The whole CI of `end / tested` lies within half the good→bad step of 1 (log scale)."""
    ci = _log_ci(c)
    return ci is not None and max(abs(ci[0]), abs(ci[1])) < half_step


def decide_step(vs_good: Comparison, vs_bad: Comparison) -> Outcome:
    """How the tested commit behaves, from its comparisons with the good and the bad end.

    Args:
        vs_good: tested commit (baseline) against the good end (candidate).
        vs_bad: tested commit (baseline) against the bad end (candidate).

    Returns:
        "good", "bad", "between" (differs from both: the change has several steps) or "undecided".
    """
    if vs_good.ratio is None or vs_bad.ratio is None or vs_good.ratio <= 0 or vs_bad.ratio <= 0:
        return "undecided"
    half_step = abs(math.log(vs_bad.ratio) - math.log(vs_good.ratio)) / 2
    off_good, off_bad = _differs(vs_good), _differs(vs_bad)
    if off_good and off_bad:
        return "between"
    if off_bad and not off_good and _nearer_to_tested(vs_good, half_step):
        return "good"
    if off_good and not off_bad and _nearer_to_tested(vs_bad, half_step):
        return "bad"
    return "undecided"


def decide_benchmarks(pairs: Sequence[tuple[Comparison, Comparison]]) -> Outcome:
    """One step's outcome over several benchmarks, each given as (vs good end, vs bad end).

    Benchmarks that differ from neither end did not change between them and say nothing. The rest
    must agree; benchmarks that changed at different commits ("good" for one, "bad" for another)
    make the step "between", so both halves are searched; one undecided benchmark undecides it.
    """
    outcomes = [decide_step(g, b) for g, b in pairs if _differs(g) or _differs(b)]
    if not outcomes or "undecided" in outcomes:
        return "undecided"
    return outcomes[0] if len(set(outcomes)) == 1 else "between"


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit of the bisected range."""

    id: str
    """Full hash."""
    subject: str
    """First line of its message."""

    @property
    def short(self) -> str:
        return self.id[:12]


@dataclass(frozen=True, slots=True)
class BisectStep:
    """The evidence of one step: what was measured and what it decided."""

    tested: Commit
    good: Commit
    """The interval's good end it was compared with."""
    bad: Commit
    outcome: Outcome
    vs_good: Comparison | None = None
    """Tested commit (baseline) against the good end."""
    vs_bad: Comparison | None = None
    blocks: int = 0
    """Interleaved blocks measured."""
    seconds: float = 0.0
    """Building and measuring (0 when reused)."""
    reused: bool = False
    """Taken from the history store instead of measured again."""
    run_file: str = ""


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a change lies: between commit `good` (index) and commit `bad`."""

    good: int
    """Index of the last commit known to behave like the good side."""
    bad: int
    """Index of the first commit known to behave like the bad side."""
    reason: Literal["change", "undecided", "untestable", "interrupted"]
    """"change" when the two are adjacent (bad is the first bad commit); otherwise why the range
    could not be narrowed: a step could not decide, the commits inside do not build, or a stop."""
    skipped: tuple[int, ...] = ()
    """Commits inside the range that did not build."""

    @property
    def exact(self) -> bool:
        return self.reason == "change"


def _candidates(good: int, bad: int, skipped: set[int]) -> list[int]:
    """Commits strictly inside (good, bad) that can still be tested, nearest the middle first."""
    middle = (good + bad) / 2
    return sorted((i for i in range(good + 1, bad) if i not in skipped), key=lambda i: (abs(i - middle), i))


def search_changes(n_commits: int, probe: Probe, skipped: set[int] | None = None,
                   pending: list[tuple[int, int]] | None = None) -> list[Finding]:
    """Bisect commits 0 (good) .. n_commits - 1 (bad), probing midpoints until every change is placed.

    Args:
        n_commits: commits in order, the good end first and the bad end last.
        probe: measures a commit against an interval's ends; "skipped" when it does not build.
        skipped: indices known not to build (filled in as the search finds more).
        pending: filled with the intervals not yet searched, so an interrupted caller can report
            the range found so far.

    Returns:
        Findings in commit order: each change (adjacent good, bad) or range that could not be narrowed.
    """
    if n_commits < 2:
        raise ValueError("bisection needs a good and a bad commit")
    skip = skipped if skipped is not None else set()
    stack = pending if pending is not None else []
    stack[:] = [(0, n_commits - 1)]
    found: list[Finding] = []
    while stack:
        good, bad = stack[-1]
        outcome: Outcome = "skipped"
        tested = -1
        for tested in _candidates(good, bad, skip):
            outcome = probe(good, tested, bad)
            if outcome != "skipped":
                break
            skip.add(tested)
        stack.pop()
        inside = tuple(i for i in range(good + 1, bad) if i in skip)
        if outcome == "skipped":  # nothing inside left to test (or adjacent)
            found.append(Finding(good, bad, "untestable" if inside else "change", inside))
        elif outcome == "undecided":
            found.append(Finding(good, bad, "undecided", inside))
        else:
            # Pushed so that the earlier half is searched first.
            if outcome in ("bad", "between"):
                if outcome == "between":
                    stack.append((tested, bad))
                stack.append((good, tested))
            else:
                stack.append((tested, bad))
    found.sort(key=lambda f: f.good)
    return found
