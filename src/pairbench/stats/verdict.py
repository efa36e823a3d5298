"""Verdict rules: a CI plus a practical margin δ, and how many more blocks would settle it.

Method (METHOD §4, §5): with the CI of the percent change [L, U] and the noise band ±δ, checked
in order: U < -δ or L > δ -> faster/slower, meaningful (criterion's "improved/regressed");
-δ <= L and U <= δ -> same (equivalence, the TOST idea of Schuirmann 1987 as in BenchmarkDotNet
PR #960; a 95% CI is stricter than TOST at 5%); CI excludes 0 with one end inside the band ->
faster/slower but "may be below δ" (criterion's "change within noise threshold"); otherwise
inconclusive. More blocks: n_needed ≈ ceil(n·(h/h*)²) with h the current log half-width and h*
the distance from the estimate to the band edge nearest to it (tachometer's auto-sample idea).
Minimum detectable effect at 80% power: (z_{1-α/2} + z_{0.8})·SE (pyperf's 4Z²σ²/W² is the
one-sample version).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairbench.stats._dist import norm_ppf

__all__ = [
    "DEFAULT_BUDGET_BLOCKS",
    "MIN_PAIRS",
    "Judgement",
    "better_side",
    "blocks_needed",
    "judge",
    "judge_exact",
    "min_detectable_effect",
]

MIN_PAIRS = 6
"""No verdict below 6 pairs: an exact signed-rank test cannot reach p < 0.05 with 5 (METHOD §1)."""

DEFAULT_BUDGET_BLOCKS = 1000
"""Beyond this many blocks in all an inconclusive result is reported as not resolvable."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """The outcome of the verdict table for one CI."""

    verdict: str
    """faster, slower, same or inconclusive."""
    significant: bool
    meaningful: bool
    notes: tuple[str, ...] = ()


def better_side(ratio_below_one: bool, direction: str) -> str:
    """'faster' when the candidate's value moved the good way for the metric, else 'slower'."""
    if direction == "higher":
        return "slower" if ratio_below_one else "faster"
    return "faster" if ratio_below_one else "slower"


def judge(ci_low: float, ci_high: float, threshold: float, direction: str = "lower") -> Judgement:
    """Apply METHOD §4 to a CI of the ratio candidate/baseline.

    Args:
        ci_low: lower end of the ratio's CI.
        ci_high: upper end.
        threshold: δ as a fraction (0.01 = ±1%).
        direction: "lower" (times: ratio < 1 is faster) or "higher" (rates: ratio > 1 is faster).

    Returns:
        The verdict with the significant/meaningful flags and notes.
    """
    lo = ci_low - 1.0
    hi = ci_high - 1.0
    d = threshold
    significant = ci_low > 1.0 or ci_high < 1.0
    band = f"±{_pct(d)}"
    if hi < -d or lo > d:
        return Judgement(better_side(hi < 0, direction), True, True)
    if -d <= lo and hi <= d:
        notes: tuple[str, ...] = ()
        if significant:
            notes = (f"a real but negligible shift: the CI excludes 0 but lies within {band}",)
        return Judgement("same", significant, False, notes)
    if significant:
        return Judgement(better_side(hi < 0, direction), True, False,
                         (f"significant, but may be below the {band} noise band",))
    return Judgement("inconclusive", False, False)


def judge_exact(baseline: float, candidate: float, threshold: float, direction: str = "lower") -> Judgement:
    """The verdict of an exact count (METHOD §7: no test, the change is the change).

    A count that does not vary between identical runs has no sampling error, so its change is
    judged as a CI of zero width would be: beyond ±δ it is faster/slower in the metric's
    direction (meaningful), within it (edges included) `same`. From 0 to any other value is
    beyond every band; 0 to 0 is `same`.

    Args:
        baseline: the baseline's count.
        candidate: the candidate's count.
        threshold: δ as a fraction.
        direction: "lower" (a cost: more is slower) or "higher".
    """
    if baseline == 0:
        if candidate == 0:
            return Judgement("same", False, False)
        return Judgement(better_side(candidate < 0, direction), True, True)
    ratio = candidate / baseline
    change = ratio - 1.0
    if abs(change) <= threshold * (1 + 1e-9):  # 99/100 - 1 is -0.010000000000000009: on the edge is inside
        return Judgement("same", ratio != 1.0, False)
    return Judgement(better_side(ratio < 1.0, direction), True, True)


def _pct(fraction: float) -> str:
    text = f"{fraction * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def blocks_needed(estimate_log: float, half_width_log: float, n: int, threshold: float,
                  budget: int = DEFAULT_BUDGET_BLOCKS) -> tuple[int | None, bool]:
    """Blocks in all needed for the CI to clear the band edge nearest to the estimate (METHOD §5).

    Args:
        estimate_log: the estimated log-ratio Δ̂.
        half_width_log: the CI half-width h on the log scale now.
        n: blocks (pairs) now.
        threshold: δ as a fraction; 0 asks only about the sign.
        budget: total blocks beyond which the answer is "cannot resolve".

    Returns:
        (n_needed, resolvable): n_needed is None when the estimate sits on a band edge or the
        answer would need more than `budget` blocks.
    """
    if n <= 0 or not math.isfinite(half_width_log):
        return None, False
    edges = (math.log1p(-threshold), math.log1p(threshold)) if threshold > 0 else (0.0,)
    target = min(abs(estimate_log - e) for e in edges)
    if target <= 0:
        return None, False
    shrink = half_width_log / target
    exact = n * shrink * shrink  # not ** 2: float pow raises OverflowError instead of giving inf
    if not math.isfinite(exact) or exact > budget:
        return None, False
    needed = max(math.ceil(exact), n + 1)
    if needed > budget:
        return None, False
    return needed, True


def min_detectable_effect(se_log: float, confidence: float = 0.95, power: float = 0.8) -> float:
    """Smallest true change (fraction) found with `power` at this standard error (log scale)."""
    if not math.isfinite(se_log):
        return math.nan
    z = norm_ppf(0.5 + confidence / 2) + norm_ppf(power)
    x = z * se_log
    return math.expm1(x) if x < 709.0 else math.inf  # past the float range: no change is detectable
