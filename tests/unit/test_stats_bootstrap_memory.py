"""The bootstrap's resampling matrix, kept small: the same numbers as the float64 matrix it replaced.

The reference below is the earlier code, verbatim: a (resamples, n) float64 matrix drawn in one
call and multiplied by einsum. The compact matrix (small integers, multiplied by row chunks) must
give the same resampled means bit for bit, so every interval, p-value and verdict stays the same.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairbench.stats import bootstrap
from pairbench.stats.bootstrap import (
    bca_mean_interval,
    bca_p_value,
    drawn_sums,
    release_resamples,
    resample_counts,
    resampled_sums,
)
from pairbench.stats.multiplicity import geomean_ratio


def _reference_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


@pytest.mark.parametrize("n", [2, 3, 7, 30, 257, 301])
@pytest.mark.parametrize("resamples", [257, 1000, 10_000])
def test_compact_counts_are_the_float_matrix_and_give_the_same_sums(n: int, resamples: int) -> None:
    ref = _reference_counts(n, resamples, 3)
    counts = resample_counts(n, resamples, 3)
    assert counts.itemsize <= 2 and np.array_equal(counts, ref)
    rng = np.random.default_rng(n)
    x = rng.lognormal(0, 0.3, n) - 1
    assert np.array_equal(resampled_sums(counts, x), np.einsum("ij,j->i", ref, x))
    m = rng.normal(0, 1, (n, 3))
    assert np.array_equal(resampled_sums(counts, m), np.einsum("ij,jk->ik", ref, m))
    by_chunks = drawn_sums(n, [x, m], resamples, 3)
    assert np.array_equal(by_chunks[0], np.einsum("ij,j->i", ref, x))
    assert np.array_equal(by_chunks[1], np.einsum("ij,jk->ik", ref, m))


def test_intervals_and_p_values_are_those_of_the_float_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bootstrap figure, with the sums by chunks and with the earlier whole float matrix."""
    import pairbench.stats.multiplicity as multiplicity

    rng = np.random.default_rng(11)
    data = [rng.normal(0.01, 0.05, n) for n in (5, 40, 300)] + [rng.standard_t(3, 120) * 0.02]
    series = {"a": {b: float(v) for b, v in enumerate(rng.normal(0.02, 0.03, 60))},
              "b": {b: float(v) for b, v in enumerate(rng.normal(-0.01, 0.03, 50))}}

    def figures() -> tuple[object, ...]:
        release_resamples()
        return [bca_mean_interval(d) for d in data], [bca_p_value(d) for d in data], geomean_ratio(series)

    now = figures()
    for module in (bootstrap, multiplicity):
        monkeypatch.setattr(module, "drawn_sums", _reference_sums)
    before = figures()
    release_resamples()
    assert now == before
    assert all(math.isfinite(p) for p in now[1])


def _reference_sums(n: int, xs: list[np.ndarray], resamples: int = bootstrap.BOOTSTRAP_RESAMPLES,
                    seed: int = 0) -> list[np.ndarray]:
    counts = _reference_counts(n, resamples, seed)
    return [np.einsum("ij,j->i" if x.ndim == 1 else "ij,jk->ik", counts, x) for x in xs]


def test_the_matrix_of_300_blocks_takes_a_byte_or_two_a_cell() -> None:
    """10,000 x 300 float64 was 24 MB, built through three more copies of that size."""
    counts = resample_counts(300, 10_000, 0)
    assert counts.nbytes <= 2 * 300 * 10_000
    assert not counts.flags.writeable


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 11, 40, 300, 301])
def test_the_median_and_quartiles_are_numpys_bit_for_bit(n: int) -> None:
    """stats/_order.py: np.median's and np.quantile's values without them (they import numpy.ma, ~1.3 MB)."""
    from pairbench.stats._order import median, quantiles

    rng = np.random.default_rng(n)
    cases = [rng.lognormal(0, 1, n), rng.normal(0, 1, n), rng.integers(-5, 5, n), np.round(rng.normal(0, 1, n), 1)]
    if n > 1:
        cases += [np.append(rng.normal(0, 1, n - 1), np.nan), np.append(rng.normal(0, 1, n - 1), np.inf),
                  np.append(rng.normal(0, 1, n - 2), [np.inf, -np.inf]) if n > 2 else np.array([np.inf, -np.inf])]
    for x in cases:
        with np.errstate(invalid="ignore"):  # np.median warns on inf + -inf; ours gives the same NaN silently
            theirs = float(np.median(x))
        ours = median(x)
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (x, ours, theirs)
        assert isinstance(ours, float)
        with np.errstate(invalid="ignore"):
            theirs_q = [float(q) for q in np.quantile(x, [0.25, 0.75])]
        ours_q = quantiles(x, [0.25, 0.75])
        assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(ours_q, theirs_q)), (x, ours_q, theirs_q)



def test_a_finished_analysis_keeps_no_resampling_matrix() -> None:
    """Resampled means are shared by an interval and its p-value; kept after the analysis, they
    (and a whole matrix, 3 MB for 300 blocks) sat under the history, the run file and the report."""
    from pairbench.session import RunOptions, finish_analysis
    from tests.unit.test_sweep_report import make_run

    run = make_run({"3": 1.0, "1": 0.5, "2": 0.8})
    finish_analysis(run, RunOptions(record_history=False))
    assert run.comparisons
    assert resample_counts.cache_info().currsize == 0
    assert bootstrap._boot_means.cache_info().currsize == 0
