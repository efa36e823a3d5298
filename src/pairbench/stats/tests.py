"""Confidence intervals and p-values for a location shift on the log scale.

Methods and references:
- one-sample (paired) t interval and test on the differences (Student 1908);
- Welch's unequal-variance t with Welch-Satterthwaite degrees of freedom (Welch 1947; as in
  hyperfine:scripts/welch_ttest.py);
- the Wilcoxon signed-rank test and its inverted CI for the Hodges-Lehmann pseudo-median:
  [W_(k), W_(M+1-k)] over the M = n(n+1)/2 sorted Walsh averages, with k the largest integer such
  that P(T+ <= k-1) <= α/2 under the exact null distribution (Hollander, Wolfe & Chicken,
  "Nonparametric Statistical Methods", 3rd ed., 2014, §3.3; Bauer, JASA 1972);
- the Mann-Whitney test and its inverted CI for the Hodges-Lehmann shift: [D_(k), D_(mn+1-k)] over
  the sorted differences y_j - x_i (Hollander, Wolfe & Chicken §4.3; as benchstat and asv use MWU).
Exact null distributions are computed by recursion for the sizes benchmarks use, with the normal
approximation beyond. The p-value a rank interval returns is the test that interval inverts: the
smallest α at which the 1 - α interval excludes 0, counted from the Walsh averages (or pairwise
differences) on either side of 0. Without ties it is the exact signed-rank (Mann-Whitney) p-value;
with ties (clock-quantized CPU times) it still agrees with the interval, so a verdict made on the
interval and a decision made on the p-value can never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pairbench.stats._order import median
from pairbench.stats._dist import norm_cdf, norm_ppf, t_ppf, t_sf
from pairbench.stats.estimate import (
    hodges_lehmann,
    hodges_lehmann_shift,
    pairwise_differences,
    walsh_averages,
)
from pairbench.stats.pairwise import difference_ranks, differences_below, formed, walsh_below, walsh_ranks

__all__ = [
    "Interval",
    "mann_whitney_interval",
    "mann_whitney_max_confidence",
    "mann_whitney_null",
    "mann_whitney_p",
    "rank_max_confidence",
    "signed_rank_null",
    "t_interval",
    "welch_interval",
    "wilcoxon_interval",
    "wilcoxon_p",
]

_EXACT_SIGNED_RANK_MAX_N = 400
"""Above this many pairs the signed-rank CI uses the normal approximation (error < 1e-3)."""

_EXACT_MWU_MAX_CELLS = 40_000
"""Above this m·n the Mann-Whitney CI uses the normal approximation."""


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate of a shift (log scale) with its CI and the matching test's p-value."""

    estimate: float
    low: float
    high: float
    p_value: float
    confidence: float
    """The coverage asked for."""
    achieved: float
    """The coverage actually achieved (rank intervals are discrete; equals `confidence` for t)."""
    df: float = math.nan
    """Degrees of freedom of t intervals."""
    se: float = math.nan
    """Standard error of the estimate (t intervals)."""


