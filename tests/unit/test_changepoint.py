"""Change points in run series: known steps found, flat noise left alone (fixed seeds)."""

from __future__ import annotations

import random

from pairbench.stats.changepoint import find_change_points


def _series(seed: int, n: int, step_at: set[int] | None = None, step: float = 1.05,
            run_noise: float = 0.01, sample_noise: float = 0.02) -> list[list[float]]:
    rng = random.Random(seed)
    out = []
    level = 1.0
    for i in range(n):
        if step_at and i in step_at:
            level *= step
        drift = 1 + rng.gauss(0, run_noise)
        out.append([0.03 * level * drift * rng.lognormvariate(0, sample_noise) for _ in range(10)])
    return out


def test_flat_series_raise_no_false_alarm() -> None:
    alarms = sum(bool(find_change_points(_series(seed, 30))) for seed in range(500))
    assert alarms / 500 < 0.015


def test_a_five_percent_step_is_found_where_it_is() -> None:
    found = [[c.index for c in find_change_points(_series(seed, 30, {15}))] for seed in range(200)]
    assert sum(len(f) == 1 and abs(f[0] - 15) <= 1 for f in found) / 200 > 0.95
    assert sum(f == [15] for f in found) / 200 > 0.85


def test_step_up_then_back_is_two_change_points() -> None:
    runs = _series(7, 30, {10})[:20] + _series(8, 10)
    cps = find_change_points(runs)
    assert [c.index for c in cps] == [10, 20]
    assert 0.03 < cps[0].change < 0.07 and -0.07 < cps[1].change < -0.03


def test_steps_inside_the_band_are_ignored() -> None:
    runs = _series(3, 30, {15}, step=1.005, run_noise=0.0002, sample_noise=0.0002)
    assert find_change_points(runs, min_step=0.01) == []
    assert [c.index for c in find_change_points(runs, min_step=0.001)] == [15]


def test_short_or_empty_series() -> None:
    assert find_change_points([]) == []
    assert find_change_points([[1.0]]) == []
    assert [c.index for c in find_change_points([[1.0, 1.0], [2.0, 2.0]], z_threshold=1)] == [1]


def _stalled(seed: int, levels: list[float], values: int = 5) -> list[list[float]]:
    """Runs of `values` values around each level, one of them a 4x stall (a GC pause, a page-fault storm)."""
    rng = random.Random(seed)
    out = []
    for level in levels:
        run = [0.03 * level * rng.lognormvariate(0, 0.02) for _ in range(values)]
        run[rng.randrange(values)] *= 4
        out.append(run)
    return out


def test_a_clean_2x_step_with_4_runs_each_side_is_found_despite_a_stall_per_run() -> None:
    # The medians step cleanly from 1 to 2; a stall per run moves no median, so it must not hide the step.
    found = [[c.index for c in find_change_points(_stalled(seed, [1.0] * 4 + [2.0] * 4))] for seed in range(200)]
    assert sum(f == [4] for f in found) / 200 > 0.97


def test_stalls_in_a_flat_series_raise_no_false_alarm() -> None:
    alarms = sum(bool(find_change_points(_stalled(seed, [1.0] * 30))) for seed in range(300))
    assert alarms / 300 < 0.015
