"""Sweep tables: per benchmark, metric and swept base variant, every point of the sweep.

A point's row holds its per-block values (the one reduction, shown as the main table shows them)
and the analysis's own Comparison of it with the baseline, so its ratio, CI and verdict are the
main table's: one verdict rule (stats.verdict.judge, through `analyze`) and one multiplicity
correction (the run's, across its primary comparisons). Then the best point, a paired comparison
of it with the runner-up, and a least-squares fit of ln(value) on each numeric parameter
(stats.sweep.trend_fit, METHOD §6). Imports the model and stats (lazily) only.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pairbench.analysis.replicates import replicate_values, spread_of
from pairbench.model import Benchmark, Comparison, Metric, Run, Variant
from pairbench.summaries import SweepRow, SweepTable, SweepTrend

__all__ = ["sweep_tables", "run_settings"]


def run_settings(run: Run) -> tuple[float, float, str]:
    """(confidence, threshold as a fraction, correction) the run was analysed with."""
    opts = run.metadata.get("options") or {}
    confidence = float(opts.get("confidence") or 0.95)
    threshold = float(opts["threshold"]) / 100.0 if opts.get("threshold") is not None else 0.01
    return confidence, threshold, str(opts.get("correction") or "holm")


def _metrics_to_show(bench: Benchmark) -> list[Metric]:
    """The primary metric and those the suite asked for by regex; CPU and memory stay in the main table."""
    custom = set((bench.options.get("metrics") or {}).keys())
    return [m for i, m in enumerate(bench.metrics)
            if m.direction != "none" and not m.exact and (i == 0 or m.name in custom)]


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _groups(run: Run, sweep_names: Sequence[str]) -> dict[str, list[Variant]]:
    groups: dict[str, list[Variant]] = defaultdict(list)
    for v in run.variants:
        if any(k in sweep_names for k in v.params):
            groups[str(v.meta.get("base", v.name.split("/")[0]))].append(v)
    return groups


def sweep_tables(run: Run, comparisons: Sequence[Comparison] | None = None) -> list[SweepTable]:
    """Every sweep table of the run (empty when the suite has no sweeps).

    Args:
        run: the run; its `suite` record lists the sweeps.
        comparisons: the analysis's comparisons (default: the run's; analysed here when it has none).

    Returns:
        One SweepTable per benchmark, shown metric and swept base variant.
    """
    sweeps: list[dict[str, Any]] = list((run.suite or {}).get("sweeps") or [])
    if not sweeps:
        return []
    confidence, threshold, correction = run_settings(run)
    comps = list(run.comparisons if comparisons is None else comparisons)
    if not comps:
        from pairbench.analysis.comparisons import analyze

        comps, _ = analyze(run, threshold=threshold, confidence=confidence, correction=correction)
    sweep_names = [s["name"] for s in sweeps]
    numeric = {s["name"] for s in sweeps if s.get("numeric")}
    baseline = run.baseline.name
    by_key = {(c.benchmark, c.metric, c.candidate): c for c in comps}
    run_family = sum(1 for c in comps if c.adjusted_ci is not None)
    tables: list[SweepTable] = []
    for bench in run.benchmarks:
        for metric in _metrics_to_show(bench):
            values = replicate_values(run, bench.name, metric.name)
            for base, members in _groups(run, sweep_names).items():
                rows = tuple(
                    SweepRow(v.name, dict(v.params), spread_of(bench.name, metric.name, v.name,
                                                               list(values.get(v.name, {}).values())),
                             None if v.name == baseline else by_key.get((bench.name, metric.name, v.name)))
                    for v in members)
                judged = [r.comparison for r in rows if r.comparison is not None]
                corrected = bool(judged) and all(c.adjusted_ci is not None for c in judged)
                params = tuple(n for n in sweep_names if any(n in v.params for v in members))
                table = SweepTable(bench.name, metric, base, params, baseline, rows, run_family if corrected else 1,
                                   correction if corrected else "none", confidence=confidence, threshold=threshold)
                tables.append(_with_best_and_trends(table, values, numeric))
    return tables


def _best_pair(table: SweepTable, values: dict[str, dict[int, float]]) -> Comparison | None:
    """runner-up ÷ best over their common blocks, by the analysis's paired method."""
    from pairbench.analysis.comparisons import _from_result as from_result
    from pairbench.stats.compare import compare_paired

    assert table.best is not None and table.runner_up is not None
    if table.best == table.baseline:  # the run compared these two already: its verdict, not a second test's
        return table.row(table.runner_up).comparison
    if table.runner_up == table.baseline:  # the same, read the other way: runner-up ÷ best
        c = table.row(table.best).comparison
        return None if c is None else _inverted(c)
    best, runner = values.get(table.best, {}), values.get(table.runner_up, {})
    blocks = [b for b in sorted(set(best) & set(runner)) if best[b] > 0 and runner[b] > 0]
    if len(blocks) < 2:
        return None
    direction = table.metric.direction if table.metric.direction in ("lower", "higher") else "lower"
    bv, cv = [best[b] for b in blocks], [runner[b] for b in blocks]
    r = compare_paired(bv, cv, direction=direction, threshold=table.threshold, confidence=table.confidence)
    return from_result(r, table.benchmark, table.metric.name, table.best, table.runner_up, bv, cv)


