"""From a Run's samples to Comparisons and Notices: which values are compared, and how.

Replicate values come from `analysis.replicates`. Comparisons pair
the candidate's and the baseline's values on the blocks both have; several comparisons on the
primary metrics are corrected (Holm p-values, Bonferroni-level CIs for the verdict). Imports the
model and stats only.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from pairbench.analysis.replicates import replicate_values
from pairbench.model import Benchmark, Comparison, Metric, Notice, Run

if TYPE_CHECKING:
    from pairbench.stats.compare import ExactResult, PairedResult

# The stats modules (numpy, scipy) are imported inside the functions that compute, so that
# reporters can import replicate_values without them (`pairbench --help` stays light).

__all__ = ["CORRECTIONS", "HIGH_NOISE_CV", "analyze", "compare_runs", "settled"]

HIGH_NOISE_CV = 0.05
"""A variant whose replicate values vary by more than 5% (CV) gets a noise notice."""

CORRECTIONS = ("holm", "bh", "none")

_NONPOSITIVE_NOTE = ("values <= 0 (counts of errors, zero rates): ratios are undefined, so medians are compared "
                     "without a test")


def confidence_label(confidence: float) -> str:
    """0.95 -> '95%', 0.98333 -> '98.3%' (for notes; reports word their sentences themselves)."""
    text = f"{confidence * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _looks_note(level: float, confidence: float, looks: int) -> str:
    return (f"CI at {confidence_label(level)}: {confidence_label(confidence)} over {looks} planned looks "
            "(Bonferroni, adaptive stopping)")


def _from_result(r: PairedResult, bench: str, metric: str, baseline: str, candidate: str) -> Comparison:
    return Comparison(
        benchmark=bench, metric=metric, baseline=baseline, candidate=candidate, ratio=r.ratio, ci=r.ci,
        p_value=r.p_value, n=r.n, significant=r.significant, meaningful=r.meaningful,
        verdict=r.verdict,  # type: ignore[arg-type]
        more_runs=r.more_runs, threshold=r.threshold, confidence=r.confidence, method=r.method, paired=r.paired,
        mde=r.mde, notes=r.notes,
    )


def _from_exact(r: ExactResult, bench: str, metric: str, baseline: str, candidate: str, n: int,
                threshold: float, confidence: float) -> Comparison:
    meaningful = r.ratio is not None and abs(r.ratio - 1) > threshold
    return Comparison(
        benchmark=bench, metric=metric, baseline=baseline, candidate=candidate, ratio=r.ratio, ci=None,
        p_value=None, n=n, significant=r.delta != 0, meaningful=meaningful, verdict="exact", more_runs=None,
        threshold=threshold, confidence=confidence, method=r.method, paired=True, notes=r.notes, delta=r.delta,
    )


def _variant_notices(bench: Benchmark, metric: Metric, values: dict[str, dict[int, float]],
                     primary: bool) -> list[Notice]:
    from pairbench.stats.drift import trend
    from pairbench.stats.estimate import summarize

    notices: list[Notice] = []
    for variant, per_block in values.items():
        series = [per_block[b] for b in sorted(per_block)]
        if len(series) < 2:
            continue
        s = summarize(series)
        where = metric.name  # every report shows the notice's benchmark and variant beside it
        if not metric.exact and math.isfinite(s.cv) and s.cv > HIGH_NOISE_CV:
            notices.append(Notice("noise", f"{where}: replicate values vary by {s.cv * 100:.1f}% (CV)",
                                  "close other programs, check the CPU governor and load, or run more blocks",
                                  bench.name, variant))
        if s.outliers:
            notices.append(Notice("outliers", f"{where}: {s.outliers} of {s.n} blocks are outliers (MAD z > 3.5)",
                                  "they are kept; the comparison switches to the robust Hodges-Lehmann estimate "
                                  "when the paired differences show them too", bench.name, variant))
        if s.bimodal:
            notices.append(Notice("bimodal", f"{where}: values look bimodal (bimodality coefficient > 5/9)",
                                  "two states (cache, JIT, frequency) alternate; a mean or median hides this",
                                  bench.name, variant))
        if primary and not metric.exact:
            tr = trend(series)
            if tr.flagged:
                notices.append(Notice("drift", f"{where}: values drift over the run (Kendall τ = {tr.tau:.2f}, "
                                      f"p = {tr.p_value:.3f})",
                                      "interleaving keeps paired comparisons unbiased, but the machine is not steady",
                                      bench.name, variant))
    return notices


def analyze(run: Run, *, threshold: float = 0.01, confidence: float = 0.95, looks: int = 1,
            correction: str = "holm", seed: int = 0) -> tuple[list[Comparison], list[Notice]]:
    """Compare every candidate with the baseline, per benchmark and metric, paired on blocks.

    Args:
        run: the run (complete or partial).
        threshold: noise band δ as a fraction.
        confidence: overall CI level.
        looks: interim analyses planned in all (adaptive stopping); each CI is widened to
            1 - (1-confidence)/looks so stopping early keeps the error rate (METHOD §5).
        correction: "holm" (family-wise; verdicts on Bonferroni-level CIs), "bh" (false discovery
            rate; verdicts on Benjamini-Yekutieli CIs) or "none", across primary-metric comparisons.
        seed: bootstrap seed.

    Returns:
        (comparisons, notices); reports word each comparison's sentence from its numbers.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction {correction!r} is not one of {', '.join(CORRECTIONS)}")
    from pairbench.stats.compare import MIN_PAIRS, compare_exact, compare_paired
    from pairbench.stats.multiplicity import benjamini_hochberg, bonferroni_confidence, fcr_confidence, holm
    from pairbench.stats.sequential import look_confidence

    level = look_confidence(confidence, looks)
    base = run.baseline.name
    candidates = [v.name for v in run.variants if v.name != base]
    comparisons: list[Comparison] = []
    notices: list[Notice] = []
    # (index into comparisons, baseline values, candidate values, direction) of primary comparisons
    primary: list[tuple[int, list[float], list[float], str]] = []
    for bench in run.benchmarks:
        for mi, metric in enumerate(bench.metrics):
            if metric.direction == "none":
                continue
            values = replicate_values(run, bench.name, metric.name)
            if not values:
                continue
            if mi == 0:  # noise warnings on secondary metrics (user, sys, rss) would drown the report
                notices.extend(_variant_notices(bench, metric, values, True))
            base_vals = values.get(base, {})
            for cand in candidates:
                cand_vals = values.get(cand, {})
                if not base_vals and not cand_vals:
                    continue
                common = sorted(set(base_vals) & set(cand_vals))
                bv = [base_vals[b] for b in common]
                cv = [cand_vals[b] for b in common]
                nonpositive = any(v <= 0 for v in bv + cv)
                if metric.exact or nonpositive:
                    if not bv:
                        continue
                    er = compare_exact(bv, cv)
                    c = _from_exact(er, bench.name, metric.name, base, cand, len(common), threshold, level)
                    if nonpositive and not metric.exact:
                        c = replace(c, notes=c.notes + (_NONPOSITIVE_NOTE,))
                    comparisons.append(c)
                    continue
                dirn = metric.direction
                r = compare_paired(bv, cv, direction=dirn, threshold=threshold, confidence=level, seed=seed)
                c = _from_result(r, bench.name, metric.name, base, cand)
                if looks > 1:
                    c = replace(c, notes=c.notes + (_looks_note(level, confidence, looks),))
                if mi == 0 and r.n >= MIN_PAIRS:
                    primary.append((len(comparisons), bv, cv, dirn))
                comparisons.append(c)
                if r.n < MIN_PAIRS:
                    notices.append(Notice("few-blocks", f"{bench.name} / {cand}: only {r.n} paired blocks, no verdict",
                                          f"run at least {MIN_PAIRS} blocks (10-20 recommended)", bench.name, cand))
    m = len(primary)
    if m > 1 and correction != "none":
        ps = [comparisons[i].p_value or 1.0 for i, *_ in primary]
        if correction == "holm":
            adj_p = holm(ps)
            adj_level = bonferroni_confidence(level, m)
            how = f"Holm across {m} comparisons; verdict on the {confidence_label(adj_level)} (Bonferroni) CI"
        else:
            adj_p = benjamini_hochberg(ps)
            selected = sum(1 for p in adj_p if p <= 1 - level)
            adj_level = fcr_confidence(level, m, selected)
            how = (f"Benjamini-Hochberg across {m} comparisons; verdict on the {confidence_label(adj_level)} "
                   "(Benjamini-Yekutieli) CI")
        for (i, pbv, pcv, pdir), p_adj in zip(primary, adj_p):
            old = comparisons[i]
            r = compare_paired(pbv, pcv, direction=pdir, threshold=threshold, confidence=adj_level, seed=seed)
            comparisons[i] = replace(
                old, adjusted_ci=r.ci, adjusted_p=p_adj, significant=r.significant, meaningful=r.meaningful,
                verdict=r.verdict,  # type: ignore[arg-type]
                more_runs=r.more_runs,
                notes=r.notes + ((_looks_note(level, confidence, looks),) if looks > 1 else ())
                + (f"adjusted for multiple comparisons: {how}; adjusted p = {p_adj:.3g}",),
            )
    return comparisons, notices


