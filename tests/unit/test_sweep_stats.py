"""Sweep statistics on known cases."""

from __future__ import annotations

import math
import random

import pytest

from pairbench.stats.sweep import bonferroni_ci, geometric_estimate, holm, paired_ratio, trend_fit


def test_holm_known_case() -> None:
    # Sorted p: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, then max(0.06, 0.04) = 0.06 (monotone).
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, None, 0.01]) == pytest.approx([0.5, None, 0.02])
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])  # 0.8 * 2 capped at 1; monotone after it


def test_paired_ratio_matches_scipy_paired_t() -> None:
    from scipy import stats

    rng = random.Random(1)
    a = [math.exp(rng.gauss(0, 0.1)) for _ in range(12)]
    b = [x * 1.2 * math.exp(rng.gauss(0, 0.05)) for x in a]
    r = paired_ratio(a, b)
    assert r is not None and r.n == 12 and r.ci is not None
    d = [math.log(y / x) for x, y in zip(a, b)]
    assert r.ratio == pytest.approx(math.exp(sum(d) / len(d)))
    assert r.p_value == pytest.approx(stats.ttest_rel([math.log(y) for y in b], [math.log(x) for x in a]).pvalue)
    assert r.ci[0] < 1.2 < r.ci[1] or abs(r.ratio - 1.2) < 0.05
    same = paired_ratio([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    assert same is not None and same.ratio == pytest.approx(2.0) and same.p_value == 0.0


def test_geometric_estimate_and_bonferroni_widening() -> None:
    est = geometric_estimate([1.0, 4.0])
    assert est is not None and est.value == pytest.approx(2.0) and est.ci is not None
    assert geometric_estimate([]) is None
    lo, hi = bonferroni_ci(1.5, (1.2, 1.875), 10, 4)
    # Same centre on the log scale, wider: t(9, 1-0.05/8) / t(9, 0.975) = 3.69 / 2.262.
    assert math.log(lo) + math.log(hi) == pytest.approx(2 * math.log(1.5), rel=1e-6)
    assert lo < 1.2 and hi > 1.875
    assert bonferroni_ci(1.5, (1.2, 1.875), 10, 1) == (1.2, 1.875)


def test_trend_fit_recovers_exponential_growth() -> None:
    xs = [0, 3, 6, 9, 12]
    fit = trend_fit(xs, [2.0 * 1.05**x for x in xs])
    assert fit is not None and fit.percent_per_unit == pytest.approx(5.0) and fit.r_squared == pytest.approx(1.0)
    assert trend_fit([1, 2], [1.0, 2.0]) is None
    assert trend_fit([1, 1, 1], [1.0, 2.0, 3.0]) is None
