"""A family of paired comparisons judged together: Holm or Benjamini-Hochberg, with verdicts that agree.

Method (METHOD §6): every comparison's p-value is the test its own interval inverts
(`compare.paired_interval`), and its method (t, bootstrap, rank) is chosen once at the family's
base level, so one number decides at every level. Holm's step-down (Holm 1979): sorted by p,
the comparison at step j (0-based) is rejected when all before it were and p <= α/(m - j); its
verdict rests on its CI at level 1 - α/(m - j), which excludes 0 exactly then. Where the
step-down stops, the remaining comparisons are judged at the stopping step's level, where none
of them excludes 0. So a verdict is significant exactly when the Holm-adjusted p <= α, and the
family-wise false-alarm rate is Holm's, at most α. Benjamini-Hochberg (1995) with the
Benjamini-Yekutieli (2005) false-coverage level 1 - Rα/m: the R selected comparisons are those
with p <= Rα/m, the ones whose CI at that level excludes 0. A signed-rank CI that cannot reach
the highest level the family may ask (1 - α/m) at its n is replaced by the t interval before
any level is used (`compare_paired(reach=...)`), never silently narrowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.stats.bootstrap import BOOTSTRAP_RESAMPLES
from pairbench.stats.compare import PairedResult, compare_paired
from pairbench.stats.differences import compare_differences
from pairbench.stats.multiplicity import benjamini_hochberg, bonferroni_confidence, fcr_confidence, holm
from pairbench.stats.verdict import MIN_PAIRS

__all__ = ["CORRECTIONS", "FamilyMember", "compare_family"]

CORRECTIONS = ("holm", "bh", "none")


@dataclass(frozen=True, slots=True)
class FamilyMember:
    """One comparison of a family: its own result, and the one its verdict rests on."""

    result: PairedResult
    """The comparison at the family's base level (unadjusted CI)."""
    adjusted: PairedResult | None = None
    """The same comparison at `adjusted_confidence`; None when nothing was adjusted (m <= 1, 'none')."""
    adjusted_p: float | None = None
    """Holm-adjusted p-value or Benjamini-Hochberg q-value."""
    adjusted_confidence: float | None = None
    """The level of `adjusted.ci`: Holm's step level, or the Benjamini-Yekutieli level."""

    @property
    def final(self) -> PairedResult:
        """The result the verdict is read from."""
        return self.adjusted if self.adjusted is not None else self.result


def compare_family(pairs: Sequence[tuple[Sequence[float], Sequence[float], str]], *, threshold: float = 0.01,
                   confidence: float = 0.95, correction: str = "holm", seed: int = 0,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> list[FamilyMember]:
    """Compare several candidates with their baselines as one family.

    Args:
        pairs: (baseline values, candidate values, direction) per comparison, aligned by block;
            a pair with a value <= 0 is compared on its differences (`stats.differences`).
        threshold: noise band δ.
        confidence: the family's level (1 - α), already widened for planned looks if any.
        correction: "holm" (family-wise), "bh" (false discovery rate) or "none".
        seed, resamples: bootstrap settings.

    Returns:
        One FamilyMember per pair, in order. Comparisons with fewer than 6 blocks take no part
        in the correction (they get no verdict).
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction {correction!r} is not one of {', '.join(CORRECTIONS)}")
    members = [i for i, (b, c, _) in enumerate(pairs) if min(len(b), len(c)) >= MIN_PAIRS]
    m = len(members)
    adjusting = m > 1 and correction != "none"
    # The highest level the family may ask is 1 - α/m: each method is fixed for every level up to it.
    reach = bonferroni_confidence(confidence, m) if adjusting else confidence
    base = [_compare(b, c, direction=dirn, threshold=threshold, confidence=confidence, reach=reach,
                           seed=seed, resamples=resamples) for b, c, dirn in pairs]
    if not adjusting:
        return [FamilyMember(r) for r in base]
    ps: list[float] = []
    for i in members:
        p = base[i].p_value
        ps.append(1.0 if p is None else p)
    alpha = 1.0 - confidence
    if correction == "holm":
        adj = holm(ps)
        levels = _holm_levels(ps, adj, alpha)
    else:
        adj = benjamini_hochberg(ps)
        selected = sum(1 for q in adj if q <= alpha)
        levels = [fcr_confidence(confidence, m, selected)] * m
    out = [FamilyMember(r) for r in base]
    for i, p_adj, level in zip(members, adj, levels):
        b, c, dirn = pairs[i]
        r = _compare(b, c, direction=dirn, threshold=threshold, confidence=level, choose_at=confidence,
                           reach=reach, seed=seed, resamples=resamples)
        out[i] = FamilyMember(base[i], r, p_adj, level)
    return out


def _compare(b: Sequence[float], c: Sequence[float], **kw: object) -> PairedResult:
    """On the log scale, or on differences when a value is <= 0 (its logs are undefined)."""
    if any(v <= 0 for v in b) or any(v <= 0 for v in c):
        return compare_differences(b, c, **kw)  # type: ignore[arg-type]
    return compare_paired(b, c, **kw)  # type: ignore[arg-type]


def _holm_levels(ps: Sequence[float], adjusted: Sequence[float], alpha: float) -> list[float]:
    """Each comparison's CI level in Holm's step-down: 1 - α/(m - j) at its step j, or at the stop."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    levels = [0.0] * m
    stop: float | None = None
    for j, i in enumerate(order):
        level = 1.0 - alpha / (m - j)
        if stop is None and adjusted[i] > alpha:
            stop = level
        levels[i] = level if stop is None else stop
    return levels
