"""The sweep report: per benchmark and metric, one row per sweep value, the best value, a trend.

Reads a finished Run whose `suite` record lists the sweeps (see suite.suite_record). For each
benchmark, metric and swept base variant it shows every point of the sweep: the median of its
per-block values (the main table's figure, from the one reduction), the ratio to the baseline with a CI corrected for the number of rows, and a verdict under
Holm's correction over those rows (the report says so). Then the best value, whether a paired
comparison tells it from the runner-up, and a fit of ln(value) on each numeric parameter.

`sweep_tables(run)` computes everything as dataclasses (tests read those); `render_sweeps(run,
console)` prints them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from pairbench.analysis.replicates import STATISTIC, Spread, replicate_values, spread_of
from pairbench.model import Benchmark, Comparison, Metric, Run, Variant
from pairbench.stats.compare import PairedResult, compare_paired
from pairbench.stats.multiplicity import holm
from pairbench.stats.sweep import Trend, bonferroni_ci, trend_fit

__all__ = ["SweepRow", "SweepTable", "sweep_tables", "render_sweeps"]


@dataclass(frozen=True, slots=True)
class SweepRow:
    variant: str
    params: dict[str, str]
    estimate: Spread | None
    """The setting's per-block values as the main table shows them (median and quartiles)."""
    ratio: float | None
    ci: tuple[float, float] | None
    """Ratio CI widened for the family (Bonferroni at 1 − α/m)."""
    p_value: float | None
    p_holm: float | None
    verdict: str
    """faster / slower / same / inconclusive / baseline / insufficient, after Holm's correction."""


@dataclass(frozen=True, slots=True)
class SweepTable:
    benchmark: str
    metric: Metric
    base: str
    """The swept base variant (`patched`)."""
    params: tuple[str, ...]
    """Sweep names, the table's leading columns."""
    baseline: str
    rows: tuple[SweepRow, ...]
    family: int
    """m: comparisons in Holm's family."""
    corrected_by: str = "table"
    """`table`: Holm over this table's rows, computed here; `run`: the analysis already corrected
    across every primary comparison of the run (a larger family), and its verdicts are shown."""
    best: SweepRow | None = None
    runner_up: SweepRow | None = None
    best_vs_runner_up: PairedResult | None = None
    """runner-up ÷ best, paired over blocks (the analysis's paired comparison)."""
    distinguishable: bool | None = None
    trends: tuple[tuple[str, str, Trend], ...] = field(default_factory=tuple)
    """(parameter, the other coordinates held fixed, fit)."""
    confidence: float = 0.95
    threshold: float = 0.01


def _paired(base: dict[int, float], cand: dict[int, float], direction: str, threshold: float,
            confidence: float) -> PairedResult | None:
    """cand ÷ base over their common blocks, by the analysis's paired method (robust when flagged)."""
    blocks = [b for b in sorted(set(base) & set(cand)) if base[b] > 0 and cand[b] > 0]
    if len(blocks) < 2:
        return None
    return compare_paired([base[b] for b in blocks], [cand[b] for b in blocks],
                          direction=direction if direction in ("lower", "higher") else "lower",
                          threshold=threshold, confidence=confidence)


def _holm(p_values: list[float | None]) -> list[float | None]:
    """Holm over the p-values present; None stays None and does not count towards m."""
    present = [i for i, p in enumerate(p_values) if p is not None]
    adjusted = holm([p_values[i] for i in present])  # type: ignore[misc]
    out: list[float | None] = [None] * len(p_values)
    for i, a in zip(present, adjusted):
        out[i] = a
    return out


def _options(run: Run) -> tuple[float, float]:
    opts = run.metadata.get("options") or {}
    confidence = float(opts.get("confidence") or 0.95)
    threshold = float(opts["threshold"]) / 100.0 if opts.get("threshold") is not None else 0.01
    return confidence, threshold


def _verdict(ratio: float | None, ci: tuple[float, float] | None, p_holm: float | None, alpha: float,
             threshold: float, direction: str, n: int) -> str:
    if ratio is None or ci is None or n < 2:
        return "insufficient"
    lo_band, hi_band = 1.0 / (1.0 + threshold), 1.0 + threshold
    significant = (p_holm if p_holm is not None else 1.0) < alpha and (ci[1] < 1.0 or ci[0] > 1.0)
    if significant:
        better = ratio < 1.0 if direction == "lower" else ratio > 1.0
        return "faster" if better else "slower"
    if lo_band <= ci[0] and ci[1] <= hi_band:
        return "same"
    return "inconclusive"


