"""Unpaired comparisons of many values: linear memory, and the same results as forming all m·n pairs.

The Hodges-Lehmann shift and the Mann-Whitney interval are order statistics of the m·n differences
y_j - x_i, and Kendall's τ (the drift note) counts n(n-1)/2 pairs: with 20,000 values a side,
forming them took 9.4 GB. The selection and the merge count must give the very same floats.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pairbench.stats import drift, pairwise
from pairbench.stats.compare import compare_unpaired
from pairbench.stats.drift import trend
from pairbench.stats.compare import compare_paired
from pairbench.stats.estimate import hodges_lehmann, hodges_lehmann_shift
from pairbench.stats.pairwise import difference_ranks, differences_below, walsh_below, walsh_ranks
from pairbench.stats.tests import mann_whitney_interval, wilcoxon_interval

SIZES = [(1, 1), (1, 7), (5, 3), (13, 40), (64, 64), (150, 90), (300, 257)]


def _sides(m: int, n: int, seed: int, ties: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.log(0.01) + rng.normal(0.0, 0.05, m)
    y = np.log(0.0102) + rng.standard_t(3, n) * 0.05
    if ties == "rounded":  # clock-quantized timings: many equal values, equal differences across rows
        x, y = np.round(x, 2), np.round(y, 2)
    elif ties == "levels":  # three values a side: most differences tie with many others
        x, y = np.round(x * 20.0) / 20.0, np.round(y * 20.0) / 20.0
    return x, y


@pytest.mark.parametrize("ties", ["none", "rounded", "levels"])
@pytest.mark.parametrize(("m", "n"), SIZES)
def test_every_rank_and_count_equals_the_sorted_differences(m, n, ties):
    x, y = _sides(m, n, 7 + m + n, ties)
    exact = np.sort(np.subtract.outer(y, x).ravel())
    ranks = sorted({0, exact.size - 1, exact.size // 2, (exact.size - 1) // 2, exact.size // 7, exact.size // 3})
    assert difference_ranks(x, y, ranks) == [float(exact[k]) for k in ranks]
    for t in (0.0, float(exact[exact.size // 2]), float(exact[0]) - 1.0, float(exact[-1])):
        assert differences_below(x, y, t) == int(np.sum(exact < t))
        assert differences_below(x, y, t, strict=False) == int(np.sum(exact <= t))


@pytest.mark.parametrize("ties", ["none", "rounded", "levels"])
@pytest.mark.parametrize(("m", "n"), SIZES[2:])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_interval_by_selection_equals_the_formed_one(m, n, ties, confidence, monkeypatch):
    x, y = _sides(m, n, 100 + m * n, ties)
    monkeypatch.setattr(pairwise, "EXACT_MAX_CELLS", 10 ** 9)
    formed = (mann_whitney_interval(x, y, confidence), hodges_lehmann_shift(x, y))
    monkeypatch.setattr(pairwise, "EXACT_MAX_CELLS", 0)
    assert (mann_whitney_interval(x, y, confidence), hodges_lehmann_shift(x, y)) == formed


@pytest.mark.parametrize("ties", ["none", "rounded", "levels"])
@pytest.mark.parametrize("n", [1, 2, 9, 64, 301, 700])
def test_every_walsh_rank_and_count_equals_the_sorted_averages(n, ties):
    d = _sides(n, 1, 5 + n, ties)[0] - np.log(0.01)
    i, j = np.triu_indices(n)
    exact = np.sort((d[i] + d[j]) / 2.0)
    ranks = sorted({0, exact.size - 1, exact.size // 2, (exact.size - 1) // 2, exact.size // 7, exact.size // 3})
    assert walsh_ranks(d, ranks) == [float(exact[k]) for k in ranks]
    for t in (0.0, float(exact[exact.size // 2]), float(exact[0]) - 1.0, float(exact[-1])):
        assert walsh_below(d, t) == int(np.sum(exact < t))
        assert walsh_below(d, t, strict=False) == int(np.sum(exact <= t))


@pytest.mark.parametrize("ties", ["none", "rounded", "levels"])
@pytest.mark.parametrize("n", [5, 40, 301, 700])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_signed_rank_interval_by_selection_equals_the_formed_one(n, ties, confidence, monkeypatch):
    d = _sides(n, 1, 50 + n, ties)[0] - np.log(0.0099)
    monkeypatch.setattr(pairwise, "EXACT_MAX_CELLS", 10 ** 9)
    formed = (wilcoxon_interval(d, confidence), hodges_lehmann(d))
    monkeypatch.setattr(pairwise, "EXACT_MAX_CELLS", 0)
    assert (wilcoxon_interval(d, confidence), hodges_lehmann(d)) == formed


@pytest.mark.parametrize("n", [3, 10, 57, 300, 999])
@pytest.mark.parametrize("ties", [False, True])
def test_kendall_by_merge_count_equals_the_pairs(n, ties, monkeypatch):
    rng = np.random.default_rng(n)
    y = np.cumsum(rng.normal(0.01, 1.0, n))
    order = rng.integers(0, max(2, n // 4), n).astype(float)  # an order with ties, as a sweep's sizes
    if ties:
        y = np.round(y / 3.0)
    monkeypatch.setattr(drift, "PAIRS_MAX_N", 10 ** 6)
    formed = (trend(y), trend(y, order))
    monkeypatch.setattr(drift, "PAIRS_MAX_N", 0)
    assert (trend(y), trend(y, order)) == formed


def test_twenty_thousand_values_a_side_in_little_memory():
    # 4·10^8 differences would take 3.2 GB to hold once and 9.4 GB to sort; the limit is ~300x less
    rng = np.random.default_rng(3)
    base = 0.01 * np.exp(rng.normal(0.0, 0.05, 20_000))
    cand = np.round(0.0102 * np.exp(rng.normal(0.0, 0.05, 20_000)), 6)  # ties too
    base[::97] *= 1.5  # outliers: the robust (Mann-Whitney) interval is chosen
    tracemalloc.start()
    try:
        result = compare_unpaired(base, cand)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.method == "unpaired Hodges-Lehmann shift, Mann-Whitney CI"
    assert result.ci is not None and result.ci[0] < result.ratio < result.ci[1]
    assert peak < 50e6, f"peak {peak / 1e6:.0f} MB"


def test_twenty_thousand_blocks_in_rank_mode_in_little_memory():
    # 2·10^8 Walsh averages (1.6 GB, and 3.2 GB of their indices) are selected, not formed
    rng = np.random.default_rng(4)
    base = 0.01 * np.exp(rng.normal(0.0, 0.05, 20_000))
    cand = base * np.exp(np.round(rng.normal(0.02, 0.03, 20_000), 4))
    tracemalloc.start()
    try:
        result = compare_paired(base, cand, robust=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.mode == "rank"
    assert result.ci is not None and result.ci[0] < result.ratio < result.ci[1]
    assert peak < 50e6, f"peak {peak / 1e6:.0f} MB"