def t_interval(d: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Interval:
    """Mean of d ± t_{n-1} · s/√n and the one-sample t-test of mean 0 (needs n >= 2)."""
    x = np.asarray(d, dtype=float)
    n = x.size
    if n < 2:
        raise ValueError(f"a t interval needs at least 2 values, got {n}")
    mean = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(n)
    df = n - 1
    tcrit = t_ppf(0.5 + confidence / 2, df)
    if se == 0:
        p = 1.0 if mean == 0 else 0.0
        return Interval(mean, mean, mean, p, confidence, confidence, df, 0.0)
    p = 2 * t_sf(abs(mean) / se, df)
    return Interval(mean, mean - tcrit * se, mean + tcrit * se, p, confidence, confidence, df, se)


def welch_interval(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                   confidence: float = 0.95) -> Interval:
    """Difference of means y - x with Welch's t interval and test (needs 2 values per side)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.size < 2 or b.size < 2:
        raise ValueError(f"Welch's t needs at least 2 values per side, got {a.size} and {b.size}")
    va = float(a.var(ddof=1)) / a.size
    vb = float(b.var(ddof=1)) / b.size
    est = float(b.mean() - a.mean())
    se = math.sqrt(va + vb)
    if se == 0:
        p = 1.0 if est == 0 else 0.0
        return Interval(est, est, est, p, confidence, confidence, math.nan, 0.0)
    df = (va + vb) ** 2 / (va * va / (a.size - 1) + vb * vb / (b.size - 1))
    tcrit = t_ppf(0.5 + confidence / 2, df)
    p = 2 * t_sf(abs(est) / se, df)
    return Interval(est, est - tcrit * se, est + tcrit * se, p, confidence, confidence, df, se)


@lru_cache(maxsize=128)
def signed_rank_null(n: int) -> np.ndarray:
    """P(T+ = t) for t = 0..n(n+1)/2 under H0 (no ties), by the recursion over ranks 1..n."""
    m = n * (n + 1) // 2
    p = np.zeros(m + 1)
    p[0] = 1.0
    top = 0
    for k in range(1, n + 1):
        # Rank k is positive or negative with probability 1/2 each.
        nxt = 0.5 * p
        nxt[k: top + k + 1] += 0.5 * p[: top + 1]
        p = nxt
        top += k
    p.setflags(write=False)
    return p


def _rank_k(cdf: np.ndarray, alpha: float) -> int:
    """Largest k >= 1 with P(T <= k-1) <= alpha/2 (1 when even the extreme exceeds it)."""
    ok = np.nonzero(cdf <= alpha / 2 + 1e-12)[0]
    return int(ok[-1]) + 1 if ok.size else 1


def wilcoxon_interval(d: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Interval:
    """Hodges-Lehmann pseudo-median of d with the inverted signed-rank CI and the Wilcoxon p-value."""
    x = np.asarray(d, dtype=float)
    n = x.size
    if n < 1:
        raise ValueError("a Wilcoxon interval needs at least 1 value")
    m = n * (n + 1) // 2
    alpha = 1 - confidence
    cdf: np.ndarray | None = None
    if n <= _EXACT_SIGNED_RANK_MAX_N:
        cdf = np.cumsum(signed_rank_null(n))
        k = _rank_k(cdf, alpha)
        tail = float(cdf[k - 1])
    else:
        z = norm_ppf(1 - alpha / 2)
        sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
        k = max(1, int(math.floor(m / 2.0 - z * sd)))
        tail = float(norm_cdf((k - 1 + 0.5 - m / 2.0) / sd))
    k = min(k, (m + 1) // 2)
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    if formed(m) or not np.all(np.isfinite(x)):
        w = walsh_averages(x)
        est, low, high = median(w), float(w[k - 1]), float(w[m - k])
        p = _inverted_p(w, cdf, sd)
    else:  # the same order statistics and counts, selected in O(n) memory (stats/pairwise.py)
        est = hodges_lehmann(x)
        low, high = walsh_ranks(x, [k - 1, m - k])
        p = _p_from_counts(walsh_below(x, 0.0, strict=False), m - walsh_below(x, 0.0), m, cdf, sd)
    return Interval(est, low, high, p, confidence, 1 - 2 * tail)


def rank_max_confidence(n: int) -> float:
    """The most a signed-rank CI of n pairs can cover: [W_(1), W_(M)] has 1 - 2·P(T+ = 0) = 1 - 2^(1-n).

    At n = 6 that is 96.9%, short of the 99.2% Holm asks across 6 comparisons; above the exact
    range the normal approximation reaches any level.
    """
    if n < 1:
        return 0.0
    if n > _EXACT_SIGNED_RANK_MAX_N:
        return 1.0
    return 1.0 - 2.0 ** (1 - n)


def _inverted_p(sorted_vals: np.ndarray, cdf: np.ndarray | None, sd: float) -> float:
    """Smallest α at which the rank interval [V_(k), V_(M+1-k)] over `sorted_vals` excludes 0.

    The interval leaves 0 below when fewer than k values are <= 0, i.e. k >= c + 1 with c that
    count; the smallest α allowing that k is 2·P(T <= c) (exact) or its normal approximation.
    """
    m = sorted_vals.size
    c_le = int(np.searchsorted(sorted_vals, 0.0, side="right"))
    c_ge = m - int(np.searchsorted(sorted_vals, 0.0, side="left"))
    return _p_from_counts(c_le, c_ge, m, cdf, sd)


def _p_from_counts(c_le: int, c_ge: int, m: int, cdf: np.ndarray | None, sd: float) -> float:
    """`_inverted_p` from the counts of the m values <= 0 and >= 0."""
    c = min(c_le, c_ge)
    if c >= (m + 1) // 2:  # the interval is clipped at the middle: it never leaves 0 out
        return 1.0
    if cdf is not None:
        return min(1.0, 2.0 * float(cdf[c]))
    if c == 0:
        return 0.0
    return min(1.0, 2.0 * norm_cdf((c + 1 - m / 2.0) / sd))


def wilcoxon_p(d: Sequence[float] | np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value for median 0 (exact when small and untied)."""
    x = np.asarray(d, dtype=float)
    if x.size == 0 or np.all(x == 0):
        return 1.0
    nz = x[x != 0]
    order = np.argsort(np.abs(nz))
    a = np.abs(nz)[order]
    if nz.size < x.size or np.any(a[1:] == a[:-1]):
        # Zeros or ties: scipy's normal approximation with tie correction (Pratt would differ).
        return _wilcoxon_approx_p(nz) if nz.size else 1.0
    n = nz.size
    if n > _EXACT_SIGNED_RANK_MAX_N:
        return _wilcoxon_approx_p(nz)
    # No ties: the rank of |d_i| is its position in the sorted order.
    tplus = int(np.sum(np.nonzero(nz[order] > 0)[0] + 1))
    dist = signed_rank_null(n)
    m = n * (n + 1) // 2
    lower = float(dist[: min(tplus, m - tplus) + 1].sum())
    return min(1.0, 2 * lower)


@lru_cache(maxsize=128)
def mann_whitney_null(m: int, n: int) -> np.ndarray:
    """P(U = u) for u = 0..m·n under H0 (no ties): coefficients of the Gaussian binomial [m+n, m]_q.

    Built as the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i); after each factor the
    polynomial is [n+i, i]_q, so coefficients stay non-negative.
    """
    if m > n:
        m, n = n, m
    c = np.zeros(m * n + 1)
    c[0] = 1.0
    for i in range(1, m + 1):
        a = n + i
        c[a:] -= c[: c.size - a].copy()
        # Divide by (1 - q^i): c_k += c_{k-i}, a running sum along each residue class mod i.
        pad = (-c.size) % i
        cc = np.concatenate([c, np.zeros(pad)]).reshape(-1, i)
        c = np.cumsum(cc, axis=0).ravel()[: c.size]
        c /= c.sum()
    c = np.clip(c, 0.0, None)
    c /= c.sum()
    c.setflags(write=False)
    return c


def mann_whitney_interval(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                          confidence: float = 0.95) -> Interval:
    """Hodges-Lehmann shift of y relative to x with the inverted Mann-Whitney CI and MWU p-value."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.size < 1 or b.size < 1:
        raise ValueError("a Mann-Whitney interval needs values on both sides")
    mn = a.size * b.size
    alpha = 1 - confidence
    cdf: np.ndarray | None = None
    if mn <= _EXACT_MWU_MAX_CELLS:
        cdf = np.cumsum(mann_whitney_null(a.size, b.size))
        k = _rank_k(cdf, alpha)
        tail = float(cdf[k - 1])
    else:
        z = norm_ppf(1 - alpha / 2)
        sd = math.sqrt(a.size * b.size * (a.size + b.size + 1) / 12.0)
        k = max(1, int(math.floor(mn / 2.0 - z * sd)))
        tail = float(norm_cdf((k - 1 + 0.5 - mn / 2.0) / sd))
    k = min(k, (mn + 1) // 2)
    sd = math.sqrt(a.size * b.size * (a.size + b.size + 1) / 12.0)
    if formed(a.size * b.size) or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        diffs = pairwise_differences(a, b)
        low, high = float(diffs[k - 1]), float(diffs[mn - k])
        p = _inverted_p(diffs, cdf, sd)
    else:  # the same order statistics and counts, selected in O(m + n) memory (stats/pairwise.py)
        low, high = difference_ranks(a, b, [k - 1, mn - k])
        p = _p_from_counts(differences_below(a, b, 0.0, strict=False),
                           mn - differences_below(a, b, 0.0), mn, cdf, sd)
    return Interval(hodges_lehmann_shift(a, b), low, high, p, confidence, 1 - 2 * tail)


def mann_whitney_max_confidence(m: int, n: int) -> float:
    """The most a Mann-Whitney CI can cover: the full range of differences, 1 - 2/C(m+n, m)."""
    if m < 1 or n < 1:
        return 0.0
    if m * n > _EXACT_MWU_MAX_CELLS:
        return 1.0
    return 1.0 - 2.0 / math.comb(m + n, m)


def mann_whitney_p(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value, as scipy.stats.mannwhitneyu(method="auto").

    Exact (the null of `mann_whitney_null`) when either side has at most 8 values and nothing
    ties; otherwise the normal approximation with tie and continuity corrections.
    """
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    if a.size == 0 or b.size == 0:
        return 1.0
    both = np.concatenate([a, b])
    if np.ptp(both) == 0:
        return 1.0
    order = np.argsort(both, kind="mergesort")
    s = both[order]
    bounds = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1], [True])))
    counts = np.diff(bounds)
    ranks = np.empty(both.size)
    ranks[order] = np.repeat((bounds[:-1] + bounds[1:] + 1) / 2.0, counts)
    m, n = a.size, b.size
    u_a = float(ranks[:m].sum()) - m * (m + 1) / 2.0
    u = max(u_a, m * n - u_a)
    if (m <= 8 or n <= 8) and counts.max() == 1:
        # P(U >= u) = P(U <= mn - u) by symmetry; u is a whole number without ties.
        cdf = np.cumsum(mann_whitney_null(m, n))
        return min(1.0, 2.0 * float(cdf[int(round(m * n - u))]))
    total = m + n
    tie_term = float(np.sum(counts ** 3 - counts))
    sd = math.sqrt(m * n / 12.0 * ((total + 1) - tie_term / (total * (total - 1))))
    z = (u - m * n / 2.0 - 0.5) / sd
    return min(1.0, 2.0 * norm_cdf(-z))


def _wilcoxon_approx_p(nz: np.ndarray) -> float:
    """Normal approximation with tie correction, as scipy.stats.wilcoxon(method="approx").

    Computed here because timings quantized by the clock (user and system CPU) tie often, and
    importing scipy.stats for them cost ~1 s at the end of every run.
    """
    a = np.abs(np.asarray(nz, dtype=float))
    n = a.size
    order = np.argsort(a, kind="mergesort")
    s = a[order]
    bounds = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1], [True])))
    counts = np.diff(bounds)
    ranks = np.empty(n)
    ranks[order] = np.repeat((bounds[:-1] + bounds[1:] + 1) / 2.0, counts)
    r_plus = float(ranks[np.asarray(nz) > 0].sum())
    var = (n * (n + 1) * (2 * n + 1) - 0.5 * float(np.sum(counts * (counts * counts - 1.0)))) / 24.0
    if var <= 0:
        return 1.0
    z = (r_plus - n * (n + 1) / 4.0) / math.sqrt(var)
    return min(1.0, math.erfc(abs(z) / math.sqrt(2.0)))