"""The caption under a comparison table: what its value columns are, then each symbol the table
uses, and only those (`±` only where a cell shows a spread; Δ, (+N), (< δ?), (adj.) where a
cell carries them). The short answer (brief.py) and `-v` (terminal.py) say the same of each mark;
they differ in how they say what the values are."""

from __future__ import annotations

from collections.abc import Sequence

from pairbench.model import Benchmark, Comparison, Run
from pairbench.report.summary import FIGURES_CAPTION, ci_header, ci_mixed, spread_shown, spreads

__all__ = ["SPREAD_CAPTION", "table_caption", "adjusted_caption", "figures_caption"]

SPREAD_CAPTION = "± half the interquartile range of the per-block values"
"""What a `±` beside a value is."""


def table_caption(run: Run, bench: Benchmark, values: str, sep: str = "; ") -> str:
    """`values` (what the value columns are), `sep` and SPREAD_CAPTION when some cell shows `±`,
    then what each mark this table uses means; `bench` holds the metrics the table shows."""
    names = {m.name for m in bench.metrics}
    shown = [c for c in run.comparisons if c.benchmark == bench.name and c.metric in names]
    parts = [values + sep + SPREAD_CAPTION if _any_spread(run, bench) else values]
    options = run.metadata.get("options", {})
    asked = float(options.get("confidence", 0.95))
    looks = len(run.metadata.get("adaptive", {}).get("looks", []))
    level = shown[0].confidence if shown else asked
    if looks > 1 and abs(level - asked) > 1e-9:
        parts.append(f"{ci_header(shown, level).split(' (')[0]}: {asked * 100:g}% across {looks} looks")
    adjusted = adjusted_caption(run, shown)
    if adjusted:
        parts.append(adjusted)
    band = float(options.get("threshold", 1.0))
    if any(c.verdict in ("faster", "slower") and not c.meaningful and not c.exact for c in shown):
        parts.append(f"(< δ?): maybe inside the ±{band:g}% band δ")
    if any(c.verdict == "inconclusive" and c.more_runs for c in shown):
        parts.append("(+N): about N more blocks should settle it")
    if any(c.exact for c in shown):
        parts.append("Δ: the exact difference of counts")
    return "; ".join(parts)


def adjusted_caption(run: Run, shown: Sequence[Comparison]) -> str | None:
    """What the CI header's `(adj.)` or `(*adj.)` means, when `ci_header(shown)` carries one."""
    if not any(c.adjusted_ci is not None for c in shown):
        return None
    # one per benchmark and candidate: a rate inverted from a time is that time's comparison
    family = len({(c.benchmark, c.candidate) for c in run.comparisons if c.adjusted_ci is not None})
    mark = "(*adj.)" if ci_mixed(shown) else "(adj.)"
    correction = run.metadata.get("options", {}).get("correction", "holm")
    return f"{mark}: widened for {family} comparison{'' if family == 1 else 's'} ({correction})"


MEDIANS_CAPTION = "values: each variant's median of its per-block values (nothing compared)"
"""What a table's values are when no comparison gives them (an imported run, one variant)."""


def figures_caption(run: Run, shown: Sequence[Comparison]) -> str:
    """The Markdown, HTML and AsciiDoc tables' caption: what the values are, and the CI header's mark."""
    if not any(c.baseline_value is not None for c in shown):  # value_text's fallback: the medians
        return MEDIANS_CAPTION
    adjusted = adjusted_caption(run, shown)
    return f"{FIGURES_CAPTION}; {adjusted}" if adjusted else FIGURES_CAPTION


def _any_spread(run: Run, bench: Benchmark) -> bool:
    """Some cell of the table shows `±` (a spread takes 4 blocks): else the caption leaves it out."""
    names = {m.name for m in bench.metrics}
    return any(spread_shown(s) for (b, m, _), s in spreads(run).items() if b == bench.name and m in names)
