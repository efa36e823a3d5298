"""Interim unpaired comparison of two saved runs, used by `compare` only until
`pairbench.analysis.compare_runs` lands (then this module can go).

Method (METHOD.md §3, unpaired fallback): one value per replicate (process), the geometric mean
of its iterations; Welch's t on the log values (Welch–Satterthwaite df), so the CI is for the
ratio of geometric means; verdicts by the CI-and-band rules of §4, with §5's estimate of the
replicates still needed. Mann–Whitney's floor: fewer than 4 replicates per side gives no verdict.
"""

from __future__ import annotations

import math
import statistics

from pairbench.model import Comparison, Metric, Notice, Run

__all__ = ["compare_runs"]


def _per_replicate(run: Run, benchmark: str, metric: str, variant: str) -> list[float]:
    groups: dict[tuple[int, int], list[float]] = {}
    for s in run.samples:
        if s.benchmark == benchmark and s.metric == metric and s.variant == variant and not s.warmup and s.value > 0:
            groups.setdefault((s.block, s.replicate), []).append(math.log(s.value))
    return [statistics.fmean(v) for _, v in sorted(groups.items())]


def _verdict(lo: float, hi: float, band: float, metric: Metric) -> tuple[str, bool, bool]:
    """(verdict, significant, meaningful) from a log-ratio CI [lo, hi] and log band."""
    better_if_lower = metric.direction != "higher"
    significant = lo > 0 or hi < 0
    if hi < -band or lo > band:
        lower = hi < 0
        return ("faster" if lower == better_if_lower else "slower"), True, True
    if -band <= lo and hi <= band:
        return "same", significant, False
    if significant:
        lower = hi < 0
        return ("faster" if lower == better_if_lower else "slower"), True, False
    return "inconclusive", False, False


def compare_runs(base: Run, cand: Run, threshold: float = 0.01, confidence: float = 0.95) -> tuple[list[Comparison], list[Notice]]:
    """Each benchmark and metric of the baseline variant of `base` against that of `cand`."""
    from scipy import stats

    comparisons: list[Comparison] = []
    notices: list[Notice] = []
    a_name, b_name = base.baseline.name, cand.baseline.name
    cand_benches = {b.name: b for b in cand.benchmarks}
    band = math.log1p(threshold)
    for bench in base.benchmarks:
        if bench.name not in cand_benches:
            continue
        cand_metrics = {m.name for m in cand_benches[bench.name].metrics}
        for metric in bench.metrics:
            if metric.name not in cand_metrics or metric.direction == "none":
                continue
            a = _per_replicate(base, bench.name, metric.name, a_name)
            b = _per_replicate(cand, bench.name, metric.name, b_name)
            n = min(len(a), len(b))
            if metric.exact and a and b:
                # exact counts: no test, the difference of medians (METHOD.md §7)
                delta = statistics.median(math.exp(x) for x in b) - statistics.median(math.exp(x) for x in a)
                comparisons.append(Comparison(bench.name, metric.name, a_name, b_name, None, None, None, n, delta != 0,
                                              delta != 0, "exact", None, threshold, confidence, "exact", False,
                                              sentence=f"exact difference {delta:+g} ({b_name} minus {a_name})",
                                              delta=delta))
                continue
            if n < 4 or len(a) < 2 or len(b) < 2:
                comparisons.append(Comparison(bench.name, metric.name, a_name, b_name, None, None, None, n, False, False,
                                              "insufficient", None, threshold, confidence, "unpaired Welch t", False,
                                              sentence=f"not enough replicates for a verdict ({len(a)} vs {len(b)}; "
                                                       "at least 4 per side)"))
                continue
            va, vb = statistics.variance(a), statistics.variance(b)
            d = statistics.fmean(b) - statistics.fmean(a)
            se = math.sqrt(va / len(a) + vb / len(b))
            if se == 0:
                df, half, p = float(len(a) + len(b) - 2), 0.0, (0.0 if d else 1.0)
            else:
                df = se**4 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1) or 1e-300)
                half = float(stats.t.ppf(0.5 + confidence / 2, df)) * se
                p = float(2 * stats.t.sf(abs(d) / se, df))
            lo, hi = d - half, d + half
            verdict, significant, meaningful = _verdict(lo, hi, band, metric)
            more = None
            if verdict == "inconclusive" and half > 0:
                target = abs(abs(d) - band) or abs(d)
                more = max(1, math.ceil(n * (half / target) ** 2) - n) if target > 1e-6 else None
                if more is not None and more > 20 * n:
                    more = None  # the estimate sits on a band edge: more runs would not settle it
            ratio = math.exp(d)
            pct = (ratio - 1) * 100
            ci_txt = f"{round(confidence * 100)}% CI [{(math.exp(lo) - 1) * 100:+.1f}%, {(math.exp(hi) - 1) * 100:+.1f}%]"
            if verdict in ("faster", "slower"):
                sentence = (f"{b_name} is {abs(pct):.1f}% {'lower' if pct < 0 else 'higher'} than {a_name} ({verdict}; "
                            f"ratio {ratio:.3f}, {ci_txt})" + ("" if meaningful else f"; may be within ±{threshold:.0%}"))
            elif verdict == "same":
                sentence = f"no meaningful difference: {ci_txt} lies within ±{threshold * 100:g}%"
            else:
                sentence = (f"inconclusive: {ci_txt} spans 0 and the ±{threshold * 100:g}% band edge"
                            + (f"; about {more} more replicates per side should settle it" if more
                               else "; the estimate sits on the band edge, more runs are unlikely to settle it"))
            sentence += f"; n = {len(a)} vs {len(b)} replicates, not interleaved"
            comparisons.append(Comparison(bench.name, metric.name, a_name, b_name, ratio, (math.exp(lo), math.exp(hi)),
                                          p, n, significant, meaningful, verdict, more, threshold, confidence,
                                          "unpaired Welch t on log per-replicate values", False, sentence=sentence))
    return comparisons, notices
