"""What too few blocks can say: the interval at the highest level they reach.

Below the blocks a level needs (a signed-rank CI of n pairs covers at most 1 - 2^(1-n): 75% with
3 blocks, 93.75% with 5) there is no verdict, but the ratio and a distribution-free interval at
the level reached are still true statements; the level is never more than the one asked.
"""

from __future__ import annotations

import math

import numpy as np

from pairbench.stats.tests import (
    mann_whitney_interval,
    mann_whitney_max_confidence,
    rank_max_confidence,
    wilcoxon_interval,
)

__all__ = ["reached_differences", "reached_paired", "reached_unpaired"]


def _exp(x: float) -> float:
    return math.exp(x) if x < 709.0 else math.inf


def reached_paired(d: np.ndarray, confidence: float) -> tuple[tuple[float, float], float]:
    """(ratio interval, level): the signed-rank CI of the log-ratios `d` at min(confidence, the
    most n pairs reach); its coverage holds whatever the differences' distribution."""
    level = min(confidence, rank_max_confidence(int(d.size)))
    rk = wilcoxon_interval(d, level)
    return (_exp(rk.low), _exp(rk.high)), level


def reached_unpaired(lb: np.ndarray, lc: np.ndarray, confidence: float) -> tuple[tuple[float, float], float]:
    """(ratio interval, level): the Mann-Whitney CI of the log values at the most the sides reach."""
    level = min(confidence, mann_whitney_max_confidence(int(lb.size), int(lc.size)))
    iv = mann_whitney_interval(lb, lc, level)
    return (_exp(iv.low), _exp(iv.high)), level


def reached_differences(d: np.ndarray, scale: float, confidence: float) -> tuple[tuple[float, float], float]:
    """(ratio interval, level) of paired differences that may be <= 0: the signed-rank CI of `d` at
    the most n pairs reach, relative to the baseline's `scale` as the additive comparison's ratio."""
    level = min(confidence, rank_max_confidence(int(d.size)))
    rk = wilcoxon_interval(d, level)
    return (1.0 + rk.low / scale, 1.0 + rk.high / scale), level
