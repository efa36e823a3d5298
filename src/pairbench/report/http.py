"""The figures `ab` users know, per URL and variant, derived from a Run's stored samples.

Per round the runner stores requests/s, mean and percentile latencies, errors and bytes; here a
variant's figure is the median over its rounds (rounds are the replicates), except counts, which
are summed, and the longest request, which is the longest of all rounds. The percentile table is
the median over rounds of each round's percentile. The figures a comparison judges (requests/s,
the median and p99 latency) read as they do beside its ratio, the geometric means the analysis
stored, so that the two tables never show two values for one figure. The header says which is which.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import geometric_mean, median

from pairbench.model import Comparison, Run
from pairbench.report.summary import figures as judged_figures

__all__ = ["http_figures", "render_http_figures", "render_http_comparisons", "TABLE_PERCENTILES"]

TABLE_PERCENTILES: tuple[int, ...] = (50, 66, 75, 80, 90, 95, 98, 99, 100)
_SUMMED = ("requests", "failed", "non_2xx", "unsent", "bytes", "errors_connect", "errors_reset", "errors_timeout",
           "errors_protocol")


# The metric each row of the percentile table reads: the median and p99 are stored once, under
# the names the comparisons judge (run files before that also carry latency_p50; it is the same).
_PERCENTILE_METRIC = {50: "latency_median", 99: "latency_p99"}


def http_figures(run: Run) -> dict[str, dict[str, dict[str, float]]]:
    """benchmark -> variant -> figure name -> value: medians over rounds, except counts (summed)
    and `latency_p100` (the longest of all rounds); `rounds` is the number of rounds."""
    per: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    rounds: dict[tuple[str, str], set[int]] = defaultdict(set)
    kinds = {b.name: b.kind for b in run.benchmarks}
    for s in run.samples:
        if s.warmup or kinds.get(s.benchmark) != "http":
            continue
        per[(s.benchmark, s.variant, s.metric)].append(s.value)
        rounds[(s.benchmark, s.variant)].add(s.block)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (bench, variant, metric), values in per.items():
        figs = out.setdefault(bench, {}).setdefault(variant, {})
        if metric in _SUMMED:
            figs[metric] = sum(values)
        elif metric == "latency_p100":
            figs[metric] = max(values)
        else:
            figs[metric] = median(values)
    for (bench, variant), blocks in rounds.items():
        out[bench][variant]["rounds"] = float(len(blocks))
    return out


def _percentiles_located_as_judged(run: Run, bench: str) -> dict[str, dict[str, float]]:
    """variant -> `latency_pNN` -> the geometric mean of its rounds' values, for the percentile rows
    between the judged ones: the 50% and 99% rows are the geometric means beside the ratios, and a
    median of rounds between them can read above the 99% (rounds far apart), which no round does."""
    per: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in run.samples:
        if s.benchmark == bench and not s.warmup and s.metric.startswith("latency_p") and s.metric != "latency_p100":
            per[(s.variant, s.metric)].append(s.value)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (variant, metric), values in per.items():
        if values and min(values) > 0:
            out[variant][metric] = geometric_mean(values)
    return out


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v * 1000:.3f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return [fmt(header), "  ".join("-" * w for w in widths), *[fmt(r) for r in rows]]


def render_http_figures(run: Run) -> str:
    """Per URL: requests/s, time per request (mean, median), transfer rate, failed requests and the
    percentile table, one column per variant."""
    figures = http_figures(run)
    judged = judged_figures(run)
    lines: list[str] = []
    variants = [v.name for v in run.variants]
    for b in run.benchmarks:
        if b.kind != "http" or b.name not in figures:
            continue
        by_v = figures[b.name]
        names = [v for v in variants if v in by_v]
        conc = b.options.get("connections", 1)
        shared = any((b.name, m, v) in judged for m in ("req_per_s", *_PERCENTILE_METRIC.values()) for v in names)
        lines.append(f"{b.name}  (concurrency {conc}; counts are totals over the rounds, "
                     + ("requests/s, median and 99% the figures beside the ratios, the percentiles between "
                        "them geometric means of the rounds' values as those are, " if shared else "")
                     + "the other figures medians of the rounds' values)")
        located = _percentiles_located_as_judged(run, b.name) if shared else {}

        def get(v: str, k: str) -> float | None:
            return judged.get((b.name, k, v), located.get(v, {}).get(k, by_v[v].get(k)))

        rows = [
            ["Rounds"] + [f"{get(v, 'rounds') or 0:.0f}" for v in names],
            ["Complete requests"] + [f"{get(v, 'requests') or 0:.0f}" for v in names],
            ["Failed requests"] + [f"{get(v, 'failed') or 0:.0f}" for v in names],
            ["Non-2xx responses"] + [f"{get(v, 'non_2xx') or 0:.0f}" for v in names],
            ["Requests per second [#/s]"] + [f"{get(v, 'req_per_s') or 0:,.2f}" for v in names],
        ]
        if b.options.get("rate"):  # an open loop: the rate asked beside the one achieved
            rows.append(["  asked (--rate) [#/s]"] + [f"{float(b.options['rate']):,.2f}" for _ in names])
            rows.append(["  not sent in the duration"] + [f"{get(v, 'unsent') or 0:.0f}" for v in names])
        rows += [
            ["Time per request, mean [ms]"] + [_ms(get(v, "latency_mean")) for v in names],
            ["Time per request, median [ms]"] + [_ms(get(v, "latency_median")) for v in names],
            ["Transfer rate [KB/s]"] + [f"{(get(v, 'transfer_rate') or 0) / 1024:,.2f}" for v in names],
        ]
        if any(get(v, "server_cpu_per_req") for v in names):
            rows.append(["Server CPU per request [ms]"] + [_ms(get(v, "server_cpu_per_req")) for v in names])
            rows.append(["Server peak RSS [MB]"] + [f"{(get(v, 'server_rss') or 0) / 1e6:.1f}" for v in names])
        rows.append(["Percentage served within [ms]"] + ["" for _ in names])
        for q in TABLE_PERCENTILES:
            label = f"  {q}%" + (" (longest request of all rounds)" if q == 100 else "")
            rows.append([label] + [_ms(get(v, _PERCENTILE_METRIC.get(q, f"latency_p{q}"))) for v in names])
        lines += ["  " + line for line in _table([""] + names, rows)]
        lines.append("")
    return "\n".join(lines)


_LABELS = {"req_per_s": "requests/s", "latency_median": "median latency", "latency_p99": "p99 latency"}


def render_http_comparisons(run: Run) -> str:
    """The comparison table per URL: throughput, median and p99 latency, with verdicts."""
    lines: list[str] = []
    by_bench: dict[str, list[Comparison]] = defaultdict(list)
    for c in run.comparisons:
        by_bench[c.benchmark].append(c)
    for b in run.benchmarks:
        comps = by_bench.get(b.name)
        if not comps:
            continue
        rows = []
        for c in comps:
            ratio = "-" if c.ratio is None else f"{c.ratio:.3f}"
            ci = "-" if c.ci is None else f"[{c.ci[0]:.3f}, {c.ci[1]:.3f}]"
            verdict = c.verdict + (f" (~{c.more_runs} more rounds)" if c.more_runs else "")
            rows.append([_LABELS.get(c.metric, c.metric), f"{c.candidate} / {c.baseline}", ratio, ci, str(c.n), verdict])
        lines.append(b.name)
        lines += ["  " + line for line in _table(["metric", "variants", "ratio", "95% CI", "n", "verdict"], rows)]
        lines.append("")
    return "\n".join(lines)
