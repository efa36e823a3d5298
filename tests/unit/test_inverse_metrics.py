"""A rate stored as the inverse of a time per op (micro, pytest: ops_per_s = 1 / time_per_op) is
the same estimate inverted: its figures, ratio and CI agree with the time's wherever both are shown."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from pairbench.analysis.comparisons import analyze
from pairbench.analysis.inverse import inverted
from pairbench.model import Benchmark, Run, Sample, Variant
from pairbench.runners.micro import micro_metrics


def _run(seed: int, blocks: int, benches: int = 3, replicates: int = 2) -> Run:
    """Several micro benchmarks (a family: its CIs widened), a few blocks, an outlier block: the
    cases where a separately estimated rate chose another interval method than the time."""
    rng = random.Random(seed)
    variants = [Variant("base", "python3", baseline=True), Variant("cand", "python3 -X dev")]
    benchmarks, samples = [], []
    for k in range(benches):
        name = f"bench{k}"
        benchmarks.append(Benchmark(name, "micro", micro_metrics("python"), {}))
        for block in range(blocks):
            for rep in range(replicates):
                for v, t0 in (("base", 100e-6), ("cand", 101.5e-6)):
                    spike = 1.3 if block == 2 and v == "cand" else 1.0
                    for it in range(3):
                        t = t0 * spike * math.exp(rng.gauss(0, 0.02))
                        samples.append(Sample(name, v, "time_per_op", t, block, rep, it))
                        samples.append(Sample(name, v, "ops_per_s", 1.0 / t, block, rep, it))
    return Run(metadata={}, variants=variants, benchmarks=benchmarks, samples=samples)


@pytest.mark.parametrize("seed,blocks", [(1, 6), (2, 7), (3, 8), (4, 12), (5, 20)])
def test_ops_per_s_is_the_time_per_op_estimate_inverted(seed: int, blocks: int) -> None:
    comps, _ = analyze(_run(seed, blocks))
    by = {(c.benchmark, c.metric): c for c in comps}
    for (bench, metric), t in by.items():
        if metric != "time_per_op":
            continue
        r = by[(bench, "ops_per_s")]
        assert r.baseline_value * t.baseline_value == pytest.approx(1.0, rel=1e-9)
        assert r.candidate_value * t.candidate_value == pytest.approx(1.0, rel=1e-9)
        assert r.ratio * t.ratio == pytest.approx(1.0, rel=1e-9)
        assert r.ci is not None and t.ci is not None
        assert r.ci[0] * t.ci[1] == pytest.approx(1.0, rel=1e-9)
        assert r.ci[1] * t.ci[0] == pytest.approx(1.0, rel=1e-9)
        assert (r.verdict, r.p_value, r.more_runs) == (t.verdict, t.p_value, t.more_runs)


def test_two_saved_runs_compared_unpaired_agree_too() -> None:
    """Unpaired estimates on logs are symmetric under inversion: they agree without deriving one."""
    from pairbench.analysis.comparisons import compare_runs

    base, cand = _run(7, 8), _run(8, 8)
    cand.samples = [replace(s, value=s.value * (1.04 if s.metric == "time_per_op" else 1 / 1.04)) for s in cand.samples]
    comps, _ = compare_runs(base, cand)
    by = {(c.benchmark, c.metric, c.candidate): c for c in comps}
    pairs = [(t, by[(b, "ops_per_s", v)]) for (b, m, v), t in by.items() if m == "time_per_op"]
    assert pairs
    for t, r in pairs:
        assert r.candidate_value * t.candidate_value == pytest.approx(1.0, rel=1e-9)
        assert r.ratio * t.ratio == pytest.approx(1.0, rel=1e-9)
        assert r.verdict == t.verdict


def test_medians_agree_too_with_an_even_number_of_blocks() -> None:
    """A table without a comparison (one variant, a metric never judged) shows the median of the
    per-block values: the rate's is the time's inverted, even where the median averages two."""
    from pairbench.analysis.replicates import spreads

    run = _run(3, 6, benches=1, replicates=1)
    for (bench, metric, variant), sp in spreads(run).items():
        if metric != "ops_per_s":
            continue
        t = spreads(run)[(bench, "time_per_op", variant)]
        assert sp.median * t.median == pytest.approx(1.0, rel=1e-9)
        assert sp.q1 * t.q3 == pytest.approx(1.0, rel=1e-9) and sp.q3 * t.q1 == pytest.approx(1.0, rel=1e-9)
        assert sp.minimum * t.maximum == pytest.approx(1.0, rel=1e-9)


def test_a_comparison_without_data_stays_one_the_consistency_check_accepts():
    # a pytest test the head breaks: the time's comparison has no ratio and zeros for the figures
    from pairbench.analysis.consistency import check_consistent
    from pairbench.model import Comparison

    empty = Comparison("t", "time_per_op", "base", "head", None, None, None, 0, False, False, "insufficient", 6,
                       threshold=0.02, baseline_value=0.0, candidate_value=0.0)
    assert check_consistent([empty]) == []
    assert check_consistent([inverted(empty, "ops_per_s")]) == []
