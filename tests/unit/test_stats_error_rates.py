"""Error rates of the verdicts on synthetic data with known truth (fixed seeds): the product's proof.

Each scenario simulates many interleaved runs: a per-block machine factor shared by both variants
(which pairing must cancel), independent per-measurement noise on the log scale, and a true ratio.
Rates are counted over all simulated comparisons; tolerances are about 3 binomial standard
errors, so the assertions are deterministic (fixed seeds) and not fragile. The measured figures
are quoted in docs/statistics.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from pairbench.stats.compare import compare_paired, compare_unpaired
from pairbench.stats.sequential import look_confidence, plan_looks

ALPHA = 0.05


def _noise(rng: np.random.Generator, kind: str, size: tuple[int, ...], sigma: float) -> np.ndarray:
    if kind == "normal":
        return rng.normal(0.0, sigma, size)
    if kind == "t3":  # heavy tails: Student t with 3 degrees of freedom
        return rng.standard_t(3, size) * sigma
    if kind == "spikes":  # 5% of measurements hit by a +35% stall (ln 1.35 = 0.3)
        return rng.normal(0.0, sigma, size) + (rng.random(size) < 0.05) * 0.3
    if kind == "skewed":  # right-skewed lognormal noise
        return rng.lognormal(0.0, 1.0, size) * sigma
    raise ValueError(kind)


@dataclass
class Rates:
    significant: float
    covered: float
    verdicts: dict[str, float]
    robust: float


def simulate(n: int, ratio: float = 1.0, *, sims: int, noise: str = "normal", sigma: float = 0.02,
             seed: int = 0, threshold: float = 0.01, drift: float = 0.0, **kw) -> Rates:
    """Run `sims` paired comparisons of n blocks with the given true ratio."""
    rng = np.random.default_rng(seed)
    block = np.exp(rng.normal(0.0, 0.05, (sims, n)))  # shared machine state per block
    eb = _noise(rng, noise, (sims, n), sigma)
    ec = _noise(rng, noise, (sims, n), sigma)
    if drift:
        # Linear drift over the run, hitting both variants; the order inside each block is random
        # (A first or B first), as the session's randomized blocks do.
        t = np.arange(2 * n).reshape(n, 2) * drift / (2 * n)
        first = rng.random((sims, n)) < 0.5
        tb = np.where(first, t[:, 0], t[:, 1])
        tc = np.where(first, t[:, 1], t[:, 0])
        eb = eb + np.log1p(tb)
        ec = ec + np.log1p(tc)
    base = 0.03 * block * np.exp(eb)
    cand = 0.03 * block * ratio * np.exp(ec)
    sig = cov = rob = 0
    verdicts: dict[str, int] = {}
    for i in range(sims):
        r = compare_paired(base[i], cand[i], threshold=threshold, **kw)
        sig += r.significant
        cov += r.ci[0] <= ratio <= r.ci[1]
        rob += r.robust
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    return Rates(sig / sims, cov / sims, {k: v / sims for k, v in verdicts.items()}, rob / sims)


def _tolerance(sims: int) -> float:
    return 3 * (ALPHA * (1 - ALPHA) / sims) ** 0.5


@pytest.mark.parametrize("n", [10, 20])
def test_aa_false_positive_rate_lognormal(n):
    sims = 2000
    r = simulate(n, sims=sims, seed=n)
    assert r.significant <= ALPHA + _tolerance(sims)
    # Not absurdly conservative either: the test keeps its size.
    assert r.significant >= ALPHA - _tolerance(sims)
    assert r.verdicts.get("faster", 0) + r.verdicts.get("slower", 0) == pytest.approx(r.significant)


@pytest.mark.parametrize("noise,n", [("t3", 20), ("spikes", 20), ("spikes", 10), ("skewed", 10)])
def test_aa_false_positive_rate_heavy_tailed(noise, n):
    sims = 500
    r = simulate(n, sims=sims, noise=noise, seed=7)
    assert r.significant <= ALPHA + _tolerance(sims)
    assert r.robust > 0.25  # outliers/skew flagged: the robust mode is used where it matters


def test_aa_with_linear_drift_hitting_both_variants():
    sims = 500
    r = simulate(20, sims=sims, drift=0.10, seed=11)  # 10% drift over the run
    assert r.significant <= ALPHA + _tolerance(sims)


def test_without_interleaving_drift_makes_false_alarms():
    """Contrast: all of A then all of B under the same 10% drift, compared unpaired: mostly false alarms."""
    rng = np.random.default_rng(5)
    n, sims, false = 20, 200, 0
    t = np.arange(2 * n) * 0.10 / (2 * n)
    for _ in range(sims):
        a = 0.03 * (1 + t[:n]) * np.exp(rng.normal(0, 0.02, n))
        b = 0.03 * (1 + t[n:]) * np.exp(rng.normal(0, 0.02, n))
        false += compare_unpaired(a, b).significant
    assert false / sims > 0.5


def test_power_for_true_10_percent_at_n20_with_2_percent_noise():
    r = simulate(20, ratio=0.90, sims=200, seed=3)
    assert r.verdicts.get("faster", 0) >= 0.99
    assert r.significant >= 0.99


def test_coverage_of_true_ratio_is_about_95_percent():
    sims = 1000
    r = simulate(20, ratio=0.95, sims=sims, seed=4)
    assert abs(r.covered - 0.95) <= _tolerance(sims)
    assert r.verdicts.get("faster", 0) >= 0.99


def test_coverage_in_robust_mode():
    sims = 400
    r = simulate(20, ratio=1.03, sims=sims, noise="spikes", seed=6, robust=True)
    assert r.covered >= 0.95 - _tolerance(sims)


def test_tiny_shift_with_tiny_noise_is_same():
    r = simulate(20, ratio=1.002, sigma=0.001, sims=200, seed=8)
    assert r.verdicts.get("same", 0) >= 0.99


def test_small_true_difference_is_not_called_the_wrong_way():
    """A true 2% slowdown: the verdict may stay inconclusive, but almost never says 'faster'."""
    r = simulate(20, ratio=1.02, sims=300, seed=9)
    assert r.verdicts.get("faster", 0) <= 0.01
    assert r.verdicts.get("slower", 0) >= 0.5


STOPS: list[int] = []


def _adaptive(rng: np.random.Generator, looks: list[int], level: float) -> bool:
    """One A/A run stopped at the first settled look; True if the final verdict is significant."""
    n_max = looks[-1]
    block = np.exp(rng.normal(0.0, 0.05, n_max))
    # 1% noise: many runs settle early as "same", so stopping really is data-dependent.
    b = 0.03 * block * np.exp(rng.normal(0.0, 0.01, n_max))
    c = 0.03 * block * np.exp(rng.normal(0.0, 0.01, n_max))
    r = None
    for n in looks:
        r = compare_paired(b[:n], c[:n], confidence=level, threshold=0.01)
        if r.verdict not in ("inconclusive", "insufficient"):
            break
    assert r is not None
    STOPS.append(n)
    return r.significant


def test_adaptive_stopping_keeps_false_positive_rate():
    looks = plan_looks(10, 30)
    assert 2 <= len(looks) <= 5
    sims = 500
    rng = np.random.default_rng(21)
    level = look_confidence(0.95, len(looks))
    STOPS.clear()
    rate = sum(_adaptive(rng, looks, level) for _ in range(sims)) / sims
    assert rate <= ALPHA + _tolerance(sims)
    # The rule really stops early often (otherwise this would test a fixed-n design).
    assert sum(1 for n in STOPS if n < looks[-1]) / sims > 0.3


def test_naive_peeking_at_fixed_95_percent_exceeds_it():
    """Contrast (benchstat's warning): stopping at the first significant look of 10..30 at plain 95%."""
    sims = 200
    rng = np.random.default_rng(22)
    looks = list(range(10, 31, 4))
    rate = sum(_adaptive(rng, looks, 0.95) for _ in range(sims)) / sims
    assert rate > ALPHA + _tolerance(sims)
