"""Samples per micro process from the variance components (runners/micro/sample_plan.py), on
synthetic two-level data with fixed seeds: process effects (layout, hash seeds) plus sample noise."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from pairbench.runners.micro.sample_plan import (
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    MIN_SAMPLES,
    PILOT_BLOCKS,
    VarianceComponents,
    best_samples,
    plan_samples,
    variance_components,
)
from pairbench.stats.compare import compare_paired

PROCESS_S = 0.4
"""Seconds a simulated process spends besides its samples (start-up, import, its warm-up samples)."""
SAMPLE_S = 0.1
"""Seconds of one simulated sample (the default target)."""


def process(rng: random.Random, centre: float, between: float, within: float, k: int) -> list[float]:
    """One process's k samples of time per op: its own level, then noise per sample."""
    level = centre * math.exp(rng.gauss(0.0, between))
    return [level * math.exp(rng.gauss(0.0, within)) for _ in range(k)]


def pilot(rng: random.Random, between: float, within: float, ratio: float = 1.0) -> dict[tuple[int, str], list[float]]:
    return {(b, v): process(rng, 1e-6 * (ratio if v == "b" else 1.0), between, within, DEFAULT_SAMPLES)
            for b in range(PILOT_BLOCKS) for v in ("a", "b")}


def chosen_k(rng: random.Random, between: float, within: float) -> int:
    plan = plan_samples(pilot(rng, between, within), [PROCESS_S] * 4, [SAMPLE_S] * 4)
    assert plan is not None
    return plan.samples


def block_ratios(rng: random.Random, blocks: int, k: int, between: float, within: float,
                 ratio: float = 1.0) -> tuple[list[float], list[float]]:
    base = [statistics.fmean(process(rng, 1e-6, between, within, k)) for _ in range(blocks)]
    cand = [statistics.fmean(process(rng, 1e-6 * ratio, between, within, k)) for _ in range(blocks)]
    return base, cand


def log_width(base: list[float], cand: list[float]) -> float:
    d = [math.log(c / b) for b, c in zip(base, cand)]
    return 2 * 1.96 * statistics.stdev(d) / math.sqrt(len(d))


def test_variance_components_recover_the_two_levels() -> None:
    rng = random.Random(11)
    data = {(b, v): process(rng, 1e-6, 0.03, 0.01, 5) for b in range(200) for v in ("a", "b")}
    c = variance_components(data)
    assert c is not None
    assert math.sqrt(c.within) == pytest.approx(0.01, rel=0.1)
    assert math.sqrt(c.between) == pytest.approx(0.03, rel=0.15)
    assert c.samples == pytest.approx(5) and c.between_df == 199


def test_a_state_shared_by_a_block_is_not_between_process_spread() -> None:
    """A phase of the machine slows both variants of a block alike: it cancels in the paired ratio."""
    rng = random.Random(12)
    data = {}
    for b in range(100):
        phase = math.exp(rng.gauss(0.0, 0.2))
        for v in ("a", "b"):
            data[(b, v)] = [x * phase for x in process(rng, 1e-6, 0.01, 0.01, 5)]
    c = variance_components(data)
    assert c is not None and math.sqrt(c.between) < 0.02


def test_processes_that_differ_more_than_samples_get_fewer_longer_processes_and_vice_versa() -> None:
    few = chosen_k(random.Random(1), between=0.03, within=0.01)
    many = chosen_k(random.Random(1), between=0.003, within=0.03)
    assert few < DEFAULT_SAMPLES < many


def test_the_chosen_k_gives_a_narrower_interval_per_second_than_five() -> None:
    """The claim itself: in the same simulated time, the plan's k gives a narrower paired interval
    than pyperf-like fixed sampling at 5 per process when processes differ more than samples."""
    budget_s = 40.0
    widths: dict[str, list[float]] = {"plan": [], "five": []}
    for seed in range(60):
        rng = random.Random(seed)
        k = chosen_k(rng, between=0.03, within=0.015)
        for name, kk in (("plan", k), ("five", DEFAULT_SAMPLES)):
            blocks = int(budget_s / (2 * (PROCESS_S + kk * SAMPLE_S)))
            widths[name].append(log_width(*block_ratios(rng, blocks, kk, 0.03, 0.015)))
    assert statistics.median(widths["plan"]) < 0.9 * statistics.median(widths["five"])


