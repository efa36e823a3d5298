"""Many comparisons at once: adjusted p-values, adjusted CI levels, and the suite's geometric mean.

Methods and references (METHOD §6):
- Holm's step-down adjusted p-values, family-wise error control (Holm, Scand. J. Statist. 1979);
- Benjamini-Hochberg step-up adjusted p-values, false discovery rate (Benjamini & Hochberg,
  JRSS B 1995), and the matching false-coverage-rate CI level 1 - Rα/m for the R selected
  comparisons (Benjamini & Yekutieli, JASA 2005);
- Bonferroni CI level 1 - α/m shown next to raw CIs;
- the geometric mean of ratios (Fleming & Wallace, CACM 1986) with a percentile bootstrap over
  blocks that resamples whole blocks, so benchmarks measured in the same block keep their
  correlation (Kalibera & Jones, ISMM 2013), with Hesterberg's small-sample expanded levels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from pairbench.stats._dist import norm_cdf, t_ppf
from pairbench.stats.bootstrap import BOOTSTRAP_RESAMPLES, _quantiles, drawn_sums

__all__ = ["benjamini_hochberg", "bonferroni_confidence", "fcr_confidence", "geomean_ratio", "holm"]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p[i])))
        adj[i] = running
    return [float(v) for v in adj]


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    adj = np.empty(m)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, float(p[i]) * m / (rank + 1))
        adj[i] = min(1.0, running)
    return [float(v) for v in adj]


def bonferroni_confidence(confidence: float, m: int) -> float:
    """CI level that keeps `confidence` jointly over m intervals: 1 - (1-confidence)/m."""
    if m < 1:
        raise ValueError(f"m {m} must be at least 1")
    return 1.0 - (1.0 - confidence) / m


def fcr_confidence(confidence: float, m: int, selected: int) -> float:
    """Benjamini-Yekutieli CI level for `selected` of m comparisons: 1 - R(1-confidence)/m."""
    if m < 1:
        raise ValueError(f"m {m} must be at least 1")
    return 1.0 - max(selected, 1) * (1.0 - confidence) / m


def geomean_ratio(per_benchmark_log_diffs_by_block: Mapping[str, Mapping[int, float]], *,
                  confidence: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES,
                  seed: int = 0) -> tuple[float, tuple[float, float]]:
    """Geometric mean over benchmarks of the ratio candidate/baseline, with a block bootstrap CI.

    Args:
        per_benchmark_log_diffs_by_block: for each benchmark, block index -> ln(c) - ln(b).
            Blocks are the shared unit: block 3 of one benchmark ran at the same time as block 3
            of another, so they are resampled together.
        confidence: CI level.
        resamples: bootstrap resamples.
        seed: fixed seed.

    Returns:
        (ratio, (low, high)); the CI collapses to the ratio with fewer than 2 blocks.
    """
    series = {k: dict(v) for k, v in per_benchmark_log_diffs_by_block.items() if v}
    if not series:
        raise ValueError("geomean_ratio needs at least one benchmark with log-differences")
    blocks = sorted({b for v in series.values() for b in v})
    names = sorted(series)
    d = np.full((len(blocks), len(names)), np.nan)
    pos = {b: i for i, b in enumerate(blocks)}
    for j, name in enumerate(names):
        for b, val in series[name].items():
            d[pos[b], j] = val
    mask = ~np.isnan(d)
    d0 = np.where(mask, d, 0.0)
    est = float(np.mean(d0.sum(axis=0) / mask.sum(axis=0)))
    nb = len(blocks)
    if nb < 2:
        r = math.exp(est)
        return r, (r, r)
    sums, cnts = drawn_sums(nb, [d0, mask.astype(float)], resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / cnts
    boot = np.nanmean(np.where(cnts > 0, means, np.nan), axis=1)
    boot = boot[np.isfinite(boot)]
    z = math.sqrt(nb / (nb - 1)) * t_ppf(0.5 + confidence / 2, nb - 1)
    lo_level = norm_cdf(-z)
    lo, hi = _quantiles(boot, [lo_level, 1 - lo_level])
    return math.exp(est), (math.exp(lo), math.exp(hi))
