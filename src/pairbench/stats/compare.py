"""Comparing a candidate with the baseline: ratio, CI, p-value and verdict (METHOD §2-§5).

Method: work on log values. Paired (interleaved blocks): d_i = ln(c_i) - ln(b_i); the mean of d
with the t interval, cross-checked by a BCa bootstrap over blocks (reported instead, with the
note "non-normal differences", when the two disagree by more than 10% of the t width; below 20
blocks such a disagreement selects the robust mode instead, because BCa under-covers with few
blocks: Efron & Tibshirani 1993 §14.3, and our A/A simulations); or, when outliers or skew are
flagged or n < 10, the Hodges-Lehmann pseudo-median of d with the inverted Wilcoxon signed-rank CI. Unpaired (two sessions): Welch's t on log values, or the
Hodges-Lehmann shift with the inverted Mann-Whitney CI. Exact metrics: the exact delta, no test.
References are in the modules that implement each step (tests, bootstrap, verdict, outliers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairbench.stats._order import median
from pairbench.stats._dist import t_ppf
from pairbench.stats.bootstrap import BOOTSTRAP_RESAMPLES, bca_mean_interval, bca_p_value
from pairbench.stats.drift import trend
from pairbench.stats.estimate import log_diffs, log_values
from pairbench.stats.outliers import bimodal_flag, outlier_mask, skew_flag, two_groups, two_levels
from pairbench.stats.reached import reached_paired, reached_unpaired
from pairbench.stats.tests import (
    mann_whitney_interval,
    mann_whitney_max_confidence,
    rank_max_confidence,
    t_interval,
    welch_interval,
    wilcoxon_interval,
)
from pairbench.stats.verdict import (
    DEFAULT_BUDGET_BLOCKS,
    MIN_PAIRS,
    blocks_needed,
    judge,
    min_detectable_effect,
)

__all__ = [
    "MIN_PAIRS",
    "MIN_PER_SIDE",
    "MODES",
    "BOOTSTRAP_MIN_N",
    "NON_NORMAL_NOTE",
    "NON_NORMAL_SMALL_NOTE",
    "ROBUST_BELOW_N",
    "UNPAIRED_NOTE",
    "ExactResult",
    "PairedResult",
    "compare_exact",
    "compare_paired",
    "compare_unpaired",
    "paired_interval",
]

MIN_PER_SIDE = 4
"""No unpaired verdict below 4 values per side (benchstat's uTestMinP, METHOD §1)."""

ROBUST_BELOW_N = 10
"""The mean of d is the default only from 10 blocks on (METHOD §2); below, Hodges-Lehmann."""

BOOTSTRAP_MIN_N = 20
"""Below this many blocks a t/bootstrap disagreement switches to the robust mode, not to the bootstrap."""

_DISAGREE = 0.10
"""t and bootstrap CIs 'disagree' when an end differs by more than this share of the t width."""

NON_NORMAL_NOTE = ("non-normal differences (or too few blocks to rule them out): the BCa bootstrap CI is reported, "
                   "as the t interval differs from it by more than 10% of its width")
NON_NORMAL_SMALL_NOTE = ("non-normal differences (or too few blocks to rule them out): the t and bootstrap "
                         "intervals differ by more than 10% of the width, and with fewer than 20 blocks the "
                         "bootstrap is unreliable, so the robust Hodges-Lehmann estimate is used")
UNPAIRED_NOTE = "not interleaved: drift between sessions is not controlled"


@dataclass(frozen=True, slots=True)
class PairedResult:
    """The comparison of candidate with baseline for one metric (paired or, with paired=False, not)."""

    ratio: float | None
    """Candidate ÷ baseline in the metric's own unit (exp of the log estimate); None without data."""
    ci: tuple[float, float] | None
    """CI of `ratio` at `confidence`."""
    p_value: float | None
    """Paired t or Wilcoxon (Welch or Mann-Whitney when unpaired); secondary to the CI."""
    n: int
    """Paired blocks, or the smaller side's count when unpaired."""
    significant: bool
    """The CI excludes 1."""
    meaningful: bool
    """The whole CI lies beyond ±threshold."""
    verdict: str
    """faster, slower, same, inconclusive or insufficient, in the metric's direction."""
    more_runs: int | None
    """Extra blocks expected to settle an inconclusive (or insufficient) result; None otherwise or if unresolvable."""
    unresolvable: bool
    """Inconclusive and the estimate sits so near a band edge that the budget cannot settle it."""
    mde: float | None
    """Minimum detectable change (fraction) at 80% power for the current n."""
    method: str
    notes: tuple[str, ...]
    threshold: float
    confidence: float
    direction: str
    paired: bool = True
    robust: bool = False
    """Hodges-Lehmann with a rank CI instead of the mean with a t/bootstrap CI."""
    estimate_log: float = math.nan
    """The log-ratio estimate Δ̂."""
    ci_log: tuple[float, float] | None = None
    log_sd: float = math.nan
    """Standard deviation of the log-differences (paired) or pooled log values (unpaired)."""
    achieved_confidence: float = math.nan
    """Actual coverage of a rank CI (discrete), else equal to `confidence`."""
    outliers: int = 0
    """Blocks whose log-difference has |MAD z| > 3.5 (paired) or values on either side (unpaired)."""
    drift_tau: float = 0.0
    drift_p: float = 1.0
    n_baseline: int = 0
    n_candidate: int = 0
    mode: str = "t"
    """How the CI was made: "t", "bootstrap" or "rank" (see MODES)."""
    reached_ci: tuple[float, float] | None = None
    """Below the blocks a verdict needs (insufficient): the rank CI of the ratio at the highest level
    these blocks reach, at most `confidence`, so that what can be said is said at a level it holds."""
    reached_confidence: float | None = None
    """The level of `reached_ci` (its coverage is at least this)."""

    @property
    def change(self) -> float | None:
        """Percent change as a fraction: ratio - 1."""
        return None if self.ratio is None else self.ratio - 1.0

    @property
    def change_ci(self) -> tuple[float, float] | None:
        return None if self.ci is None else (self.ci[0] - 1.0, self.ci[1] - 1.0)


@dataclass(frozen=True, slots=True)
class ExactResult:
    """An exact metric (counts): the delta, no test."""

    baseline_value: float
    """Median over blocks (the single value when exact)."""
    candidate_value: float
    delta: float
    """candidate - baseline in the metric's unit."""
    ratio: float | None
    """candidate ÷ baseline, None when the baseline is 0."""
    n_baseline: int
    n_candidate: int
    varies: bool
    """Values differ between blocks on either side, so the metric is not really exact."""
    notes: tuple[str, ...]
    verdict: str = "exact"
    method: str = "exact delta"


def _check(threshold: float, confidence: float, direction: str) -> None:
    if not 0 <= threshold < 1:
        raise ValueError(f"threshold {threshold!r} must be a fraction in [0, 1), e.g. 0.01 for 1%")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence!r} must be in (0, 1), e.g. 0.95")
    if direction not in ("lower", "higher"):
        raise ValueError(f"direction {direction!r} must be 'lower' or 'higher' to compare")