def _metrics_to_show(bench: Benchmark) -> list[Metric]:
    """The primary metric and those the suite asked for by regex; CPU and memory stay in the main table."""
    custom = set((bench.options.get("metrics") or {}).keys())
    shown = [m for i, m in enumerate(bench.metrics) if m.direction != "none" and not m.exact and (i == 0 or m.name in custom)]
    return shown


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def sweep_tables(run: Run) -> list[SweepTable]:
    """Every sweep table of the run (empty when the suite has no sweeps)."""
    suite = run.suite or {}
    sweeps: list[dict[str, Any]] = list(suite.get("sweeps") or [])
    if not sweeps:
        return []
    sweep_names = [s["name"] for s in sweeps]
    numeric = {s["name"] for s in sweeps if s.get("numeric")}
    baseline = run.baseline
    groups: dict[str, list[Variant]] = defaultdict(list)
    for v in run.variants:
        if any(k in sweep_names for k in v.params):
            groups[str(v.meta.get("base", v.name.split("/")[0]))].append(v)
    confidence, threshold = _options(run)
    alpha = 1.0 - confidence
    comparisons = {(c.benchmark, c.metric, c.candidate): c for c in run.comparisons}
    run_family = sum(1 for c in run.comparisons if c.adjusted_ci is not None)
    tables: list[SweepTable] = []
    for bench in run.benchmarks:
        for metric in _metrics_to_show(bench):
            values = replicate_values(run, bench.name, metric.name)
            base_values = values.get(baseline.name, {})
            for base, members in groups.items():
                params = tuple(n for n in sweep_names if any(n in v.params for v in members))
                raw: list[tuple[Variant, Spread | None, float | None, tuple[float, float] | None, float | None, int,
                                Comparison | None]] = []
                for v in members:
                    mine = values.get(v.name, {})
                    est = spread_of(bench.name, metric.name, v.name, list(mine.values()))
                    if v.name == baseline.name:
                        raw.append((v, est, 1.0, None, None, len(mine), None))
                        continue
                    c: Comparison | None = comparisons.get((bench.name, metric.name, v.name))
                    if c is not None and c.ratio is not None and c.verdict != "exact":
                        raw.append((v, est, c.ratio, c.ci, c.p_value, c.n, c))
                    else:
                        pr = _paired(base_values, mine, metric.direction, threshold, confidence)
                        raw.append((v, est, pr.ratio if pr else None, pr.ci if pr else None,
                                    pr.p_value if pr else None, pr.n if pr else 0, None))
                by_run = [r for r in raw if r[6] is not None and r[6].adjusted_ci is not None]
                if by_run and len(by_run) == sum(1 for r in raw if r[0].name != baseline.name):
                    # The analysis corrected across the whole run: show its verdicts, not a second correction.
                    family = run_family
                    corrected_by = "run"
                    rows = [SweepRow(v.name, dict(v.params), est, 1.0, None, None, None, "baseline")
                            if c is None and v.name == baseline.name else
                            SweepRow(v.name, dict(v.params), est, ratio, c.adjusted_ci if c else ci, p, None,
                                     c.verdict if c else "insufficient")
                            for v, est, ratio, ci, p, n, c in raw]
                else:
                    adjusted = _holm([r[4] if r[0].name != baseline.name else None for r in raw])
                    family = sum(1 for r in raw if r[4] is not None and r[0].name != baseline.name)
                    corrected_by = "table"
                    rows = []
                    for (v, est, ratio, ci, p, n, _c), ph in zip(raw, adjusted):
                        if v.name == baseline.name:
                            rows.append(SweepRow(v.name, dict(v.params), est, 1.0, None, None, None, "baseline"))
                            continue
                        wide = bonferroni_ci(ratio, ci, n, family, confidence) if ratio and ci else ci
                        verdict = _verdict(ratio, wide, ph, alpha, threshold, metric.direction, n)
                        rows.append(SweepRow(v.name, dict(v.params), est, ratio, wide, p, ph, verdict))
                table = SweepTable(bench.name, metric, base, params, baseline.name, tuple(rows), family,
                                   corrected_by=corrected_by, confidence=confidence, threshold=threshold)
                tables.append(_with_best_and_trend(table, values, numeric))
    return tables


def _with_best_and_trend(table: SweepTable, values: dict[str, dict[int, float]], numeric: set[str]) -> SweepTable:
    from dataclasses import replace

    ranked = sorted((r for r in table.rows if r.estimate is not None),
                    key=lambda r: r.estimate.median if r.estimate else 0.0,
                    reverse=table.metric.direction == "higher")
    best = ranked[0] if ranked else None
    runner = ranked[1] if len(ranked) > 1 else None
    pr = None
    distinguishable = None
    if best is not None and runner is not None:
        pr = _paired(values.get(best.variant, {}), values.get(runner.variant, {}), table.metric.direction,
                     table.threshold, table.confidence)
        if pr is not None and pr.ci is not None and pr.n >= 2:
            distinguishable = pr.ci[0] > 1.0 or pr.ci[1] < 1.0
    trends = []
    for p in table.params:
        if p not in numeric:
            continue
        others = [q for q in table.params if q != p]
        lines: dict[tuple[str, ...], list[SweepRow]] = defaultdict(list)
        for r in table.rows:
            if p in r.params and _is_number(r.params[p]) and r.estimate is not None:
                lines[tuple(r.params.get(q, "") for q in others)].append(r)
        for key, rows in lines.items():
            fit = trend_fit([float(r.params[p]) for r in rows], [r.estimate.median for r in rows if r.estimate],
                            table.confidence)
            if fit is not None:
                held = ", ".join(f"{q}={k}" for q, k in zip(others, key))
                trends.append((p, held, fit))
    return replace(table, best=best, runner_up=runner, best_vs_runner_up=pr, distinguishable=distinguishable,
                   trends=tuple(trends))


