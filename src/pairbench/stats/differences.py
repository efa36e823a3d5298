"""Paired comparison on the additive scale, for a measured (not exact) metric with values <= 0.

Method: when a time has the shell's start-up subtracted from it, a command shorter than that
start-up reads 0 or below, and ln(c/b) is undefined. Such a metric is still measured, so it is
still tested: on the paired differences d_i = c_i - b_i, with the same modes as on the log
scale (mean with the t or BCa interval, or the Hodges-Lehmann pseudo-median with the
signed-rank interval; `compare.paired_interval`), so the p-value again inverts the interval.
The ratio is 1 + Δ̂/b̄ with b̄ the baseline's mean ("the ratio of the means"), its CI the
difference CI over b̄; when b̄ <= 0 the mean magnitude of both sides stands in, said in a note.
Exactness is never inferred from values: only a metric declared exact skips the test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pairbench.stats.bootstrap import BOOTSTRAP_RESAMPLES
from pairbench.stats.compare import (
    MIN_PER_SIDE,
    UNPAIRED_NOTE,
    PairedResult,
    _check,
    _choose_mode,
    _empty,
    _robust_reason,
    paired_interval,
)
from pairbench.stats.drift import trend
from pairbench.stats.reached import reached_differences
from pairbench.stats.tests import welch_interval
from pairbench.stats.outliers import outlier_mask, skew_flag
from pairbench.stats.verdict import DEFAULT_BUDGET_BLOCKS, MIN_PAIRS, blocks_needed, judge, min_detectable_effect

__all__ = ["ADDITIVE_NOTE", "compare_differences", "compare_unpaired_differences"]

ADDITIVE_NOTE = ("values <= 0, so log ratios are undefined: the paired differences are tested (additive scale) "
                 "and the ratio is taken from the means")

_METHODS = {"t": "paired differences, t CI", "bootstrap": "paired differences, BCa bootstrap CI",
            "rank": "paired differences, Hodges-Lehmann with the Wilcoxon signed-rank CI"}


def compare_differences(baseline: Sequence[float], candidate: Sequence[float], *, direction: str = "lower",
                        threshold: float = 0.01, confidence: float = 0.95, robust: bool | None = None,
                        seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES, budget: int = DEFAULT_BUDGET_BLOCKS,
                        choose_at: float | None = None, reach: float | None = None) -> PairedResult:
    """Compare per-block values that may be <= 0 through their paired differences.

    Args:
        baseline, candidate: one value per block, aligned, any sign (finite).
        direction, threshold, confidence, robust, seed, resamples, budget, choose_at, reach: as
            for `compare.compare_paired`.

    Returns:
        A PairedResult whose ratio and CI are relative to the baseline's mean, with the note
        ADDITIVE_NOTE; "insufficient" below 6 blocks.
    """
    _check(threshold, confidence, direction)
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if b.shape != c.shape or not (np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
        raise ValueError(f"paired differences need finite values of equal length, got {b.size} and {c.size}")
    d = c - b
    n = int(d.size)
    method = _METHODS["t"]
    if n < 2:
        return _empty(n, threshold, confidence, direction, MIN_PAIRS, True, n, n, method)
    notes: list[str] = [ADDITIVE_NOTE]
    scale = float(b.mean())
    if scale <= 0:
        scale = float(np.mean(np.abs(np.concatenate([b, c]))))
        notes.append("the baseline's mean is <= 0, so the percentages are relative to the mean magnitude of both")
    if scale <= 0:  # every value is 0: no difference at all
        scale = 1.0
    n_out = int(outlier_mask(d).sum())
    reason = _robust_reason(n, n_out, skew_flag(d))
    top = max(confidence, reach if reach is not None else confidence)
    mode, more_notes = _choose_mode(d, choose_at if choose_at is not None else confidence, top, robust, reason,
                                    resamples, seed)
    notes.extend(more_notes)
    est, lo, hi, p, achieved, se = paired_interval(d, mode, confidence, resamples=resamples, seed=seed)
    if n_out and not (mode == "rank" and reason and robust is None):
        notes.append(f"outliers: {n_out} of {n} (MAD z > 3.5), reported not dropped")
    ratio, ci = _floored(1.0 + est / scale, (1.0 + lo / scale, 1.0 + hi / scale), b, c)
    more: int | None = None
    unresolvable = False
    if n < MIN_PAIRS:
        verdict, significant, meaningful = "insufficient", False, False
        more = MIN_PAIRS - n
        notes.append(f"too few blocks for a verdict: {n} (need at least {MIN_PAIRS})")
    else:
        j = judge(ci[0], ci[1], threshold, direction)
        verdict, significant, meaningful = j.verdict, j.significant, j.meaningful
        notes.extend(j.notes)
        if verdict == "inconclusive":
            est_rel = math.log(ratio) if ratio > 0 else est / scale
            needed, ok = blocks_needed(est_rel, (hi - lo) / 2.0 / scale, n, threshold, budget)
            if ok and needed is not None:
                more = needed - n
            else:
                unresolvable = True
                notes.append(f"cannot resolve within budget: the estimate sits near the ±{threshold * 100:g}% "
                             f"band edge (more than {budget} blocks would be needed)")
    tr = trend(d)
    reached_ci, reached_level = reached_differences(d, scale, confidence) if n < MIN_PAIRS else (None, None)
    if reached_ci is not None:
        reached_ci = _floored(ratio, reached_ci, b, c)[1]
    return PairedResult(
        ratio=ratio, ci=ci, p_value=p, n=n, significant=significant, meaningful=meaningful, verdict=verdict,
        more_runs=more, unresolvable=unresolvable,
        mde=min_detectable_effect(se / scale, confidence) if math.isfinite(se) else None,
        method=_METHODS[mode], notes=tuple(notes), threshold=threshold, confidence=confidence,
        direction=direction, paired=True, robust=mode == "rank",
        estimate_log=math.log(ratio) if ratio > 0 else math.nan, ci_log=None, log_sd=math.nan,
        achieved_confidence=achieved, outliers=n_out, drift_tau=tr.tau, drift_p=tr.p_value, n_baseline=n,
        n_candidate=n, mode=mode, reached_ci=reached_ci, reached_confidence=reached_level,
    )


def compare_unpaired_differences(baseline: Sequence[float], candidate: Sequence[float], *, direction: str = "lower",
                                 threshold: float = 0.01, confidence: float = 0.95) -> PairedResult:
    """Two independent sets of values that may be <= 0 (two saved runs): Welch's t on the difference
    of their means, the ratio again 1 + Δ̂/b̄, so no value is dropped and the p-value inverts the CI.

    Returns:
        A PairedResult with paired=False and the notes ADDITIVE_NOTE and "not interleaved"; "insufficient"
        below 2 values on either side.
    """
    _check(threshold, confidence, direction)
    b = np.asarray(baseline, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
        raise ValueError("unpaired differences need finite values")
    nb, nc = int(b.size), int(c.size)
    n = min(nb, nc)
    method = "unpaired differences, Welch t CI"
    if n < 2:
        return _empty(n, threshold, confidence, direction, MIN_PER_SIDE, False, nb, nc, method)
    notes = [UNPAIRED_NOTE, ADDITIVE_NOTE]
    scale = float(b.mean())
    if scale <= 0:
        scale = float(np.mean(np.abs(np.concatenate([b, c]))))
        notes.append("the baseline's mean is <= 0, so the percentages are relative to the mean magnitude of both")
    if scale <= 0:
        scale = 1.0
    iv = welch_interval(b, c, confidence)
    ratio, ci = _floored(1.0 + iv.estimate / scale, (1.0 + iv.low / scale, 1.0 + iv.high / scale), b, c)
    if n < MIN_PER_SIDE:
        verdict, significant, meaningful = "insufficient", False, False
        notes.append(f"too few values for a verdict: {n} (need at least {MIN_PER_SIDE} per side)")
    else:
        j = judge(ci[0], ci[1], threshold, direction)
        verdict, significant, meaningful = j.verdict, j.significant, j.meaningful
        notes.extend(j.notes)
    return PairedResult(
        ratio=ratio, ci=ci, p_value=iv.p_value, n=n, significant=significant, meaningful=meaningful,
        verdict=verdict, more_runs=None, unresolvable=False,
        mde=min_detectable_effect(iv.se / scale, confidence) if math.isfinite(iv.se) else None,
        method=method, notes=tuple(notes), threshold=threshold, confidence=confidence, direction=direction,
        paired=False, robust=False, estimate_log=math.log(ratio) if ratio > 0 else math.nan, ci_log=None,
        log_sd=math.nan, achieved_confidence=iv.achieved, outliers=0, drift_tau=0.0, drift_p=1.0,
        n_baseline=nb, n_candidate=nc, mode="t",
    )


def _floored(ratio: float, ci: tuple[float, float], b: np.ndarray, c: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The ratio and its interval cut at 0 when no value is below 0 and the baseline's mean is the
    scale: a ratio of such means is >= 0, so a bound below 0 (a sys time of 0 ms and 4 ms ticks gave
    `−155%`) says nothing but reads as an impossible figure; the cut interval covers no less."""
    if b.size and float(b.mean()) > 0 and np.all(b >= 0) and np.all(c >= 0):
        return max(0.0, ratio), (max(0.0, ci[0]), max(0.0, ci[1]))
    return ratio, ci