def _robust_reason(n: int, outliers: int, skewed: bool) -> str | None:
    if outliers:
        return f"outliers: {outliers} of {n} (MAD z > 3.5), reported not dropped; robust Hodges-Lehmann estimate used"
    if skewed:
        return "skewed differences; robust Hodges-Lehmann estimate used"
    return None


def _exp(x: float) -> float:
    """exp that gives inf past the float range (a log-CI end of ~710 and up): an unbounded end, not a crash."""
    return math.exp(x) if x < 709.0 else math.inf


def _finish(*, est: float, lo: float, hi: float, p: float, n: int, se_log: float, threshold: float,
            confidence: float, direction: str, method: str, notes: list[str], budget: int, min_n: int,
            **extra: object) -> PairedResult:
    """Shared tail of paired and unpaired comparisons: verdict table, more runs, MDE."""
    ratio = _exp(est)
    ci = (_exp(lo), _exp(hi))
    mde = min_detectable_effect(se_log, confidence) if math.isfinite(se_log) else None
    more: int | None = None
    unresolvable = False
    if n < min_n:
        verdict, significant, meaningful = "insufficient", False, False
        more = min_n - n
        notes.append(f"too few {'blocks' if extra.get('paired', True) else 'values per side'} for a verdict: "
                     f"{n} (need at least {min_n})")
    else:
        j = judge(ci[0], ci[1], threshold, direction)
        verdict, significant, meaningful = j.verdict, j.significant, j.meaningful
        notes.extend(j.notes)
        if verdict == "inconclusive":
            half = (hi - lo) / 2.0
            needed, ok = blocks_needed(est, half, n, threshold, budget)
            if ok and needed is not None:
                more = needed - n
            else:
                unresolvable = True
                notes.append(f"cannot resolve within budget: the estimate sits near the ±{threshold * 100:g}% "
                             f"band edge (more than {budget} blocks would be needed)")
    return PairedResult(
        ratio=ratio, ci=ci, p_value=p, n=n, significant=significant, meaningful=meaningful, verdict=verdict,
        more_runs=more, unresolvable=unresolvable, mde=mde, method=method, notes=tuple(notes),
        threshold=threshold, confidence=confidence, direction=direction, estimate_log=est, ci_log=(lo, hi),
        **extra,  # type: ignore[arg-type]
    )


