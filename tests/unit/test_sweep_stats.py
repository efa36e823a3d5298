"""Sweep statistics on known cases."""

from __future__ import annotations

import math

import pytest

from pairbench.stats.sweep import bonferroni_ci, geometric_estimate, trend_fit


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