def settled(run: Run, secondary: Collection[str] = ()) -> bool:
    """Every comparison the user asked about is settled: meaningfully faster or slower, or the same.

    This is the rule adaptive stopping ends on. The comparisons that count are each benchmark's
    primary metric and every other judged metric except the runner's `secondary` built-ins
    (for commands: user and system CPU, peak RSS), so declared metrics such as `--metric` values
    count. An inconclusive comparison is not settled, even when the analysis projects that more
    blocks are unlikely to settle it: that projection rests on the first noisy blocks, and the
    budget was given to be spent on narrowing the interval. "Faster/slower, but may be below δ"
    is not settled either: its CI still reaches into the band.
    """
    primary = {b.name: b.metrics[0].name for b in run.benchmarks if b.metrics}
    judged = [
        c for c in run.comparisons
        if c.verdict != "exact" and (primary.get(c.benchmark) == c.metric or c.metric not in secondary)
    ]
    return bool(judged) and all(c.verdict == "same" or (c.verdict in ("faster", "slower") and c.meaningful)
                                for c in judged)


def _ordered_values(per_block: dict[int, float]) -> list[float]:
    return [per_block[b] for b in sorted(per_block) if per_block[b] > 0]


def compare_runs(base: Run, cand: Run, *, threshold: float = 0.01,
                 confidence: float = 0.95) -> tuple[list[Comparison], list[Notice]]:
    """Unpaired comparison of two saved runs (METHOD §3 fallback), benchmark by benchmark.

    Variants are matched by name when the runs share names (each is compared with its namesake in
    the base run, labelled `name [base]` / `name [new]`); otherwise the base run's baseline is
    compared with every variant of the other run.

    Args:
        base: the reference run.
        cand: the run to judge.
        threshold: noise band δ.
        confidence: CI level.

    Returns:
        (comparisons, notices); notices list benchmarks present on one side only.
    """
    from pairbench.stats.compare import compare_exact, compare_unpaired

    notices: list[Notice] = []
    base_names = {b.name for b in base.benchmarks}
    cand_names = {b.name for b in cand.benchmarks}
    for name in sorted(base_names - cand_names):
        notices.append(Notice("unmatched", f"benchmark {name} is only in the base run", "", name))
    for name in sorted(cand_names - base_names):
        notices.append(Notice("unmatched", f"benchmark {name} is only in the new run", "", name))
    base_vnames = [v.name for v in base.variants]
    cand_vnames = [v.name for v in cand.variants]
    shared = [v for v in cand_vnames if v in base_vnames]
    if shared:
        pairs = [(v, v, f"{v} [base]", f"{v} [new]") for v in shared]
    else:
        b0 = base.baseline.name
        pairs = [(b0, v, b0, v) for v in cand_vnames]
    comparisons: list[Comparison] = []
    for bench in cand.benchmarks:
        if bench.name not in base_names:
            continue
        base_bench = base.benchmark(bench.name)
        for metric in bench.metrics:
            if metric.direction == "none":
                continue
            try:
                base_bench.metric(metric.name)
            except KeyError:
                continue
            bvals = replicate_values(base, bench.name, metric.name)
            cvals = replicate_values(cand, bench.name, metric.name)
            for bname, cname, blabel, clabel in pairs:
                bv = _ordered_values(bvals.get(bname, {}))
                cv = _ordered_values(cvals.get(cname, {}))
                if not bv and not cv:
                    continue
                if metric.exact:
                    if not bv or not cv:
                        continue
                    er = compare_exact(bv, cv)
                    c = _from_exact(er, bench.name, metric.name, blabel, clabel, min(len(bv), len(cv)),
                                    threshold, confidence)
                    c = replace(c, paired=False)
                else:
                    r = compare_unpaired(bv, cv, direction=metric.direction, threshold=threshold,
                                         confidence=confidence)
                    c = _from_result(r, bench.name, metric.name, blabel, clabel)
                comparisons.append(c)
    return comparisons, notices


