"""Invariants of compare_paired on arbitrary data (hypothesis): units, symmetry, internal consistency."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pairbench.analysis.comparisons import _from_result
from pairbench.model import Metric
from pairbench.report.wording import verdict_sentence
from pairbench.stats.compare import compare_paired
from tests.conftest import assert_consistent

MIRROR = {"faster": "slower", "slower": "faster", "same": "same", "inconclusive": "inconclusive",
          "insufficient": "insufficient"}

log_diffs = st.lists(st.floats(-0.3, 0.3, allow_nan=False, allow_subnormal=False), min_size=6, max_size=30)


def _values(d: list[float]) -> tuple[np.ndarray, np.ndarray]:
    base = 0.02 * np.exp(np.linspace(0.0, 0.2, len(d)))  # varying machine state per block
    return base, base * np.exp(np.asarray(d))


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(log_diffs, st.floats(1e-6, 1e6))
def test_scale_invariance(d, scale):
    b, c = _values(d)
    r1 = compare_paired(b, c)
    r2 = compare_paired(b * scale, c * scale)
    assert r1.verdict == r2.verdict and r1.method == r2.method
    assert math.isclose(r1.ratio, r2.ratio, rel_tol=1e-9)
    assert math.isclose(r1.ci[0], r2.ci[0], rel_tol=1e-6) and math.isclose(r1.ci[1], r2.ci[1], rel_tol=1e-6)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(log_diffs)
def test_swapping_sides_inverts_the_ratio_and_the_verdict(d):
    b, c = _values(d)
    r = compare_paired(b, c)
    s = compare_paired(c, b)
    assert math.isclose(r.ratio * s.ratio, 1.0, rel_tol=1e-9)
    width = math.log(r.ci[1]) - math.log(r.ci[0])
    tol = 0.02 * width + 1e-12  # bootstrap quantile indices round to neighbours
    assert abs(math.log(s.ci[0]) + math.log(r.ci[1])) <= tol
    assert abs(math.log(s.ci[1]) + math.log(r.ci[0])) <= tol
    if tol < 1e-9 or min(abs(math.log(r.ci[0])), abs(math.log(r.ci[1]))) > tol:
        assert s.verdict == MIRROR[r.verdict]


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(log_diffs, st.sampled_from(["lower", "higher"]), st.floats(0.0, 0.05))
def test_result_is_internally_consistent(d, direction, threshold):
    b, c = _values(d)
    r = compare_paired(b, c, direction=direction, threshold=threshold)
    lo, hi = r.ci
    assert lo <= r.ratio * (1 + 1e-12) and r.ratio <= hi * (1 + 1e-12)
    assert r.significant == (lo > 1 or hi < 1)
    assert r.meaningful == (hi - 1 < -threshold or lo - 1 > threshold)
    if r.verdict == "same":
        assert lo - 1 >= -threshold and hi - 1 <= threshold
    if r.verdict == "inconclusive":
        assert not r.significant and (r.more_runs is not None) != r.unresolvable
    else:
        assert r.more_runs is None
    if r.verdict in ("faster", "slower"):
        better = (r.ratio < 1) if direction == "lower" else (r.ratio > 1)
        assert r.verdict == ("faster" if better else "slower")
    assert 0 <= r.p_value <= 1
    # The p-value is the test the CI inverts: significant exactly when p <= 1 - confidence.
    assert r.significant == (r.p_value <= 0.05 + 1e-9) or abs(r.p_value - 0.05) < 1e-9
    assert r.achieved_confidence >= r.confidence - 1e-12
    # Every result can be put into words.
    metric = Metric("t", "s" if direction == "lower" else "op/s", direction)
    sentence = verdict_sentence(_from_result(r, "b", "t", "A", "B"), metric)
    assert sentence and "nan" not in sentence and "inf" not in sentence


@settings(max_examples=40, deadline=None, database=None)
@given(st.lists(st.floats(-0.3, 0.3, allow_nan=False, allow_subnormal=False), min_size=2, max_size=25),
       st.lists(st.floats(-0.3, 0.3, allow_nan=False, allow_subnormal=False), min_size=2, max_size=25),
       st.floats(0.0, 0.05))
def test_unpaired_is_consistent_and_worded(x, y, threshold):
    from pairbench.stats.compare import compare_unpaired

    r = compare_unpaired(np.exp(x), np.exp(y), threshold=threshold)
    assert not r.paired and r.n == min(len(x), len(y))
    if r.verdict != "insufficient":
        assert r.ci[0] <= r.ratio * (1 + 1e-12) and r.ratio <= r.ci[1] * (1 + 1e-12)
        assert r.significant == (r.ci[0] > 1 or r.ci[1] < 1)
        assert r.significant == (r.p_value <= 0.05 + 1e-9) or abs(r.p_value - 0.05) < 1e-9
        assert r.achieved_confidence >= r.confidence - 1e-12
    sentence = verdict_sentence(_from_result(r, "b", "t", "A", "B"), Metric("t"))
    assert sentence and "nan" not in sentence


@settings(max_examples=30, deadline=None, database=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.sampled_from(["A", "B", "C"]), st.integers(0, 1),
                          st.floats(0.0, 10.0, allow_nan=False), st.booleans()), max_size=80))
def test_analyze_never_crashes_on_partial_runs(rows):
    """Missing blocks, zeros, warmups, uneven replicates: analyze still returns worded comparisons."""
    from pairbench.analysis import analyze
    from pairbench.model import Benchmark, Run, Sample, Variant

    run = Run({}, [Variant("A", baseline=True), Variant("B"), Variant("C")],
              [Benchmark("x", "command", (Metric("t"), Metric("ops", "op/s", "higher")))],
              [Sample("x", v, "t" if rep == 0 else "ops", val, blk, 0, 0, warmup=w)
               for blk, v, rep, val, w in rows])
    comps, notices = analyze(run)
    assert_consistent(comps)
    for c in comps:
        assert verdict_sentence(c, run.benchmark(c.benchmark).metric(c.metric)) and c.verdict in ("faster", "slower", "same", "inconclusive", "insufficient", "exact")
