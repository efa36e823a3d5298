"""The analysis layer: from a Run's raw samples to every figure a report shows.

Imports the model and stats only (stats lazily, so that `pairbench --help` and reporters stay
light). Modules: `replicates` (samples -> one value per variant and block), `comparisons`
(paired and unpaired comparisons, multiplicity, the adaptive-stopping rule), `consistency`
(the rules every comparison's numbers obey), `sweep` (sweep tables made of those comparisons),
`suite` (the suite summary), `steady_state` (each process's warm-up, cut before its value),
`profiles` (where the difference is: each frame's share, from `--profile`'s stacks). The session stores the results in the
Run; reports only render them.
"""

from __future__ import annotations

from pairbench.analysis.comparisons import (
    CORRECTIONS,
    HIGH_NOISE_CV,
    analyze,
    compare_runs,
    settled,
    settled_report,
)
from pairbench.analysis.consistency import check_consistent
from pairbench.analysis.replicates import replicate_values
from pairbench.analysis.steady_state import classify_processes, steady_state_notices
from pairbench.analysis.suite import SuiteSummary, suite_summary
from pairbench.analysis.sweep import sweep_tables

def __getattr__(name: str) -> object:
    """`profile_differences` and `fill_profile_differences`, loaded at first use (PEP 562): the
    profiles' analysis is for --profile runs alone."""
    if name in ("profile_differences", "fill_profile_differences"):
        from pairbench.analysis import profiles

        return getattr(profiles, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CORRECTIONS",
    "HIGH_NOISE_CV",
    "SuiteSummary",
    "analyze",
    "check_consistent",
    "classify_processes",
    "compare_runs",
    "fill_profile_differences",
    "profile_differences",
    "replicate_values",
    "settled",
    "settled_report",
    "steady_state_notices",
    "suite_summary",
    "sweep_tables",
]