def _empty(n: int, threshold: float, confidence: float, direction: str, min_n: int, paired: bool,
           nb: int, nc: int, method: str) -> PairedResult:
    notes = (f"too few {'blocks' if paired else 'values per side'} for a verdict: {n} (need at least {min_n})",)
    return PairedResult(None, None, None, n, False, False, "insufficient", min_n - n, False, None, method,
                        notes + ((UNPAIRED_NOTE,) if not paired else ()), threshold, confidence, direction,
                        paired=paired, n_baseline=nb, n_candidate=nc)


MODES = ("t", "bootstrap", "rank")
"""How a paired CI is made: t on the mean of d, BCa bootstrap of the mean, or the signed-rank CI of HL."""


def _unreachable_note(n: int, most: float, reach: float) -> str:
    need = n
    while rank_max_confidence(need) < reach:
        need += 1
    if n < MIN_PAIRS:  # no verdict: what is shown is the rank CI at the level it reaches
        return (f"with {n} blocks the signed-rank CI reaches at most {math.floor(most * 1000) / 10:g}%, so the "
                f"interval is given at that level; the {_label(reach)} CI kept beside it is the t interval on the "
                "paired log-ratios, which assumes normal differences")
    return (f"with {n} blocks the signed-rank CI reaches at most {most * 100:.1f}%, short of the "
            f"{_label(reach)} asked, so the t interval on the paired log-ratios is used (the rank CI needs at "
            f"least {need} blocks for that level)")


def _label(level: float) -> str:
    text = f"{level * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _choose_mode(d: np.ndarray, confidence: float, reach: float, robust: bool | None, reason: str | None,
                 resamples: int, seed: int) -> tuple[str, list[str]]:
    """Pick t, bootstrap or rank from the data at `confidence`; a rank CI that cannot reach `reach` becomes t."""
    n = d.size
    notes: list[str] = []
    use_robust = robust if robust is not None else (reason is not None or n < ROBUST_BELOW_N)
    mode = "rank" if use_robust else "t"
    if not use_robust:
        iv = t_interval(d, confidence)
        if iv.high > iv.low:
            bs = bca_mean_interval(d, confidence, resamples=resamples, seed=seed)
            if max(abs(bs.low - iv.low), abs(bs.high - iv.high)) > _DISAGREE * (iv.high - iv.low):
                if n < BOOTSTRAP_MIN_N and robust is None:
                    # BCa under-covers with few blocks (10 skewed blocks: 11.8% false positives
                    # among these cases in our simulations); the rank interval holds its level.
                    mode = "rank"
                    notes.append(NON_NORMAL_SMALL_NOTE)
                else:
                    mode = "bootstrap"
                    notes.append(NON_NORMAL_NOTE)
    elif reason and robust is None:
        notes.append(reason)
    most = rank_max_confidence(n)
    if mode == "rank" and most < reach - 1e-12:
        mode = "t"
        notes = [x for x in notes if x != reason]  # it said the robust estimate is used
        notes.append(_unreachable_note(n, most, reach))
    return mode, notes


def paired_interval(d: np.ndarray, mode: str, confidence: float, *, resamples: int = BOOTSTRAP_RESAMPLES,
                    seed: int = 0) -> tuple[float, float, float, float, float, float]:
    """(estimate, low, high, p, achieved coverage, SE) of the log-ratio in one mode.

    The p-value is the test the interval inverts (t; Walsh-average counts; BCa by bisection), so
    `p <= 1 - confidence` exactly when the interval excludes 0.
    """
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    n = d.size
    if mode == "rank":
        rk = wilcoxon_interval(d, confidence)
        se = (rk.high - rk.low) / (2 * t_ppf(0.5 + confidence / 2, n - 1))
        return rk.estimate, rk.low, rk.high, rk.p_value, rk.achieved, se
    iv = t_interval(d, confidence)
    if mode == "t" or iv.high <= iv.low:
        return iv.estimate, iv.low, iv.high, iv.p_value, confidence, iv.se
    bs = bca_mean_interval(d, confidence, resamples=resamples, seed=seed)
    p = bca_p_value(d, resamples=resamples, seed=seed)
    return iv.estimate, bs.low, bs.high, p, confidence, iv.se


