"""`--plan EFFECT`: the blocks and time detecting a change would take, as text.

    plan: detecting a 2% change at 80% power (95% CI)
    benchmark  comparison  metric  noise (σ per block)  from                blocks  range (σ's 90% CI)
    command    B vs A      time    3.1%                 pilot of 10 blocks  34      22–61
    34 blocks: about 12.3 s (0.33 s a block, 1.2 s before the first); measure them with -r 34
"""

from __future__ import annotations

import math

from pairbench.analysis.power_plan import PLAN_POWER, RunPlan
from pairbench.report.format import format_percent, format_value
from pairbench.report.tables import format_table

__all__ = ["render_plan"]


def _count(n: int | None) -> str:
    return "not feasible" if n is None else str(n)


def _range(low: int | None, high: int | None) -> str:
    if low is None and high is None:
        return "–"
    return f"{_count(low)}–{_count(high)}"


def render_plan(plan: RunPlan, confidence: float = 0.95) -> str:
    """The plan as a header, one row per comparison and the answer, ending in a newline."""
    head = (f"plan: detecting a {format_percent(plan.effect, signed=False)} change at {PLAN_POWER:.0%} power "
            f"({confidence:.0%} CI{', corrected for ' + str(len(plan.comparisons)) + ' comparisons' if len(plan.comparisons) > 1 else ''})")
    rows = [["benchmark", "comparison", "metric", "noise (σ per block)", "from", "blocks", "range (σ's 90% CI)"]]
    for c in plan.comparisons:
        sd = format_percent(math.expm1(c.log_sd), signed=False) if math.isfinite(c.log_sd) else "–"
        rows.append([c.benchmark, f"{c.candidate} vs {c.baseline}", c.metric, sd, c.source, _count(c.blocks),
                     _range(c.blocks_low, c.blocks_high)])
    blocks = plan.blocks
    if not plan.comparisons:
        answer = "nothing to plan: no candidate is judged against the baseline on a primary metric"
    elif blocks is None:
        answer = (f"not feasible: a {format_percent(plan.effect, signed=False)} change is below what this noise "
                  "lets any practical number of blocks see; plan a larger effect or reduce the noise")
    else:
        answer = (f"{blocks} blocks: about {format_value(plan.seconds(blocks), 's', 3)} "
                  f"({format_value(plan.block_s, 's', 3)} a block, {format_value(plan.startup_s, 's', 3)} before "
                  f"the first); measure them with -r {blocks}")
    return head + "\n" + format_table(rows) + answer + "\n"
