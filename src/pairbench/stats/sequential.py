"""Adaptive stopping without inflating the false-positive rate.

Method (METHOD §5): a pre-set maximum number of blocks and a small fixed number K of looks; each
interim CI is widened to level 1 - α/K (Bonferroni across looks), so the chance that any look
wrongly excludes the truth is at most α whatever the stopping rule. This is conservative next to
Pocock's constant boundary (Pocock, Biometrika 1977; Jennison & Turnbull, "Group Sequential
Methods", 2000, ch. 2) but needs no tables and holds for unequal look sizes. Looks are spaced
geometrically (each about 1.4-2x the previous), where the CI width changes the most.
Rerunning "until significant" at a fixed 95% is what benchstat's docs warn against.
"""

from __future__ import annotations

import math

__all__ = ["MAX_LOOKS", "look_confidence", "plan_looks"]

MAX_LOOKS = 5
"""At most this many looks: each look costs width (Bonferroni), more than 5 rarely pays."""


def plan_looks(min_blocks: int, max_blocks: int, max_looks: int = MAX_LOOKS) -> list[int]:
    """Block counts at which to analyse: geometric from `min_blocks` to `max_blocks`, both included.

    Args:
        min_blocks: blocks before the first look (at least 6 to allow a verdict, 10 preferred).
        max_blocks: the pre-set maximum; always the last look.
        max_looks: how many looks at most.

    Returns:
        Increasing block counts, e.g. plan_looks(10, 80) == [10, 17, 28, 48, 80].
    """
    if min_blocks < 1:
        raise ValueError(f"min_blocks {min_blocks} must be at least 1")
    if max_blocks < min_blocks:
        raise ValueError(f"max_blocks {max_blocks} must be at least min_blocks {min_blocks}")
    if max_looks < 1:
        raise ValueError(f"max_looks {max_looks} must be at least 1")
    if max_blocks == min_blocks or max_looks == 1:
        return [max_blocks]
    k = min(max_looks, max_blocks - min_blocks + 1)
    # Aim for growth of at least ~1.4x between looks; fewer looks if the range is narrow.
    k = max(2, min(k, 1 + int(math.floor(math.log(max_blocks / min_blocks) / math.log(1.4)))))
    ratio = (max_blocks / min_blocks) ** (1.0 / (k - 1))
    looks: list[int] = []
    for i in range(k):
        v = int(round(min_blocks * ratio ** i))
        v = min(max(v, looks[-1] + 1 if looks else min_blocks), max_blocks)
        if not looks or v > looks[-1]:
            looks.append(v)
    looks[-1] = max_blocks
    return looks


def look_confidence(confidence: float, n_looks: int) -> float:
    """Confidence of each interim CI so that K looks keep overall coverage: 1 - (1-confidence)/K."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence!r} must be in (0, 1)")
    if n_looks < 1:
        raise ValueError(f"n_looks {n_looks} must be at least 1")
    return 1.0 - (1.0 - confidence) / n_looks
