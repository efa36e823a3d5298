"""Planning a run: how many paired blocks detect a given change with a given power.

Method: the paired t test on log-ratios d_i (compare.py) with SD σ of d finds a true change of
Δ = ln(1 + effect) at level α with power 1 - β when

    (t_{1-α/2, n-1} + t_{1-β, n-1}) · σ / √n  <=  Δ,

the shifted-central-t approximation of the noncentral t power (Cohen 1988 §2.4; Julious 2004,
"Sample sizes for clinical trials with normal data", Stat. Med. 23, eq. 4). It is the inverse of
`verdict.min_detectable_effect`, with t quantiles instead of normal ones, which matter below
~30 blocks. Several comparisons judged together (Holm or BH) are planned at α/m, Bonferroni's
level, which the first Holm step uses: the plan is slightly generous for the others.

σ is estimated from a short pilot (or a stored A/A calibration), so the plan is only as good as
that estimate: with k pilot blocks, σ's 90% interval spans about ±40% at k = 10 (chi-square with
k - 1 df), and the blocks needed scale with σ².
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairbench.stats._dist import norm_ppf, t_ppf
from pairbench.stats.verdict import MIN_PAIRS

__all__ = ["MAX_PLANNED_BLOCKS", "PowerPlan", "blocks_for_power", "plan_blocks"]

MAX_PLANNED_BLOCKS = 1_000_000
"""Beyond this many blocks a plan reports 'not feasible' (None) instead of a number."""


@dataclass(frozen=True, slots=True)
class PowerPlan:
    """Blocks needed to detect one change, and the spread of that answer from the σ estimate."""

    blocks: int | None
    """Paired blocks for `power` at the estimated σ (None: more than MAX_PLANNED_BLOCKS)."""
    blocks_low: int | None
    """Blocks at the low end of σ's 90% interval from `sd_blocks` blocks (None: not computed)."""
    blocks_high: int | None
    """Blocks at the high end of that interval (None: not feasible or not computed)."""
    log_sd: float
    """σ, the SD of the paired log-ratios the plan used."""
    effect: float
    """The change to detect (fraction)."""
    power: float
    alpha: float
    """Two-sided level per comparison (1 - confidence, divided among the comparisons)."""


def blocks_for_power(log_sd: float, effect: float, *, confidence: float = 0.95, power: float = 0.8,
                     comparisons: int = 1) -> int | None:
    """Fewest paired blocks that detect a change of `effect` with `power`.

    Args:
        log_sd: SD of the per-block log-ratios ln(candidate/baseline).
        effect: the change to detect, as a fraction (0.02 = 2%); a slowdown of this size, which
            is the smaller of ±effect on the log scale, so a speed-up of the same size needs fewer.
        confidence: the CI level of the verdict.
        power: the chance to detect the change.
        comparisons: comparisons judged together (planned at level α/m).

    Returns:
        At least MIN_PAIRS blocks (no verdict below them); None beyond MAX_PLANNED_BLOCKS.
    """
    if not effect > 0:
        raise ValueError(f"effect {effect!r} must be a positive fraction, e.g. 0.02 for 2%")
    if not 0 < power < 1:
        raise ValueError(f"power {power!r} must be in (0, 1), e.g. 0.8")
    if not math.isfinite(log_sd) or log_sd < 0:
        return None
    if log_sd == 0:
        return MIN_PAIRS
    alpha = (1.0 - confidence) / max(comparisons, 1)
    target = math.log1p(effect)

    def enough(n: int) -> bool:
        df = n - 1
        return (t_ppf(1 - alpha / 2, df) + t_ppf(power, df)) * log_sd / math.sqrt(n) <= target

    if not enough(MAX_PLANNED_BLOCKS):
        return None
    lo, hi = MIN_PAIRS - 1, MAX_PLANNED_BLOCKS  # enough(hi) holds; search the first n that does
    if enough(MIN_PAIRS):
        return MIN_PAIRS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _chi2_ppf(p: float, df: int) -> float:
    """χ² quantile by the Wilson-Hilferty cube (Johnson, Kotz & Balakrishnan 1994, eq. 18.24): within
    a few percent from 2 degrees of freedom on, plenty for the range of a plan."""
    c = 2.0 / (9.0 * df)
    return df * max(1.0 - c + norm_ppf(p) * math.sqrt(c), 1e-3) ** 3


def plan_blocks(log_sd: float, effect: float, *, sd_blocks: int | None = None, confidence: float = 0.95,
                power: float = 0.8, comparisons: int = 1) -> PowerPlan:
    """`blocks_for_power`, with the range that σ's 90% interval from `sd_blocks` pilot blocks gives.

    Args:
        log_sd: σ estimated from the pilot (or a calibration).
        effect: the change to detect (fraction).
        sd_blocks: blocks σ was estimated from; None leaves the range out.
        confidence, power, comparisons: as `blocks_for_power`.
    """
    def blocks(sd: float) -> int | None:
        return blocks_for_power(sd, effect, confidence=confidence, power=power, comparisons=comparisons)

    low = high = None
    if sd_blocks is not None and sd_blocks >= 2 and math.isfinite(log_sd):
        df = sd_blocks - 1
        # σ̂²·df/σ² ~ χ²(df): the 90% interval of σ
        low = blocks(log_sd * math.sqrt(df / _chi2_ppf(0.95, df)))
        high = blocks(log_sd * math.sqrt(df / _chi2_ppf(0.05, df)))
    alpha = (1.0 - confidence) / max(comparisons, 1)
    return PowerPlan(blocks(log_sd), low, high, log_sd, effect, power, alpha)
