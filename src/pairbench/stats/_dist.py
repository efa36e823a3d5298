"""Scalar distribution functions in pure Python (the standard library's math and statistics).

Every run ends with an analysis; importing scipy.special for four scalar functions cost ~0.25 s of
start-up per invocation. Student's t comes from the regularized incomplete beta function (a
continued fraction); closed forms and scipy agree to 1e-10 (tests/unit/test_dist.py).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

__all__ = ["norm_cdf", "norm_ppf", "t_ppf", "t_sf"]

_NORMAL = NormalDist()
_EPS = 4e-16
_TINY = 1e-300


def norm_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def norm_ppf(p: float) -> float:
    if math.isnan(p) or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return _NORMAL.inv_cdf(p)


def t_sf(x: float, df: float) -> float:
    """Upper tail P(T > x) of Student's t with df degrees of freedom."""
    if math.isnan(x) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(df):
        return norm_cdf(-x)
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    x2 = x * x
    # P(|T| > |x|) = I_{df/(df+x²)}(df/2, 1/2); 1 - z given directly keeps small x exact.
    two_sided = _betainc(df / 2.0, 0.5, df / (df + x2), x2 / (df + x2))
    return 0.5 * two_sided if x > 0 else 1.0 - 0.5 * two_sided


@lru_cache(maxsize=4096)
def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t (cached: callers ask the same few levels and df over and over)."""
    if math.isnan(p) or math.isnan(df) or df <= 0 or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if math.isinf(df):
        return norm_ppf(p)
    if p == 0.5:
        return 0.0
    # Solve for the smaller tail: 1 - (1 - p) would lose the low digits of a small p.
    return -_t_isf(p, df) if p < 0.5 else _t_isf(1.0 - p, df)


def _t_isf(q: float, df: float) -> float:
    """The x > 0 with P(T > x) = q, for 0 < q < 1/2."""
    # Newton steps on log t_sf (nearly linear in the tail) from the Cornish-Fisher start, kept inside
    # a bracket of the root (bisection when a step leaves it): t_sf is decreasing, so it holds.
    z = -norm_ppf(q)
    x = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)
    low, high = 0.0, math.inf
    log_q = math.log(q)
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    for _ in range(400):
        sf = t_sf(x, df)
        if sf == q:
            return x
        if sf > q:
            low = x
        else:
            high = x
        log_density = log_norm - (df + 1) / 2 * math.log1p(x * x / df)
        nxt = x + (math.log(sf) - log_q) * math.exp(math.log(sf) - log_density) if sf > 0 else math.nan
        if not low < nxt < high:
            nxt = 0.5 * (low + high) if high < math.inf else 2.0 * max(x, 1.0)
        if abs(nxt - x) <= 4e-16 * abs(x):
            return nxt
        x = nxt
    return x


def _betainc(a: float, b: float, z: float, w: float) -> float:
    """Regularized incomplete beta I_z(a, b), with w = 1 - z given by the caller for precision."""
    if z <= 0.0:
        return 0.0
    if w <= 0.0:
        return 1.0
    log_z = math.log1p(-w) if w < 0.5 else math.log(z)
    log_w = math.log1p(-z) if z < 0.5 else math.log(w)
    log_front = -_log_beta(a, b) + a * log_z + b * log_w
    # The continued fraction converges fast below the mean (a+1)/(a+b+2); above it, use symmetry.
    if z < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, z) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, w) / b


def _log_beta(a: float, b: float) -> float:
    """log B(a, b); for t (b = 1/2) with large a, lgamma(a + 1/2) - lgamma(a) cancels ~8 digits away,
    so the asymptotic series of log Γ(a + 1/2)/Γ(a) is used there (error below 1e-17 for a > 1000)."""
    if b > a:
        a, b = b, a
    if b == 0.5 and a > 1000.0:
        return 0.5 * math.log(math.pi) - (0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a ** 3))
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_fraction(a: float, b: float, z: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * z / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for num in (m * (b - m) * z / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * z / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
            last = d * c
        if abs(last - 1.0) < _EPS:
            break
    return h