def render_sweeps(run: Run, console: Console) -> None:
    """Print every sweep table of the run."""
    from pairbench.report.summary import spread_text
    from pairbench.report.units import format_ratio, format_value

    for t in sweep_tables(run):
        level = int(round(t.confidence * 100))
        title = f"sweep: {t.benchmark} · {t.metric.name} · {t.base}"
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for p in t.params:
            table.add_column(p, justify="right")
        table.add_column(f"{t.metric.name} ({STATISTIC})", justify="right")
        table.add_column(f"ratio to {t.baseline}", justify="right")
        table.add_column(f"{level}% CI (adj.)", justify="right")
        table.add_column("verdict (Holm)")
        unit = t.metric.unit
        for r in t.rows:
            est = r.estimate
            cells = [r.params.get(p, "") for p in t.params]
            cells.append(spread_text(est, unit))
            cells.append(format_ratio(r.ratio))
            cells.append(f"[{format_ratio(r.ci[0])}, {format_ratio(r.ci[1])}]" if r.ci else "–")
            mark = " ★" if t.best is not None and r.variant == t.best.variant else ""
            cells.append(r.verdict + mark)
            table.add_row(*cells)
        console.print(table)
        level_adj = 100 * (1 - (1 - t.confidence) / max(t.family, 1))
        if t.corrected_by == "run":
            console.print(
                f"  verdicts are Holm-corrected across all {t.family} primary comparisons of the run; "
                f"adjusted CIs at {level_adj:.2f}% (Bonferroni); noise band ±{t.threshold * 100:g}%"
            )
        else:
            console.print(
                f"  verdicts are Holm-corrected over the {t.family} comparisons of this table with {t.baseline}; "
                f"CIs are widened to {level_adj:.2f}% (Bonferroni); noise band ±{t.threshold * 100:g}%"
            )
        console.print("  " + _best_sentence(t, format_value))
        for p, held, fit in t.trends:
            lo, hi = fit.ci if fit.ci else (float("nan"), float("nan"))
            where = f" ({held})" if held else ""
            console.print(
                f"  trend over {p}{where}: {_pct(fit.percent_per_unit)} {t.metric.name} per unit, "
                f"{level}% CI [{_pct((math.exp(lo) - 1) * 100)}, {_pct((math.exp(hi) - 1) * 100)}], "
                f"R² {fit.r_squared:.2f} over {fit.n} values (fit of ln {t.metric.name} on {p})"
            )
        console.print()


def _pct(x: float) -> str:
    if not math.isfinite(x):
        return "–"
    return f"{x:+.2f}%".replace("-", "−")


def _best_sentence(t: SweepTable, format_value: Any) -> str:
    if t.best is None or t.best.estimate is None:
        return "best: not enough data"
    label = _label(t.best, t.params)
    text = f"best: {label} ({STATISTIC} {format_value(t.best.estimate.median, t.metric.unit)})"
    if t.runner_up is None or t.best_vs_runner_up is None:
        return text
    pr = t.best_vs_runner_up
    other = _label(t.runner_up, t.params)
    if pr.ci is None or pr.ratio is None:
        return text + f"; runner-up {other}: too few paired blocks to tell them apart"
    level = int(round(t.confidence * 100))
    worse = "higher" if t.metric.direction == "lower" else "lower"
    change = (pr.ratio - 1) * 100
    span = f"[{_pct((pr.ci[0] - 1) * 100)}, {_pct((pr.ci[1] - 1) * 100)}]"
    if t.distinguishable:
        return (text + f"; distinguishable from the runner-up {other}, whose {t.metric.name} is {_pct(change)} "
                f"({level}% CI {span}, {pr.method or 'paired'} over {pr.n} blocks; {worse} is worse)")
    return (text + f"; NOT distinguishable from the runner-up {other}: {_pct(change)}, "
            f"{level}% CI {span} includes 0 ({pr.method or 'paired'} over {pr.n} blocks)")


def _label(row: SweepRow, params: tuple[str, ...]) -> str:
    inner = ", ".join(f"{p}={row.params[p]}" for p in params if p in row.params)
    return inner or row.variant