def _inverted(c: Comparison) -> Comparison:
    """baseline ÷ candidate: the ratio, its intervals and the figures turned over, the verdict's direction too."""
    def flip(ci: tuple[float, float] | None) -> tuple[float, float] | None:
        return None if ci is None or ci[0] <= 0 else (1 / ci[1], 1 / ci[0])

    turned = {"faster": "slower", "slower": "faster"}
    return replace(c, baseline=c.candidate, candidate=c.baseline, ratio=1 / c.ratio if c.ratio else None,
                   ci=flip(c.ci), adjusted_ci=flip(c.adjusted_ci), reached_ci=flip(c.reached_ci),
                   baseline_value=c.candidate_value,
                   candidate_value=c.baseline_value, verdict=turned.get(c.verdict, c.verdict))  # type: ignore[arg-type]


def _trends(table: SweepTable, numeric: set[str]) -> tuple[SweepTrend, ...]:
    from pairbench.stats.sweep import trend_fit

    out = []
    for p in table.params:
        if p not in numeric:
            continue
        others = [q for q in table.params if q != p]
        lines: dict[tuple[str, ...], list[SweepRow]] = defaultdict(list)
        for r in table.rows:
            if p in r.params and _is_number(r.params[p]) and r.spread is not None:
                lines[tuple(r.params.get(q, "") for q in others)].append(r)
        for key, rows in lines.items():
            # the table's values: each point's ratio to the baseline (its figure ÷ the baseline's),
            # so the trend follows the rows above it; none where a ratio is missing (a baseline of 0)
            if not all(r.ratio is not None and math.isfinite(r.ratio) and r.ratio > 0 for r in rows):
                continue
            fit = trend_fit([float(r.params[p]) for r in rows], [r.ratio or 0.0 for r in rows], table.confidence)
            if fit is not None:
                held = ", ".join(f"{q}={k}" for q, k in zip(others, key))
                out.append(SweepTrend(p, held, fit.slope, fit.ci, fit.r_squared, fit.n))
    return tuple(out)


def _with_best_and_trends(table: SweepTable, values: dict[str, dict[int, float]], numeric: set[str]) -> SweepTable:
    measured = [r for r in table.rows if r.spread is not None]
    # By the ratio to the baseline, the figure the table shows and stars; by the median only where a
    # ratio is missing (a baseline of 0), so the ★ never marks a point the table shows worse.
    by_ratio = all(r.ratio is not None and math.isfinite(r.ratio) for r in measured)
    ranked = sorted(measured, key=lambda r: (r.ratio if by_ratio else r.spread.median if r.spread else 0.0) or 0.0,
                    reverse=table.metric.direction == "higher")
    if ranked:
        table = replace(table, best=ranked[0].variant)
    if len(ranked) > 1:
        table = replace(table, runner_up=ranked[1].variant)
        table = replace(table, best_vs_runner_up=_best_pair(table, values))
    return replace(table, trends=_trends(table, numeric))
