"""A rate stored as the inverse of a time per operation is judged as that time, inverted.

The micro and pytest kinds store `ops_per_s = 1 / time_per_op` for every sample. Estimated apart,
the two could disagree beside each other (a rank CI for one, the t interval or a Holm-widened one
for the other; "9991 op/s" beside "101.7 µs"). So the rate's comparison is the time's: the same
estimate, interval, p-value and verdict, its ratio, interval and figures inverted. Imports the
model only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from pairbench.model import Comparison

__all__ = ["INVERSE_METRICS", "inverted", "is_inverse"]

INVERSE_METRICS = {"ops_per_s": "time_per_op"}
"""A rate -> the time per operation it is the inverse of (when every value is)."""

_REL = 1e-9


def _inv(x: float | None) -> float | None:
    return 1.0 / x if x is not None and math.isfinite(x) and x > 0 else None


def _inv_value(x: float | None) -> float | None:
    """A figure beside the ratio, inverted; 0 stays 0, and None (a side without data) None."""
    return 0.0 if x == 0 else _inv(x)


def _inv_ci(ci: tuple[float, float] | None) -> tuple[float, float] | None:
    if ci is None:
        return None
    low, high = _inv(ci[1]), _inv(ci[0])
    return (low, high) if low is not None and high is not None else None


def is_inverse(rates: Mapping[str, Mapping[int, float]], times: Mapping[str, Mapping[int, float]]) -> bool:
    """Whether every per-block rate is 1 / the time of the same variant and block (no others)."""
    if not times or set(rates) != set(times):
        return False
    for variant, per_block in times.items():
        other = rates[variant]
        if set(other) != set(per_block):
            return False
        if any(not (t > 0 and math.isclose(other[b] * t, 1.0, rel_tol=_REL)) for b, t in per_block.items()):
            return False
    return True


def inverted(c: Comparison, metric: str) -> Comparison:
    """The comparison `c` of a time, as the comparison of `metric`, its inverse: ratios, intervals
    and figures inverted; the verdict, p-values and notes as they are (a lower time is a higher rate)."""
    delta = None
    if c.delta is not None and c.baseline_value and c.candidate_value:
        delta = 1.0 / c.candidate_value - 1.0 / c.baseline_value
    return replace(c, metric=metric, ratio=_inv(c.ratio), ci=_inv_ci(c.ci), adjusted_ci=_inv_ci(c.adjusted_ci),
                   reached_ci=_inv_ci(c.reached_ci), baseline_value=_inv_value(c.baseline_value),
                   candidate_value=_inv_value(c.candidate_value), delta=delta)