_METHODS = {"t": "paired mean, t CI", "bootstrap": "paired mean, BCa bootstrap CI",
            "rank": "paired Hodges-Lehmann, Wilcoxon signed-rank CI"}


def compare_paired(baseline: Sequence[float], candidate: Sequence[float], *, direction: str = "lower",
                   threshold: float = 0.01, confidence: float = 0.95, robust: bool | None = None,
                   seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES,
                   budget: int = DEFAULT_BUDGET_BLOCKS, choose_at: float | None = None,
                   reach: float | None = None) -> PairedResult:
    """Compare per-block values of a candidate with the baseline's, aligned by block.

    Args:
        baseline: one replicate value per block (> 0), in block order.
        candidate: the candidate's values for the same blocks, same order.
        direction: "lower" when smaller is better (times), "higher" for rates.
        threshold: the noise band δ as a fraction (0.01 = ±1%).
        confidence: CI coverage.
        robust: force (True) or forbid (False) the Hodges-Lehmann mode; None decides from the data
            (outliers, skew, or fewer than 10 blocks).
        seed: bootstrap seed.
        resamples: bootstrap resamples.
        budget: total blocks beyond which an inconclusive result is called unresolvable.
        choose_at: the level at which the mode (t, bootstrap, rank) is chosen; default `confidence`.
            A family judged at several levels passes its base level, so that every level uses
            one method and its p-value agrees with every interval.
        reach: the highest level this comparison may be judged at (default `confidence`); a rank
            CI that cannot reach it at this n is replaced by the t interval, with a note.

    Returns:
        A PairedResult; verdict "insufficient" (no verdict) below 6 blocks.
    """
    _check(threshold, confidence, direction)
    d = log_diffs(baseline, candidate)
    n = int(d.size)
    if n < 2:
        method = "paired (too few blocks)"
        r = _empty(n, threshold, confidence, direction, MIN_PAIRS, True, n, n, method)
        if n == 1:
            from dataclasses import replace
            return replace(r, ratio=math.exp(float(d[0])), estimate_log=float(d[0]))
        return r
    n_out = int(outlier_mask(d).sum())
    reason = _robust_reason(n, n_out, skew_flag(d))
    top = max(confidence, reach if reach is not None else confidence)
    mode, notes = _choose_mode(d, choose_at if choose_at is not None else confidence, top, robust, reason,
                               resamples, seed)
    est, lo, hi, p, achieved, se = paired_interval(d, mode, confidence, resamples=resamples, seed=seed)
    if mode == "rank" and achieved > confidence + 0.005:
        notes.append(f"with {n} blocks the rank CI can only be made at {achieved * 100:.1f}% (it is wider than "
                     f"{confidence * 100:g}% asks)")
    if n_out and not (mode == "rank" and reason and robust is None):
        notes.append(f"outliers: {n_out} of {n} (MAD z > 3.5), reported not dropped")
    g = two_groups(d) if bimodal_flag(d) else None
    if g is not None and two_levels(g):  # a few far blocks are outliers, not a mode
        notes.append(f"bimodal differences: in {g.n_low} blocks the change is about {math.expm1(g.low) * 100:+.1f}%, "
                     f"in {g.n_high} about {math.expm1(g.high) * 100:+.1f}%; one ratio summarises them poorly")
    tr = trend(d)
    if tr.flagged:
        notes.append(f"drift: the differences trend with block order (Kendall τ = {tr.tau:.2f}, p = {tr.p_value:.3f}); "
                     "interleaving keeps the estimate unbiased but widens the CI")
    reached_ci, reached_level = reached_paired(d, confidence) if n < MIN_PAIRS else (None, None)
    return _finish(est=est, lo=lo, hi=hi, p=p, n=n, se_log=se, threshold=threshold, confidence=confidence,
                   direction=direction, method=_METHODS[mode], notes=notes, budget=budget, min_n=MIN_PAIRS,
                   reached_ci=reached_ci, reached_confidence=reached_level, paired=True, robust=mode == "rank",
                   log_sd=float(d.std(ddof=1)), achieved_confidence=achieved,
                   outliers=n_out, drift_tau=tr.tau, drift_p=tr.p_value, n_baseline=n, n_candidate=n, mode=mode)


