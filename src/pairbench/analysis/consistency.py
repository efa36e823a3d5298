"""Every way a comparison's numbers could disagree with each other: verdict, CI, CI level,
(adjusted) p-value, and the figures shown beside the ratio.

The test suite runs `check_consistent` on every run file a CLI test writes, so each rule here
holds over every comparison the suite produces. Imports the model and stats only.
"""

from __future__ import annotations

from collections.abc import Collection

from pairbench.model import Comparison

__all__ = ["check_consistent"]

_TOL = 1e-9
"""Slack for float rounding when a p-value or a CI end sits on its threshold."""


def check_consistent(comparisons: Collection[Comparison]) -> list[str]:
    """Every way a comparison's verdict, CI, CI level and (adjusted) p-value could disagree.

    The rules (METHOD §4, §6; docs/statistics.md): the CI the verdict rests on (`adjusted_ci` when
    set, else `ci`) achieved at least its level; `significant` is "that CI excludes 1"; it is also
    "the p-value (`adjusted_p` when set, else `p_value`) is at most 1 - `confidence`"; faster and
    slower are significant, inconclusive is not, same lies within ±threshold, and `meaningful`
    is "the whole CI lies beyond ±threshold". Exact and insufficient comparisons have no test;
    an exact comparison's verdict is its change against ±threshold instead. Every comparison
    carries `baseline_value` and `candidate_value`, and beside a positive baseline their quotient
    lies inside the CI (and the adjusted CI), or equals the ratio when there is no CI.

    Args:
        comparisons: any comparisons, e.g. a Run's.

    Returns:
        One line per disagreement, naming the comparison; empty when all agree.
    """
    problems: list[str] = []
    for c in comparisons:
        problems.extend(_values_problems(c))
        if c.exact:
            problems.extend(_exact_problems(c))
        if c.verdict in ("exact", "insufficient") or c.exact or c.ci is None:
            continue
        who = f"{c.benchmark} / {c.metric} / {c.candidate}"
        ci = c.adjusted_ci if c.adjusted_ci is not None else c.ci
        level = c.adjusted_confidence if c.adjusted_ci is not None and c.adjusted_confidence else c.confidence
        if c.adjusted_ci is not None and (c.adjusted_p is None or c.adjusted_confidence is None):
            problems.append(f"{who}: an adjusted CI without its adjusted p-value and level")
            continue
        if c.achieved_confidence is not None and c.achieved_confidence < level - _TOL:
            problems.append(f"{who}: the CI covers {c.achieved_confidence:.4f}, below the {level:.4f} it is labelled")
        excludes = ci[0] > 1.0 or ci[1] < 1.0
        if excludes != c.significant:
            problems.append(f"{who}: significant={c.significant} but the CI [{ci[0]:.6g}, {ci[1]:.6g}] "
                            f"{'excludes' if excludes else 'contains'} 1")
        p = c.adjusted_p if c.adjusted_ci is not None else c.p_value
        if p is not None:
            alpha = 1.0 - c.confidence
            if (p <= alpha + _TOL) != c.significant and abs(p - alpha) > _TOL:
                problems.append(f"{who}: significant={c.significant} but the {'adjusted ' if c.adjusted_ci else ''}"
                                f"p-value {p:.4g} is {'at most' if p <= alpha else 'above'} {alpha:.4g}")
        lo, hi, d = ci[0] - 1.0, ci[1] - 1.0, c.threshold
        within = -d - _TOL <= lo and hi <= d + _TOL
        beyond = hi < -d or lo > d
        if c.verdict in ("faster", "slower") and not c.significant:
            problems.append(f"{who}: {c.verdict} but not significant")
        if c.verdict == "inconclusive" and (c.significant or within):
            problems.append(f"{who}: inconclusive but the CI {'excludes 1' if c.significant else 'is within the band'}")
        if c.verdict == "same" and not within:
            problems.append(f"{who}: same but the CI [{lo:+.4%}, {hi:+.4%}] is not within ±{d:.4%}")
        if c.meaningful != beyond:
            problems.append(f"{who}: meaningful={c.meaningful} but the CI is {'' if beyond else 'not '}beyond the band")
    return problems


def _values_problems(c: Comparison) -> list[str]:
    """The figures beside the ratio: present, and their quotient inside every CI shown (or the ratio)."""
    who = f"{c.benchmark} / {c.metric} / {c.candidate}"
    if c.baseline_value is None or c.candidate_value is None:
        return [f"{who}: no baseline_value or candidate_value beside the ratio"] if c.ratio is not None else []
    if c.baseline_value <= 0 or c.ratio is None:
        return []  # no percent is shown beside a zero (or negative) baseline
    q = c.candidate_value / c.baseline_value
    problems = []
    for name, ci in (("CI", c.ci), ("adjusted CI", c.adjusted_ci)):
        if ci is not None and not (ci[0] * (1 - _TOL) <= q <= ci[1] * (1 + _TOL)):
            problems.append(f"{who}: candidate_value / baseline_value = {q:.6g} lies outside the {name} "
                            f"[{ci[0]:.6g}, {ci[1]:.6g}]")
    if c.ci is None and abs(q - c.ratio) > _TOL * max(1.0, abs(c.ratio)):
        problems.append(f"{who}: candidate_value / baseline_value = {q:.6g} but the ratio is {c.ratio:.6g}")
    return problems


def _exact_problems(c: Comparison) -> list[str]:
    """An exact count's verdict is its change against ±threshold, in the metric's direction."""
    from pairbench.stats.verdict import judge_exact

    who = f"{c.benchmark} / {c.metric} / {c.candidate}"
    if c.baseline_value is None or c.candidate_value is None:
        return []
    problems = []
    for direction in ("lower", "higher"):
        j = judge_exact(c.baseline_value, c.candidate_value, c.threshold, direction)
        if j.verdict == c.verdict and j.meaningful == c.meaningful:
            return []
    j = judge_exact(c.baseline_value, c.candidate_value, c.threshold)
    problems.append(f"{who}: exact verdict {c.verdict} (meaningful={c.meaningful}) but the change "
                    f"{c.baseline_value:g} -> {c.candidate_value:g} against ±{c.threshold:.4%} reads "
                    f"{'same' if j.verdict == 'same' else 'beyond the band'}")
    return problems
