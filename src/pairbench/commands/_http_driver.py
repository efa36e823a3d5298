"""A thin stand-in for `pairbench.session.execute` + `commands.common.run_and_report`, used by
`pairbench http` only while those have not landed: randomized blocks, the run file written after
every block, a paired t interval on log ratios for the verdicts. Goes away once they exist."""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

from pairbench.errors import BenchmarkFailed, Interrupted
from pairbench.model import Comparison, Run
from pairbench.runners.base import Runner

__all__ = ["FallbackOptions", "execute_fallback", "paired_comparisons"]


@dataclass(frozen=True, slots=True)
class FallbackOptions:
    runs: int = 10
    threshold: float = 1.0
    """Percent."""
    confidence: float = 0.95
    seed: int | None = None
    output: str | None = None
    fail_on_regression: bool = False


def _t_quantile(p: float, df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(p, df))


def paired_comparisons(run: Run, threshold: float, confidence: float) -> list[Comparison]:
    """Paired mean-of-log-ratio t intervals, candidate vs baseline, per benchmark and judged metric."""
    base = run.baseline.name
    values: dict[tuple[str, str, str, int], float] = {}
    for s in run.samples:
        if not s.warmup:
            values[(s.benchmark, s.variant, s.metric, s.block)] = s.value
    out: list[Comparison] = []
    for b in run.benchmarks:
        for m in b.metrics:
            if m.direction == "none":
                continue
            for v in run.variants:
                if v.name == base:
                    continue
                d = []
                for (bn, vn, mn, blk), val in values.items():
                    if bn == b.name and vn == base and mn == m.name:
                        other = values.get((bn, v.name, mn, blk))
                        if other is not None and other > 0 and val > 0:
                            d.append(math.log(other / val))
                n = len(d)
                if n < 2:
                    out.append(Comparison(b.name, m.name, base, v.name, None, None, None, n, False, False,
                                          "insufficient", None, threshold, confidence, "paired mean t"))
                    continue
                mean = sum(d) / n
                sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
                h = _t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
                lo, hi = math.exp(mean - h), math.exp(mean + h)
                ratio = math.exp(mean)
                band = math.log1p(threshold)
                significant = lo > 1 or hi < 1
                meaningful = mean - h > band or mean + h < -band
                if n < 6:
                    verdict = "insufficient"
                elif meaningful or significant:
                    up = mean > 0
                    better = up if m.direction == "higher" else not up
                    verdict = "faster" if better else "slower"
                elif -band <= mean - h and mean + h <= band:
                    verdict = "same"
                else:
                    verdict = "inconclusive"
                more = None
                if verdict == "inconclusive" and sd > 0:
                    target = abs(abs(mean) - band)
                    more = max(1, math.ceil(n * (h / target) ** 2) - n) if target > 0 else None
                pct = (ratio - 1) * 100
                sentence = (f"{v.name} vs {base}: {m.name} ratio {ratio:.3f} ({pct:+.1f}%), "
                            f"{confidence:.0%} CI [{lo:.3f}, {hi:.3f}], n = {n}: {verdict}")
                out.append(Comparison(b.name, m.name, base, v.name, ratio, (lo, hi), None, n, significant,
                                      meaningful, verdict, more, threshold, confidence, "paired mean t (fallback)",
                                      True, None, sentence))
    return out


def execute_fallback(run: Run, runners: dict[str, Runner], options: FallbackOptions) -> Run:
    """Run every benchmark in randomized blocks; write the run file after each block."""
    from pairbench.store.runfile import write_run

    rng = random.Random(options.seed)
    for b in run.benchmarks:
        run.notices.extend(runners[b.kind].prepare(b, list(run.variants)))
    isatty = sys.stderr.isatty()

    def progress(text: str) -> None:
        if isatty:
            print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)

    failures: dict[str, int] = {}
    try:
        for block in range(options.runs):
            for b in run.benchmarks:
                order = list(run.variants)
                rng.shuffle(order)
                for v in order:
                    progress(f"round {block + 1}/{options.runs} {b.name} {v.name}")
                    rep = runners[b.kind].measure(b, v, block, False, progress)
                    run.samples.extend(rep.samples)
                    run.notices.extend(rep.notices)
                    if rep.failed:
                        failures[v.name] = failures.get(v.name, 0) + 1
            if options.output:
                write_run(options.output, run)
        if isatty:
            print("\r\033[K", end="", file=sys.stderr)
    except KeyboardInterrupt:
        run.status = "interrupted"
        if options.output:
            write_run(options.output, run)
        raise Interrupted("interrupted: the rounds measured so far are kept") from None
    finally:
        for r in runners.values():
            r.close()
    measured = {s.variant for s in run.samples}
    missing = [v.name for v in run.variants if v.name not in measured]
    if missing:
        messages = [n.message for n in run.notices if n.variant in missing]
        run.status = "failed"
        if options.output:
            write_run(options.output, run)
        raise BenchmarkFailed(f"no round of variant {missing[0]!r} could be measured: "
                              + (messages[0] if messages else "see the server log"))
    run.comparisons = paired_comparisons(run, options.threshold / 100, options.confidence)
    run.status = "complete"
    run.metadata["finished"] = time.time()
    if options.output:
        write_run(options.output, run)
    return run


def options_dict(options: FallbackOptions) -> dict[str, Any]:
    return {"runs": options.runs, "threshold": options.threshold, "confidence": options.confidence}