def compare_unpaired(baseline: Sequence[float], candidate: Sequence[float], *, direction: str = "lower",
                     threshold: float = 0.01, confidence: float = 0.95, robust: bool | None = None,
                     budget: int = DEFAULT_BUDGET_BLOCKS) -> PairedResult:
    """Compare two independent sets of replicate values (e.g. two saved runs), METHOD §3 fallback.

    Args:
        baseline: replicate values of the baseline (> 0), in measurement order.
        candidate: replicate values of the candidate (> 0), in measurement order.
        direction, threshold, confidence, robust, budget: as for compare_paired.

    Returns:
        A PairedResult with paired=False, n the smaller side, and the "not interleaved" note.
    """
    _check(threshold, confidence, direction)
    lb = log_values(baseline, "baseline")
    lc = log_values(candidate, "candidate")
    nb, nc = int(lb.size), int(lc.size)
    n = min(nb, nc)
    if n < 2:
        return _empty(n, threshold, confidence, direction, MIN_PER_SIDE, False, nb, nc, "unpaired (too few values)")
    notes: list[str] = [UNPAIRED_NOTE]
    n_out = int(outlier_mask(lb).sum() + outlier_mask(lc).sum())
    skewed = skew_flag(lb) or skew_flag(lc)
    reason = _robust_reason(nb + nc, n_out, skewed)
    use_robust = robust if robust is not None else (reason is not None or n < ROBUST_BELOW_N)
    most = mann_whitney_max_confidence(nb, nc)
    if use_robust and most < confidence:
        use_robust, reason = False, None
        notes.append(f"with {nb} and {nc} values the Mann-Whitney CI reaches at most {most * 100:.1f}%, short of "
                     f"the {_label(confidence)} asked, so Welch's t on log values is used")
    if use_robust:
        iv = mann_whitney_interval(lb, lc, confidence)
        method = "unpaired Hodges-Lehmann shift, Mann-Whitney CI"
        if reason and robust is None:
            notes.append(reason.replace("skewed differences", "skewed values"))
        df = float(nb + nc - 2)
        se = (iv.high - iv.low) / (2 * t_ppf(0.5 + confidence / 2, df))
    else:
        iv = welch_interval(lb, lc, confidence)
        method = "unpaired Welch t on log values"
        se = iv.se
        if n_out:
            notes.append(f"outliers: {n_out} of {nb + nc} (MAD z > 3.5), reported not dropped")
    for side, vals in (("baseline", lb), ("candidate", lc)):
        tr = trend(vals)
        if tr.flagged:
            notes.append(f"drift: the {side} values trend with measurement order (Kendall τ = {tr.tau:.2f}, "
                         f"p = {tr.p_value:.3f}); unpaired results are biased by it")
    pooled = math.sqrt((float(lb.var(ddof=1)) * (nb - 1) + float(lc.var(ddof=1)) * (nc - 1)) / (nb + nc - 2))
    reached_ci, reached_level = reached_unpaired(lb, lc, confidence) if n < MIN_PER_SIDE else (None, None)
    return _finish(est=iv.estimate, lo=iv.low, hi=iv.high, p=iv.p_value, n=n, se_log=se, threshold=threshold,
                   confidence=confidence, direction=direction, method=method, notes=notes, budget=budget,
                   min_n=MIN_PER_SIDE, reached_ci=reached_ci, reached_confidence=reached_level, paired=False,
                   robust=use_robust, log_sd=pooled,
                   achieved_confidence=iv.achieved, outliers=n_out, n_baseline=nb, n_candidate=nc)


def compare_exact(baseline: Sequence[float], candidate: Sequence[float]) -> ExactResult:
    """Exact metrics (instructions, allocations): the delta of the medians, no test (benchstat assume=exact).

    Args:
        baseline: the baseline's values (one per block).
        candidate: the candidate's values.

    Returns:
        An ExactResult; `varies` and a note when values differ between blocks.
    """
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if b.size == 0 or c.size == 0:
        raise ValueError(f"an exact comparison needs values on both sides, got {b.size} and {c.size}")
    bv = median(b)
    cv = median(c)
    varies = bool(np.ptp(b) > 0 or np.ptp(c) > 0)
    notes: tuple[str, ...] = ()
    if varies:
        notes = ((f"values vary between blocks (baseline {b.min():g}..{b.max():g}, candidate "
                  f"{c.min():g}..{c.max():g}); medians compared, not exact"),)
    return ExactResult(bv, cv, cv - bv, cv / bv if bv != 0 else None, int(b.size), int(c.size), varies, notes)
