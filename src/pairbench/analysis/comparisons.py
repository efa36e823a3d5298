"""From a Run's samples to Comparisons and Notices: which values are compared, and how.

Replicate values come from `analysis.replicates`. Comparisons pair
the candidate's and the baseline's values on the blocks both have; several comparisons on the
primary metrics are corrected (Holm p-values, Bonferroni-level CIs for the verdict). Imports the
model and stats only.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pairbench.analysis.inverse import INVERSE_METRICS, inverted, is_inverse
from pairbench.analysis.replicates import replicate_values
from pairbench.model import Benchmark, Comparison, Metric, Notice, Run

if TYPE_CHECKING:
    from pairbench.stats.compare import ExactResult, PairedResult

# The stats modules (numpy, scipy) are imported inside the functions that compute, so that
# reporters can import replicate_values without them (`pairbench --help` stays light).

__all__ = ["CORRECTIONS", "HIGH_NOISE_CV", "analyze", "compare_runs", "located_values", "settled", "settled_report"]

HIGH_NOISE_CV = 0.05
"""A variant whose replicate values vary by more than 5% (CV) gets a noise notice."""

CORRECTIONS = ("holm", "bh", "none")

SHELL_TIMED_METRICS = ("time", "user", "sys")
"""The command kind's metrics in seconds, from which the shell's start-up is subtracted (checked
against the kind's metrics by tests/unit/test_word_lists.py: analysis reads no runner)."""

_STARTUP_NOTE = ("the command is shorter than the spread of the shell's start-up, which is subtracted from its "
                 "times, so some read 0; run it without the shell (-N) or make each run longer")


def _startup_hint(run: Run, c: Comparison) -> Comparison:
    """Times of a command at or below 0 mean the subtracted shell start-up dominates: say so and how to fix it."""
    from pairbench.stats.differences import ADDITIVE_NOTE

    if ADDITIVE_NOTE not in c.notes or c.metric not in SHELL_TIMED_METRICS:
        return c
    if run.benchmark(c.benchmark).kind != "command" or not _shell_subtracted(run, c.benchmark):
        return c
    if any(n.kind == "shell-startup" and n.benchmark == c.benchmark for n in run.notices):
        return c  # the runner's warning says it, with the shell's figures: once is enough
    return replace(c, notes=c.notes + (_STARTUP_NOTE,))


def _shell_subtracted(run: Run, benchmark: str) -> bool:
    """Whether a shell's start-up was taken off this benchmark's times: the runner says which
    commands ran directly (a `no-shell` notice) and which through a shell (`shell`); a run file
    from before says neither, and its commands went through the shell unless `shell` was false."""
    kinds = {n.kind for n in run.notices if n.benchmark == benchmark}
    if "shell" in kinds:
        return True
    return "no-shell" not in kinds and run.benchmark(benchmark).options.get("shell", True) is not False


def confidence_label(confidence: float) -> str:
    """0.95 -> '95%', 0.98333 -> '98.3%' (for notes; reports word their sentences themselves)."""
    text = f"{confidence * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _looks_note(level: float, confidence: float, looks: int) -> str:
    return (f"CI at {confidence_label(level)}: {confidence_label(confidence)} over {looks} planned looks "
            "(Bonferroni, adaptive stopping)")


def _from_result(r: PairedResult, bench: str, metric: str, baseline: str, candidate: str,
                 bv: Sequence[float] = (), cv: Sequence[float] = ()) -> Comparison:
    base_value, cand_value = located_values(bv, cv, r.ratio)
    return Comparison(
        benchmark=bench, metric=metric, baseline=baseline, candidate=candidate, ratio=r.ratio, ci=r.ci,
        p_value=r.p_value, n=r.n, significant=r.significant, meaningful=r.meaningful,
        verdict=r.verdict,  # type: ignore[arg-type]
        more_runs=r.more_runs, threshold=r.threshold, confidence=r.confidence, method=r.method, paired=r.paired,
        mde=r.mde, notes=r.notes, achieved_confidence=r.achieved_confidence if r.ci is not None else None,
        baseline_value=base_value, candidate_value=cand_value, reached_ci=r.reached_ci,
        reached_confidence=r.reached_confidence,
    )


def located_values(bv: Sequence[float], cv: Sequence[float],
                   ratio: float | None) -> tuple[float | None, float | None]:
    """The two figures shown beside a ratio, so that candidate ÷ baseline is the ratio itself.

    The baseline's figure is its geometric mean over the compared values (the arithmetic mean when
    a value is <= 0, as the additive comparison's ratio is relative to that mean); the candidate's
    is that figure times the estimated ratio. With the mean of paired log-ratios this is the
    candidate's own geometric mean over the same blocks; with Hodges-Lehmann it is the robust
    estimate applied to the baseline's figure. Without a ratio (a zero baseline, no data) each
    side's own location is given, and no percent is shown; a side without values (a variant that
    failed) has no figure (None), never 0.
    """
    base = _location(bv, additive=any(v <= 0 for v in [*bv, *cv]))
    if ratio is not None and math.isfinite(ratio) and base is not None and base > 0:
        return base, base * ratio
    return base, _location(cv, additive=any(v <= 0 for v in [*bv, *cv]))


def _location(values: Sequence[float], additive: bool) -> float | None:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return None
    if additive:
        return math.fsum(finite) / len(finite)
    return math.exp(math.fsum(math.log(v) for v in finite) / len(finite))


def _from_exact(r: ExactResult, bench: str, metric: Metric, baseline: str, candidate: str, n: int,
                threshold: float, confidence: float) -> Comparison:
    from pairbench.stats.verdict import judge_exact

    j = judge_exact(r.baseline_value, r.candidate_value, threshold, metric.direction)
    return Comparison(
        benchmark=bench, metric=metric.name, baseline=baseline, candidate=candidate, ratio=r.ratio, ci=None,
        p_value=None, n=n, significant=r.delta != 0, meaningful=j.meaningful,
        verdict=j.verdict,  # type: ignore[arg-type]
        more_runs=None, threshold=threshold, confidence=confidence, method=r.method, paired=True, notes=r.notes,
        delta=r.delta, exact=True, baseline_value=r.baseline_value, candidate_value=r.candidate_value,
    )


def _variant_notices(bench: Benchmark, metric: Metric, values: dict[str, dict[int, float]],
                     primary: bool) -> list[Notice]:
    from pairbench.stats.drift import trend
    from pairbench.stats.estimate import summarize
    from pairbench.stats.outliers import two_groups, two_levels

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
        g = two_groups(series) if s.bimodal else None
        levels = g is not None and two_levels(g)
        if s.outliers and not levels:  # a level of its own is no outliers: the bimodal notice says what it is
            are = "is an outlier" if s.outliers == 1 else "are outliers"
            notices.append(Notice("outliers", f"{where}: {s.outliers} of {s.n} blocks {are} (MAD z > 3.5)",
                                  "they are kept; the comparison switches to the robust Hodges-Lehmann estimate "
                                  "when the paired differences show them too", bench.name, variant))
        if g is not None and levels:  # a few far blocks: outliers, said above
            gap = (g.high / g.low - 1) * 100 if g.low > 0 else math.nan
            seen = f"{g.n_low} blocks at one level, {g.n_high} " + (f"about {gap:.0f}% above it" if math.isfinite(gap)
                                                                     else "at a higher one")
            notices.append(Notice("bimodal", f"{where}: values look bimodal (bimodality coefficient > 5/9): {seen}",
                                  "a mean or median hides the two groups; the per-block values are in the run file",
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
        correction: "holm" (family-wise; each verdict on the CI at its Holm step's level), "bh"
            (false discovery rate; verdicts on Benjamini-Yekutieli CIs) or "none", across
            primary-metric comparisons (`stats.family`).
        seed: bootstrap seed.

    Returns:
        (comparisons, notices); reports word each comparison's sentence from its numbers.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction {correction!r} is not one of {', '.join(CORRECTIONS)}")
    from pairbench.stats.compare import MIN_PAIRS, compare_exact, compare_paired
    from pairbench.stats.differences import compare_differences
    from pairbench.stats.family import compare_family
    from pairbench.stats.sequential import look_confidence

    level = look_confidence(confidence, looks)
    base = run.baseline.name
    candidates = [v.name for v in run.variants if v.name != base]
    comparisons: list[Comparison | None] = []
    notices: list[Notice] = []
    # (index into comparisons, benchmark, metric, candidate, baseline values, candidate values, direction)
    primary: list[tuple[int, str, str, str, list[float], list[float], str]] = []
    # (index into comparisons, benchmark, rate, candidate): a rate that is 1 / a time, judged as that time
    derived: list[tuple[int, str, str, str]] = []
    for bench in run.benchmarks:
        names = {m.name for m in bench.metrics}
        for mi, metric in enumerate(bench.metrics):
            if metric.direction == "none":
                continue
            values = replicate_values(run, bench.name, metric.name)
            if not values:
                continue
            time = INVERSE_METRICS.get(metric.name, "")
            if time in names and is_inverse(values, replicate_values(run, bench.name, time)):
                for cand in candidates:
                    derived.append((len(comparisons), bench.name, metric.name, cand))
                    comparisons.append(None)
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
                if metric.exact:  # declared, never inferred from the values (a time is always tested)
                    if not bv:
                        continue
                    er = compare_exact(bv, cv)
                    comparisons.append(_from_exact(er, bench.name, metric, base, cand, len(common),
                                                   threshold, level))
                    continue
                if len(common) < MIN_PAIRS:
                    n = len(common)
                    notices.append(Notice("few-blocks", f"only {n} paired block{'' if n == 1 else 's'}, no verdict",
                                          f"run at least {MIN_PAIRS} blocks (10-20 recommended)", bench.name, cand))
                if mi == 0:
                    primary.append((len(comparisons), bench.name, metric.name, cand, bv, cv, metric.direction))
                    comparisons.append(None)
                    continue
                if any(v <= 0 for v in bv + cv):
                    r = compare_differences(bv, cv, direction=metric.direction, threshold=threshold,
                                            confidence=level, seed=seed)
                else:
                    r = compare_paired(bv, cv, direction=metric.direction, threshold=threshold, confidence=level,
                                       seed=seed)
                comparisons.append(_with_looks(_from_result(r, bench.name, metric.name, base, cand, bv, cv),
                                               level, confidence, looks))
    fam = compare_family([(bv, cv, dirn) for *_, bv, cv, dirn in primary], threshold=threshold,
                         confidence=level, correction=correction, seed=seed)
    m = sum(1 for f in fam if f.adjusted is not None)
    for (i, bname, mname, cand, bv, cv, _), f in zip(primary, fam):
        c = _from_result(f.result, bname, mname, base, cand, bv, cv)
        if f.adjusted is not None and f.adjusted_p is not None and f.adjusted_confidence is not None:
            a = f.adjusted
            c = replace(c, adjusted_ci=a.ci, significant=a.significant, meaningful=a.meaningful,
                        verdict=a.verdict,  # type: ignore[arg-type]
                        more_runs=a.more_runs, notes=a.notes, adjusted_p=f.adjusted_p,
                        adjusted_confidence=f.adjusted_confidence, achieved_confidence=a.achieved_confidence)
            c = _with_looks(c, level, confidence, looks)
            c = replace(c, notes=c.notes + (_family_note(correction, m, f.adjusted_confidence, f.adjusted_p),))
        else:
            c = _with_looks(c, level, confidence, looks)
        comparisons[i] = c
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comparisons if c is not None}
    for i, bname, mname, cand in derived:
        source = by_key.get((bname, INVERSE_METRICS[mname], cand))
        comparisons[i] = inverted(source, mname) if source is not None else None
    return [_startup_hint(run, c) for c in comparisons if c is not None], notices


def _with_looks(c: Comparison, level: float, confidence: float, looks: int) -> Comparison:
    return replace(c, notes=c.notes + (_looks_note(level, confidence, looks),)) if looks > 1 else c


def _family_note(correction: str, m: int, level: float, p_adj: float) -> str:
    if correction == "holm":
        how = f"Holm across {m} comparisons; verdict on the {confidence_label(level)} CI of its Holm step"
    else:
        how = (f"Benjamini-Hochberg across {m} comparisons; verdict on the {confidence_label(level)} "
               "(Benjamini-Yekutieli) CI")
    return f"adjusted for multiple comparisons: {how}; adjusted p = {p_adj:.3g}"


def settled(run: Run, secondary: Collection[str] = ()) -> bool:
    """Every comparison the user asked about is settled: meaningfully faster or slower, or the same.

    This is the rule adaptive stopping ends on. The comparisons that count are each benchmark's
    primary metric and every other judged metric except the runner's `secondary` built-ins
    (for commands: user and system CPU, peak RSS), so declared metrics such as `--metric` values
    count. An inconclusive comparison is not settled, even when the analysis projects that more
    blocks are unlikely to settle it: that projection rests on the first noisy blocks, and the
    budget was given to be spent on narrowing the interval. "Faster/slower, but may be below δ"
    is not settled either: its CI still reaches into the band. A comparison a side of which failed
    for good (a test the candidate breaks) is not waited for. A benchmark whose options name
    `settle` metrics (the demo: the time the program measures itself) waits for those only.
    """
    lost = _failed_pairs(run)
    judged = [c for c in run.comparisons if not _untested(c) and _decides(run, c, secondary)
              and not {(c.benchmark, c.candidate), (c.benchmark, c.baseline), (c.benchmark, "")} & lost]
    if not judged:  # nothing more blocks could settle: every comparison left lost a side to a failure
        return bool(lost)
    return all(_is_settled(c) for c in judged)


def _failed_pairs(run: Run) -> set[tuple[str, str]]:
    """(benchmark, variant) pairs a runner gave up on ("benchmark-failed": a test that fails under
    a variant); more blocks only measure the other side, so stopping does not wait for them."""
    return {(n.benchmark, n.variant) for n in run.notices if n.kind == "benchmark-failed" and n.benchmark}


def _untested(c: Comparison) -> bool:
    """Exact counts settle nothing: they are the same in every block, so more blocks change nothing."""
    return c.exact or c.verdict == "exact"


def _decides(run: Run, c: Comparison, secondary: Collection[str]) -> bool:
    """Whether stopping waits for this comparison: a benchmark's `settle` option names its metrics."""
    try:
        bench = run.benchmark(c.benchmark)
    except KeyError:
        return c.metric not in secondary
    chosen = bench.options.get("settle")
    if chosen:
        return c.metric in chosen
    return (bool(bench.metrics) and bench.metrics[0].name == c.metric) or c.metric not in secondary


def _is_settled(c: Comparison) -> bool:
    return c.verdict == "same" or (c.verdict in ("faster", "slower") and c.meaningful)


def settled_report(run: Run, secondary: Collection[str] = ()) -> str:
    """Which comparisons are settled and which are not, in words, for the note a run stops with.

    Names each comparison by metric (with its benchmark and candidate when the run has several)
    and its verdict, in two groups: those that decide stopping (`settled`) and the runner's
    `secondary` ones, which do not.
    """
    several_b = len(run.benchmarks) > 1
    several_c = len({c.candidate for c in run.comparisons}) > 1

    def name(c: Comparison) -> str:
        where = [x for x, show in ((c.benchmark, several_b), (c.candidate, several_c)) if show]
        return f"{c.metric} ({', '.join(where + [c.verdict])})"

    tested = [c for c in run.comparisons if not _untested(c)]
    deciding = [c for c in tested if _decides(run, c, secondary)]
    others = [c for c in tested if c not in deciding]
    done = [name(c) for c in deciding if _is_settled(c)]
    open_ = [name(c) for c in deciding if not _is_settled(c)]
    parts = []
    if done:
        parts.append(f"settled: {', '.join(done)}")
    if open_:
        parts.append(f"not settled: {', '.join(open_)}")
    if others:
        unsettled = [name(c) for c in others if not _is_settled(c)]
        if unsettled:
            parts.append(f"not settled and not waited for: {', '.join(unsettled)}")
    return "; ".join(parts) if parts else "no comparison was judged"


def _ordered_values(per_block: dict[int, float]) -> list[float]:
    return [per_block[b] for b in sorted(per_block) if math.isfinite(per_block[b])]


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
    from pairbench.stats.differences import compare_unpaired_differences

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
                    c = _from_exact(er, bench.name, metric, blabel, clabel, min(len(bv), len(cv)),
                                    threshold, confidence)
                    c = replace(c, paired=False)
                else:  # values <= 0 (no log ratio) are compared on their difference, never dropped
                    unpaired = compare_unpaired if min(bv + cv, default=1.0) > 0 else compare_unpaired_differences
                    r = unpaired(bv, cv, direction=metric.direction, threshold=threshold, confidence=confidence)
                    c = _from_result(r, bench.name, metric.name, blabel, clabel, bv, cv)
                comparisons.append(c)
    return comparisons, notices


