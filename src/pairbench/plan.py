"""The interleaved order in which replicates are measured.

Randomized complete blocks (METHOD.md §1): each block runs every variant once. With two variants
the blocks come in counterbalanced pairs (AB then BA, or BA then AB, chosen at random), so that a
linear drift hits both alike; with more, each block is an independent random permutation. Several
benchmarks are interleaved too: within a block, benchmarks are visited in random order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Step", "block_order", "plan_block"]


@dataclass(frozen=True, slots=True)
class Step:
    """Measure `variant` on `benchmark` as part of block `block`."""

    benchmark: str
    variant: str
    block: int


def block_order(variants: list[str], block: int, rng: random.Random, previous: list[str] | None = None) -> list[str]:
    """The order of variants in one block.

    Args:
        variants: variant names.
        block: block index (pairs of blocks are counterbalanced when there are two variants).
        rng: the run's random source (seeded, so a plan can be reproduced).
        previous: the order used in the previous block, needed to counterbalance.
    """
    if len(variants) == 2 and block % 2 == 1 and previous is not None:
        return list(reversed(previous))
    order = list(variants)
    rng.shuffle(order)
    return order


def plan_block(
    benchmarks: list[str],
    variants: list[str],
    block: int,
    rng: random.Random,
    previous: dict[str, list[str]],
) -> list[Step]:
    """All steps of one block; `previous` maps benchmark -> last variant order and is updated."""
    steps: list[Step] = []
    order_of_benchmarks = list(benchmarks)
    rng.shuffle(order_of_benchmarks)
    for bench in order_of_benchmarks:
        order = block_order(variants, block, rng, previous.get(bench))
        previous[bench] = order
        steps.extend(Step(bench, v, block) for v in order)
    return steps
