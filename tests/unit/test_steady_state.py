"""Steady-state classification on synthetic series with a known change point (fixed seeds).

Each scenario draws many series of one kind (flat noise; a warm-up that decays to a steady level
at a known iteration; a slowdown after a steady start; a late step with no steady state) and
counts how often the classifier names the kind, and for warm-ups how close the warm-up length
is. Tolerances are about 3 binomial standard errors of the rates observed; docs/statistics.md
quotes the rates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairbench.stats.steady_state import MIN_ITERATIONS, classify_series

SERIES = 300


def _series(kind: str, n: int, sigma: float, rng: np.random.Generator) -> tuple[list[float], int | None]:
    noise = np.exp(rng.normal(0.0, sigma, n))
    base = np.full(n, 1e-3)
    if kind == "flat":
        return list(base * noise), 0
    if kind == "warmup":  # slow interpreted start, then compiled: 3x faster from iteration n // 5
        k = n // 5
        base[:k] *= 3.0 * np.linspace(1.0, 0.8, k)
        return list(base * noise), k
    if kind == "slowdown":  # steady first, then 20% slower for the last half (a deoptimisation)
        base[n // 2:] *= 1.2
        return list(base * noise), n // 2
    if kind == "none":  # still changing near the end: a step at 90%
        base[: int(n * 0.9)] *= 1.5
        return list(base * noise), None
    raise ValueError(kind)


EXPECTED = {"flat": "flat", "warmup": "warmup", "slowdown": "slowdown", "none": "no steady state"}


def rates(kind: str, n: int, sigma: float, seed: int) -> tuple[float, float]:
    """(share classified as the truth, share of warm-ups whose length is within 2 of the truth)."""
    rng = np.random.default_rng(seed)
    right = close = 0
    for _ in range(SERIES):
        xs, start = _series(kind, n, sigma, rng)
        fit = classify_series(xs)
        assert fit is not None
        right += fit.classification == EXPECTED[kind]
        close += fit.steady_start is not None and start is not None and abs(fit.steady_start - start) <= 2
    return right / SERIES, close / SERIES


@pytest.mark.parametrize(("kind", "n", "sigma", "at_least", "seed"), [
    ("flat", 30, 0.03, 0.97, 1), ("flat", 60, 0.03, 0.97, 2),
    ("warmup", 30, 0.03, 0.95, 3), ("warmup", 60, 0.03, 0.95, 4),
    ("slowdown", 40, 0.03, 0.90, 5),
    ("none", 40, 0.03, 0.90, 6),
    # a default micro process: 7 samples of 8 batches, each batch noisier than a sample
    ("flat", 56, 0.10, 0.97, 7), ("warmup", 56, 0.10, 0.95, 8),
])
def test_each_kind_is_recognised(kind: str, n: int, sigma: float, at_least: float, seed: int) -> None:
    right, close = rates(kind, n, sigma, seed=seed)
    assert right >= at_least, (kind, n, right)
    if kind == "warmup":
        assert close >= at_least, close


def test_a_short_series_is_not_classified() -> None:
    assert classify_series([1.0] * (MIN_ITERATIONS - 1)) is None
    fit = classify_series([1.0] * MIN_ITERATIONS)
    assert fit is not None and fit.classification == "flat" and fit.warmup_iterations == 0


def test_a_clean_warmup_gives_its_length() -> None:
    xs = [3e-3] * 7 + [1e-3] * 25
    fit = classify_series(xs)
    assert fit is not None
    assert (fit.classification, fit.warmup_iterations) == ("warmup", 7)
    assert math.isclose(fit.steady_level, 1e-3)
