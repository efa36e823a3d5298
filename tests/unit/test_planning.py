"""The planner's number of blocks gives the power it promises (synthetic runs, fixed seeds).

Each scenario draws many runs of the planned number of paired blocks with a known σ of the
log-ratios and a true slowdown of the planned size, judges each with `compare_paired` (the
verdict the run would give, its method choice included), and counts how often the slowdown is
found (the CI above 1). The plan promises 80%; the assertion allows ±5 points (about 3 binomial
standard errors at 1,000 runs). The figures are quoted in docs/statistics.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairbench.stats.compare import compare_paired
from pairbench.stats.planning import MAX_PLANNED_BLOCKS, blocks_for_power, plan_blocks
from pairbench.stats.verdict import MIN_PAIRS, min_detectable_effect

REPLICATIONS = 1000


def _power(n: int, log_sd: float, effect: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(REPLICATIONS):
        machine = rng.normal(0.0, 0.05, n)  # a per-block factor both variants share: pairing cancels it
        noise_b = rng.normal(0.0, log_sd / math.sqrt(2), n)
        noise_c = rng.normal(0.0, log_sd / math.sqrt(2), n)
        b = np.exp(machine + noise_b)
        c = np.exp(machine + noise_c + math.log1p(effect))
        r = compare_paired(b.tolist(), c.tolist(), threshold=0.0, resamples=200)
        found += r.significant and r.ratio is not None and r.ratio > 1
    return found / REPLICATIONS


@pytest.mark.parametrize(("log_sd", "effect", "seed"), [(0.02, 0.01, 1), (0.05, 0.02, 2), (0.01, 0.01, 3)])
def test_the_planned_blocks_give_80_percent_power(log_sd: float, effect: float, seed: int) -> None:
    n = blocks_for_power(log_sd, effect)
    assert n is not None and n >= MIN_PAIRS
    assert 0.75 <= _power(n, log_sd, effect, seed) <= 0.85


def test_the_plan_is_the_inverse_of_the_minimum_detectable_effect() -> None:
    # with many blocks t quantiles are normal ones: the planned n's MDE is the effect asked
    n = blocks_for_power(0.01, 0.002)
    assert n is not None
    assert min_detectable_effect(0.01 / math.sqrt(n)) == pytest.approx(0.002, rel=0.02)


def test_more_noise_or_a_smaller_effect_needs_more_blocks() -> None:
    base = blocks_for_power(0.02, 0.02)
    assert base is not None
    assert (blocks_for_power(0.04, 0.02) or 0) > base
    assert (blocks_for_power(0.02, 0.01) or 0) > base
    assert (blocks_for_power(0.02, 0.02, comparisons=3) or 0) > base


def test_no_noise_needs_the_fewest_blocks_and_too_much_is_not_feasible() -> None:
    assert blocks_for_power(0.0, 0.01) == MIN_PAIRS
    assert blocks_for_power(5.0, 1e-5) is None
    assert MAX_PLANNED_BLOCKS >= 1_000_000


def test_a_short_pilot_gives_a_wide_range() -> None:
    plan = plan_blocks(0.02, 0.01, sd_blocks=10)
    assert plan.blocks is not None and plan.blocks_low is not None and plan.blocks_high is not None
    assert plan.blocks_low < plan.blocks < plan.blocks_high
    longer = plan_blocks(0.02, 0.01, sd_blocks=100)
    assert longer.blocks_high is not None and longer.blocks_high < plan.blocks_high


def test_a_bad_effect_names_it() -> None:
    with pytest.raises(ValueError, match="effect"):
        blocks_for_power(0.01, 0.0)


def test_the_pilot_clock_counts_preparing_as_start_up() -> None:
    from pairbench.flows.power_plan import _BlockClock

    now = [0.0]
    clock = _BlockClock(None, clock=lambda: now[0])
    now[0] = 5.0  # preparing took 5 s
    clock.started(None, 3, 2)
    for end in (7.0, 9.0, 11.5):
        now[0] = end
        clock.block_done(None, 0, 3)
    block, startup = clock.costs()
    assert (block, startup) == (2.5, 4.5)  # the upper median of the gaps 2.0 and 2.5; 7 s - one block
