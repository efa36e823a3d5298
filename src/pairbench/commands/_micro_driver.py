"""Stand-in driver for `pairbench micro` until `pairbench.commands.common.run_and_report` (the
lead's session) lands on main: randomized blocks, run file after each block, analysis, report.

Uses `pairbench.analysis.analyze` when it exists; otherwise a minimal paired t interval on log
per-process times (METHOD.md sections 2-4) so that the command is usable on its own.
Delete this module once common.run_and_report exists: commands/micro.py switches by itself.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pairbench.model import Comparison, Notice, Run, Variant
from pairbench.runners.micro import MicroRunner

__all__ = ["drive", "block_order", "fallback_comparisons"]


def block_order(variants: list[Variant], block: int, rng: random.Random) -> list[Variant]:
    """ABBA for two variants (counterbalanced), a fresh shuffle per block otherwise."""
    if len(variants) == 2:
        return list(variants) if block % 4 in (0, 3) else list(reversed(variants))
    order = list(variants)
    rng.shuffle(order)
    return order


def _verdict(lo: float, hi: float, delta: float, direction: str) -> tuple[str, bool, bool]:
    """(verdict, significant, meaningful) from a CI [lo, hi] of log ratio, band ±delta (log)."""
    significant = lo > 0 or hi < 0
    meaningful = lo > delta or hi < -delta
    if meaningful:
        worse = (lo > 0) == (direction == "lower")
        return ("slower" if worse else "faster"), True, True
    if -delta <= lo and hi <= delta:
        return "same", significant, False
    return "inconclusive", significant, False


def fallback_comparisons(run: Run, threshold: float, confidence: float) -> list[Comparison]:
    """Paired comparisons of per-process mean time per op (and exact deltas), no other stats."""
    from pairbench.stats.per_process import _t_quantile, process_means

    out: list[Comparison] = []
    base = run.baseline.name
    delta = math.log1p(threshold)
    for bench in run.benchmarks:
        samples = [s for s in run.samples if s.benchmark == bench.name]
        means = process_means(samples, "time_per_op")
        for v in run.variants:
            if v.name == base:
                continue
            a, b = means.get(base, {}), means.get(v.name, {})
            keys = sorted(set(a) & set(b))
            d = [math.log(b[k]) - math.log(a[k]) for k in keys if a[k] > 0 and b[k] > 0]
            n = len(d)
            if n >= 2:
                m = sum(d) / n
                sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
                h = _t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
                verdict, sig, mean_ = _verdict(m - h, m + h, delta, "lower")
                if n < 6:
                    verdict = "insufficient"
                out.append(Comparison(bench.name, "time_per_op", base, v.name, math.exp(m),
                                      (math.exp(m - h), math.exp(m + h)), None, n, sig, mean_,
                                      verdict, None, threshold, confidence, "paired mean t (fallback)"))
            for metric in bench.metrics:
                if not metric.exact:
                    continue
                va = [s.value for s in samples if s.metric == metric.name and s.variant == base]
                vb = [s.value for s in samples if s.metric == metric.name and s.variant == v.name]
                if va and vb:
                    ma, mb = sorted(va)[len(va) // 2], sorted(vb)[len(vb) // 2]
                    out.append(Comparison(bench.name, metric.name, base, v.name,
                                          (mb / ma) if ma else None, None, None, min(len(va), len(vb)),
                                          False, False, "exact", None, threshold, confidence, "exact",
                                          delta=mb - ma))
    return out


def _table(comparisons: list[Comparison]) -> str:
    lines = []
    for c in comparisons:
        if c.verdict == "exact":
            lines.append(f"  {c.benchmark:<30} {c.metric:<20} {c.candidate:<20} exact delta {c.delta:+.4g}")
        else:
            ci = f"[{c.ci[0]:.3f}, {c.ci[1]:.3f}]" if c.ci else ""
            lines.append(f"  {c.benchmark:<30} {c.metric:<20} {c.candidate:<20} ratio {c.ratio:.3f} "
                         f"{int(c.confidence * 100)}% CI {ci} n={c.n} {c.verdict}")
    return "\n".join(lines)


def drive(run: Run, runner: MicroRunner, args: argparse.Namespace) -> int:
    from pairbench.report.micro import render_micro
    from pairbench.store.runfile import write_run

    rng = random.Random(args.seed)
    export = args.export_json
    for bench in run.benchmarks:
        run.notices.extend(runner.prepare(bench, run.variants))
    for block in range(args.runs):
        for bench in rng.sample(run.benchmarks, len(run.benchmarks)):
            for v in block_order(run.variants, block, rng):
                rep = runner.measure(bench, v, block, False, lambda _msg: None)
                run.samples.extend(rep.samples)
                run.notices.extend(rep.notices)
        if export:
            write_run(export, run)
    threshold = args.threshold / 100.0
    try:
        from pairbench.analysis import analyze
    except ImportError:
        run.comparisons = fallback_comparisons(run, threshold, args.confidence)
    else:
        comparisons, notices = analyze(run, threshold=threshold, confidence=args.confidence)
        run.comparisons = list(comparisons)
        run.notices.extend(notices)
    run.status = "complete"
    if export:
        write_run(export, run)
    print(render_micro(run, args.confidence), end="")
    print("Comparison with the baseline " + repr(run.baseline.name))
    print(_table(run.comparisons))
    for n in _dedupe(run.notices):
        print(f"warning: {n.message}" + (f" ({n.hint})" if n.hint else ""), file=sys.stderr)
    regress = any(c.verdict == "slower" for c in run.comparisons)
    return 3 if (args.fail_on_regression and regress) else 0


def _dedupe(notices: list[Notice]) -> list[Notice]:
    seen: set[tuple[str, str]] = set()
    out = []
    for n in notices:
        if (n.kind, n.message) not in seen:
            seen.add((n.kind, n.message))
            out.append(n)
    return out

