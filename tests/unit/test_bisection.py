"""Bisection: a step's verdict from its two comparisons, and the search over commits."""

from __future__ import annotations

import pytest

from pairbench.analysis.bisection import Finding, decide_step, search_changes
from pairbench.model import Comparison


def comp(ratio: float, lo: float, hi: float, verdict: str, meaningful: bool | None = None) -> Comparison:
    differs = verdict in ("faster", "slower")
    return Comparison("b", "time", "tested", "end", ratio, (lo, hi), 0.001 if differs else 0.5, 20,
                      significant=differs, meaningful=differs if meaningful is None else meaningful,
                      verdict=verdict, more_runs=None)  # type: ignore[arg-type]


SAME = comp(1.0, 0.98, 1.02, "same")


def test_like_good_when_only_the_bad_end_differs() -> None:
    assert decide_step(SAME, comp(1.3, 1.27, 1.33, "slower")) == "good"


def test_like_bad_when_only_the_good_end_differs() -> None:
    assert decide_step(comp(0.77, 0.75, 0.79, "faster"), SAME) == "bad"


def test_between_when_both_ends_differ() -> None:
    # +25% then +25%: the tested commit is 1.25x the good one and the bad one is 1.25x it.
    assert decide_step(comp(0.8, 0.78, 0.82, "faster"), comp(1.25, 1.22, 1.28, "slower")) == "between"


def test_wide_interval_is_undecided_not_a_guess() -> None:
    # Not meaningfully different from the good end, but its CI reaches past half the step: no verdict.
    wide = comp(0.95, 0.80, 1.10, "inconclusive")
    assert decide_step(wide, comp(1.3, 1.1, 1.5, "slower")) == "undecided"
    # An inconclusive comparison that stays near the tested commit still lets the other side decide.
    narrow = comp(0.99, 0.96, 1.02, "inconclusive")
    assert decide_step(narrow, comp(1.3, 1.25, 1.35, "slower")) == "good"


def test_no_difference_with_either_end_is_undecided() -> None:
    assert decide_step(SAME, SAME) == "undecided"


def test_significant_but_inside_the_band_is_not_a_difference() -> None:
    tiny = comp(1.005, 1.001, 1.009, "same", meaningful=False)
    assert decide_step(tiny, comp(1.3, 1.27, 1.33, "slower")) == "good"


def scripted(levels: list[float], broken: set[int] = frozenset()) -> tuple[list[tuple[int, int, int]], object]:
    """A probe that knows each commit's true level (no noise) and which commits fail to build."""
    calls: list[tuple[int, int, int]] = []

    def probe(g: int, m: int, b: int) -> str:
        calls.append((g, m, b))
        if m in broken:
            return "skipped"
        gm, bm = levels[g] / levels[m], levels[b] / levels[m]
        return decide_step(comp(gm, gm * 0.99, gm * 1.01, "same" if gm == 1 else "faster"),
                           comp(bm, bm * 0.99, bm * 1.01, "same" if bm == 1 else "slower"))

    return calls, probe


def test_one_regression_among_neutral_commits_is_found() -> None:
    levels = [1.0] * 6 + [1.3] * 5
    calls, probe = scripted(levels)
    assert search_changes(len(levels), probe) == [Finding(5, 6, "change")]
    assert len(calls) <= 4  # log2(10) steps, not a linear scan


def test_a_commit_that_does_not_build_is_skipped_and_reported() -> None:
    levels = [1.0] * 4 + [1.3] * 4
    calls, probe = scripted(levels, broken={3})
    found = search_changes(len(levels), probe)
    # Commit 3 cannot be tested, so the change lies in 3 or 4: a range, not a guess.
    assert found == [Finding(2, 4, "untestable", (3,))]
    calls, probe = scripted(levels, broken={2})
    assert search_changes(len(levels), probe) == [Finding(3, 4, "change")]


def test_two_steps_are_reported_as_two_changes() -> None:
    levels = [1.0] * 3 + [1.25] * 3 + [1.5625] * 3
    _, probe = scripted(levels)
    assert search_changes(len(levels), probe) == [Finding(2, 3, "change"), Finding(5, 6, "change")]


def test_an_undecided_step_leaves_its_range() -> None:
    pending: list[tuple[int, int]] = []
    found = search_changes(9, lambda g, m, b: "undecided", pending=pending)
    assert found == [Finding(0, 8, "undecided")] and pending == []


def test_an_interrupted_search_keeps_the_open_range() -> None:
    pending: list[tuple[int, int]] = []
    answers = iter(["good"])

    def probe(g: int, m: int, b: int) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    with pytest.raises(KeyboardInterrupt):
        search_changes(9, probe, pending=pending)
    assert pending == [(4, 8)]


def test_several_benchmarks_unchanged_ones_say_nothing_and_disagreement_is_between() -> None:
    from pairbench.analysis.bisection import decide_benchmarks

    good = (SAME, comp(1.3, 1.27, 1.33, "slower"))
    bad = (comp(0.77, 0.75, 0.79, "faster"), SAME)
    assert decide_benchmarks([good, (SAME, SAME)]) == "good"
    assert decide_benchmarks([bad, bad]) == "bad"
    assert decide_benchmarks([good, bad]) == "between"  # each changed at another commit: search both halves
    assert decide_benchmarks([good, (comp(0.95, 0.80, 1.10, "inconclusive"), comp(1.3, 1.1, 1.5, "slower"))]) \
        == "undecided"
    assert decide_benchmarks([(SAME, SAME)]) == "undecided"