def test_the_chosen_k_minimises_width_per_second_over_the_range() -> None:
    c = VarianceComponents(within=0.02 ** 2, between=0.01 ** 2, within_df=40, between_df=2, samples=5)
    k, optimum = best_samples(c, PROCESS_S, SAMPLE_S)
    assert optimum == pytest.approx(math.sqrt(4 * 4))
    assert k == 4

    def per_second(kk: int) -> float:
        return (PROCESS_S + kk * SAMPLE_S) * (c.between + c.within / kk)

    assert all(per_second(k) <= per_second(j) for j in range(MIN_SAMPLES, MAX_SAMPLES + 1))


def test_the_plan_stays_in_range_at_the_extremes() -> None:
    flat = VarianceComponents(within=1e-4, between=0.0, within_df=40, between_df=2, samples=5)
    assert best_samples(flat, PROCESS_S, SAMPLE_S)[0] == MAX_SAMPLES
    exact = VarianceComponents(within=0.0, between=1e-4, within_df=40, between_df=2, samples=5)
    assert best_samples(exact, PROCESS_S, SAMPLE_S)[0] == MIN_SAMPLES


def test_the_pilot_without_two_complete_blocks_makes_no_plan() -> None:
    rng = random.Random(3)
    one = {(0, "a"): process(rng, 1e-6, 0.03, 0.01, 5), (0, "b"): process(rng, 1e-6, 0.03, 0.01, 5),
           (1, "a"): process(rng, 1e-6, 0.03, 0.01, 5)}
    assert plan_samples(one, [PROCESS_S], [SAMPLE_S]) is None


def test_describe_names_the_plan_and_what_chose_it() -> None:
    plan = plan_samples(pilot(random.Random(4), 0.03, 0.01), [PROCESS_S] * 4, [SAMPLE_S] * 4)
    assert plan is not None
    text = plan.describe()
    assert f"{plan.samples} samples per process from block {PILOT_BLOCKS + 1}" in text
    assert "between processes" in text and "k* =" in text


def test_a_a_false_alarms_stay_at_the_level_when_the_plan_changes_k_mid_run() -> None:
    """The plan reads spreads, never the difference: A/A runs of pilot + planned blocks, judged by
    the paired comparison the verdict uses, call a difference no more often than 5% allows."""
    runs, alarms, changed = 300, 0, 0
    for seed in range(runs):
        rng = random.Random(1000 + seed)
        data = pilot(rng, 0.03, 0.015)
        plan = plan_samples(data, [PROCESS_S] * 4, [SAMPLE_S] * 4)
        assert plan is not None
        changed += plan.samples != DEFAULT_SAMPLES
        base = [statistics.fmean(data[(b, "a")]) for b in range(PILOT_BLOCKS)]
        cand = [statistics.fmean(data[(b, "b")]) for b in range(PILOT_BLOCKS)]
        more_b, more_c = block_ratios(rng, 20 - PILOT_BLOCKS, plan.samples, 0.03, 0.015)
        r = compare_paired(base + more_b, cand + more_c, direction="lower", threshold=0.01, confidence=0.95,
                           seed=seed)
        alarms += r.significant
    assert changed > runs // 2  # the plan did change what was computed
    # 5% nominal; 300 runs: the binomial's 99.9% upper bound at 5% is about 9.5%
    assert alarms / runs <= 0.095


def test_a_planned_process_without_batches_stays_too_short_for_a_steady_state_classification() -> None:
    """Unbatched samples (a pyperf benchmark timing itself) are classified from 10 values on: a plan
    must not turn a loaded machine's noise in them into a 'slowdown' that drops most samples."""
    from pairbench.runners.micro.warmup import JIT_WARMUP, WARMUP_BY_KIND
    from pairbench.stats.steady_state import MIN_ITERATIONS

    # the most warm-up samples any interpreter takes by default (a JIT's; CPython takes 1)
    assert MAX_SAMPLES + max(JIT_WARMUP, *WARMUP_BY_KIND.values()) < MIN_ITERATIONS
