"""benchmark-ips-like lines for micro benchmarks: `Calculating`, i/s with a real 95% CI, and
allocations per operation.

Unlike benchmark-ips's "± x%" (one standard deviation of per-sample rates), the ± here is the half
width of a 95% confidence interval of the geometric mean across processes (the unit of
replication); each process contributes its total ops / total time.
"""

from __future__ import annotations

from collections import Counter

from pairbench.model import Benchmark, Run
from pairbench.analysis.processes import process_rates
from pairbench.report.summary import exact_change
from pairbench.report.wording import verdict_word

__all__ = ["render_micro", "render_micro_figures", "format_rate", "format_time"]


def format_rate(ips: float) -> str:
    """4886000 -> '4.886M', benchmark-ips style."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if ips >= scale:
            return f"{ips / scale:.3f}{suffix}"
    return f"{ips:.3f}"


def format_time(seconds: float) -> str:
    """2.047e-7 -> '204.7 ns'."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def _format_count(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.4g}"


_NO_DATA = "no allocation data"
"""A variant's allocation line without data or a reason (--no-alloc, a pass that gave nothing)."""


def _alloc_text(run: Run, bench: Benchmark, variant: str, base: dict[str, float] | None) -> tuple[str, dict[str, float]]:
    values: dict[str, list[float]] = {}
    for s in run.samples:
        if s.benchmark == bench.name and s.variant == variant and not s.warmup:
            m = next((m for m in bench.metrics if m.name == s.metric), None)
            if m is not None and m.exact:
                values.setdefault(s.metric, []).append(s.value)
    if not values:
        reason = next((n.message.split(": ", 1)[-1] for n in run.notices
                       if n.kind == "alloc-unavailable" and n.variant == variant), "")
        return (reason or _NO_DATA), {}
    parts = []
    typical: dict[str, float] = {}
    for m in bench.metrics:
        if m.name not in values:
            continue
        vs = sorted(values[m.name])
        mid = vs[len(vs) // 2]
        typical[m.name] = mid
        label = m.name.removesuffix("_per_op").replace("_", " ")
        text = f"{label} {_format_count(mid)}"
        if vs[0] != vs[-1]:
            text += f" (varies {_format_count(vs[0])}..{_format_count(vs[-1])})"
        c = next((c for c in run.comparisons if (c.benchmark, c.metric, c.candidate) == (bench.name, m.name, variant)),
                 None)
        if c is not None and c.exact and c.delta is not None:  # the comparison's own figures and verdict
            if c.delta != 0 or c.verdict != "same":
                text += f" [{exact_change(c, m.unit)}, {verdict_word(c.verdict, m)} (exact)]"
        elif base is not None and m.name in base and base[m.name] != mid:
            text += f" [{mid - base[m.name]:+.4g}]"
        parts.append(text)
    return ", ".join(parts), typical


def render_micro(run: Run, confidence: float = 0.95) -> str:
    """The benchmark-ips-like block for every micro benchmark of `run` (empty if there is none)."""
    benches = [b for b in run.benchmarks if b.kind == "micro"]
    if not benches:
        return ""
    names = [v.name for v in run.variants]
    width = max([len(n) for n in names] + [12])
    pct = int(round(confidence * 100))
    lines = [f"Calculating ------------------------------------- (± = {pct}% CI across processes)"]
    for bench in benches:
        lines.append(bench.name)
        rates = process_rates(run, bench.name, confidence)
        for name in names:
            summary = rates.get(name)
            if summary is None:
                failed = next((n.message for n in run.notices if n.kind == "benchmark-failed"
                               and n.variant == name and n.benchmark == bench.name), "no samples")
                lines.append(f"  {name:>{width}}  failed: {failed.split(': ', 1)[-1]}")
                continue
            plus = max(summary.high / summary.center - 1, 1 - summary.low / summary.center) * 100
            spread = f"(± {plus:.1f}%)" if summary.n > 1 else "(± ?, 1 process)"
            per_process = Counter((s.block, s.replicate) for s in run.samples if s.benchmark == bench.name
                                  and s.variant == name and s.metric == "time_per_op" and not s.warmup)
            low, high = min(per_process.values(), default=0), max(per_process.values(), default=0)
            # a planned run changes its samples per process after its first blocks: say the range
            detail = (f"{summary.n} processes × {low if low == high else f'{low}–{high}'} "
                      f"sample{'' if low == high == 1 else 's'}")
            if bench.options.get("loops"):
                detail += f" × {bench.options['loops']} ops"
            lines.append(f"  {name:>{width}}  {format_rate(summary.center):>9} {spread:>10} i/s  "
                         f"{format_time(1.0 / summary.center):>10}/op  {detail}")
    alloc_lines = []
    changed = False  # some line shows a [change]: only then does the caption explain the brackets
    for bench in benches:
        if not any(m.exact for m in bench.metrics):
            continue
        base: dict[str, float] | None = None
        rows = []
        for name in names:
            text, typical = _alloc_text(run, bench, name, base)
            changed = changed or " [" in text
            if base is None and typical:
                base = typical
            rows.append(f"  {name:>{width}}  {text}")
        if any(not row.endswith(f"  {_NO_DATA}") for row in rows):  # all "no allocation data" says nothing
            alloc_lines += [bench.name, *rows]
    if alloc_lines:
        lines.append("Allocations per op (exact counts from a separate pass, in one process per variant, "
                     "sized to its timed samples" + ("; [±] = change from the baseline, its percent and verdict)"
                                                     if changed else ")"))
        lines.extend(alloc_lines)
    return "\n".join(lines) + "\n"


def render_micro_figures(run: Run) -> str:
    """`render_micro` at the run's own confidence level: the micro kind's figures hook."""
    return render_micro(run, float(run.metadata.get("options", {}).get("confidence", 0.95)))
