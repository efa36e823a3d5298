"""The suite summary: the geometric mean over benchmarks of each candidate's primary-metric ratios,
with a block-bootstrap CI that keeps the correlation between benchmarks measured in one block
(METHOD §6)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from pairbench.analysis.replicates import replicate_values
from pairbench.model import Comparison, Run
from pairbench.summaries import SuiteSummary

__all__ = ["SuiteSummary", "suite_summary"]


def suite_summary(run: Run, comparisons: Sequence[Comparison], *, confidence: float = 0.95,
                  seed: int = 0) -> list[SuiteSummary]:
    """Geometric mean of the primary-metric ratios per candidate, with a block-bootstrap CI.

    Rates are inverted (ln b - ln c) so that every ratio reads "below 1 is better" and they can be
    combined; exact metrics are left out.

    Args:
        run: the run (for the per-block values).
        comparisons: the comparisons made on it (which candidates and benchmarks to include).
        confidence: CI level.
        seed: bootstrap seed.

    Returns:
        One SuiteSummary per candidate with at least one primary comparison of 2+ blocks.
    """
    import numpy as np

    from pairbench.stats.multiplicity import geomean_ratio
    from pairbench.stats.reached import reached_paired
    from pairbench.stats.verdict import MIN_PAIRS

    by_cand: dict[str, dict[str, dict[int, float]]] = defaultdict(dict)
    left_out: dict[str, list[str]] = defaultdict(list)
    baseline_of: dict[str, str] = {}
    for c in comparisons:
        try:
            bench = run.benchmark(c.benchmark)
        except KeyError:
            continue
        if not bench.metrics or bench.metrics[0].name != c.metric or bench.metrics[0].exact:
            continue
        metric = bench.metrics[0]
        values = replicate_values(run, c.benchmark, c.metric)
        bvals = values.get(c.baseline, {})
        cvals = values.get(c.candidate, {})
        shared = sorted(set(bvals) & set(cvals))
        if any(bvals[b] <= 0 or cvals[b] <= 0 for b in shared):
            # compared by its means (no log ratio of 0): its positive blocks alone would give
            # another ratio than the table's, so it stays out and the note names it
            left_out[c.candidate].append(c.benchmark)
            continue
        diffs = {}
        for b in shared:
            d = math.log(cvals[b]) - math.log(bvals[b])
            diffs[b] = -d if metric.direction == "higher" else d
        if len(diffs) >= 2:
            by_cand[c.candidate][c.benchmark] = diffs
            baseline_of[c.candidate] = c.baseline
    out = []
    for cand, series in by_cand.items():
        ratio, ci = geomean_ratio(series, confidence=confidence, seed=seed)
        blocks = sorted({b for v in series.values() for b in v})
        reached = None
        if len(blocks) < MIN_PAIRS:  # a bootstrap over so few blocks is far narrower than its level
            per_block = np.array([np.mean([v[b] for v in series.values() if b in v]) for b in blocks])
            ci, reached = reached_paired(per_block, confidence)
        out.append(SuiteSummary(cand, baseline_of[cand], ratio, ci, confidence, len(series), len(blocks), reached,
                                tuple(left_out.get(cand, ()))))
    return out
