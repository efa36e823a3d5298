"""The A/A calibration rule: the band it derives keeps false alarms at the promised rate.

Synthetic A/A runs with fixed seeds (no processes): paired log-ratios with white noise plus an
AR(1) component, the kind of slow machine phase that blocks do not cancel and that makes the
plain t interval under-cover. A fresh A/A run is a false alarm at band δ when its whole 95% CI
lies beyond ±δ (what pairbench calls a meaningful difference).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairbench.stats.calibration import MIN_BLOCKS, nice_band, noise_calibration
from pairbench.stats.tests import t_interval


def _aa(rng: np.random.Generator, n: int, rho: float, phase_sd: float, sd: float = 0.02) -> tuple[np.ndarray, np.ndarray]:
    phase = np.zeros(n)
    x = rng.normal(0, phase_sd) if phase_sd else 0.0
    for i in range(n):
        x = rho * x + rng.normal(0, phase_sd * math.sqrt(1 - rho * rho)) if phase_sd else 0.0
        phase[i] = x
    a = 0.03 * np.exp(rng.normal(0, sd, n))
    return a, a * np.exp(rng.normal(0, sd, n) + phase)


def _alarm(a: np.ndarray, b: np.ndarray, band: float) -> bool:
    iv = t_interval(np.log(b) - np.log(a), 0.95)
    return math.expm1(iv.low) > band or math.expm1(iv.high) < -band


@pytest.mark.parametrize("rho, phase_sd, seed", [(0.7, 0.01, 5), (0.8, 0.015, 6)])
def test_band_keeps_aa_false_alarms_at_five_percent(rho: float, phase_sd: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    calibrations, fresh = 10, 200
    plain = at_band = 0
    for _ in range(calibrations):
        a, b = _aa(rng, 400, rho, phase_sd)
        band = noise_calibration(a, b, 1.0, [100]).at(100).band  # 100 blocks fit in the budget
        for _ in range(fresh):
            a2, b2 = _aa(rng, 100, rho, phase_sd)
            plain += _alarm(a2, b2, 0.0)
            at_band += _alarm(a2, b2, band)
    total = calibrations * fresh
    bound = 3 * math.sqrt(0.05 * 0.95 / total)
    assert plain / total > 0.05 + bound  # the phases defeat the plain CI: without a band, too many alarms
    assert 0.01 < at_band / total <= 0.05 + bound  # the calibrated band brings them back to 5%, not to 0


def test_white_noise_needs_no_band_beyond_the_detectable_change() -> None:
    rng = np.random.default_rng(11)
    a, b = _aa(rng, 400, 0.0, 0.0)
    cal = noise_calibration(a, b, 0.15, [20, 60])
    assert cal.subruns == 20 and cal.subrun_blocks == 20 and cal.blocks == 400
    assert cal.ratio_sd == pytest.approx(0.02, rel=0.15)  # b = a × its own noise
    assert cal.replicate_sd == pytest.approx(0.02 * math.sqrt(1.5), rel=0.2)  # b carries both noises
    short, long = cal.at(20), cal.at(60)
    assert (short.blocks, long.blocks) == (133, 400)
    # MDE ≈ (1.96 + 0.84) σ_d / √n
    assert long.mde == pytest.approx(math.expm1(2.8016 * cal.ratio_sd / math.sqrt(400)), rel=1e-3)
    assert short.mde > long.mde and short.band < short.mde
    assert long.delta == nice_band(long.mde) >= long.mde


def test_a_systematic_shift_is_a_floor_under_every_band() -> None:
    rng = np.random.default_rng(14)
    a, b = _aa(rng, 400, 0.0, 0.0)
    cal = noise_calibration(a, b * 1.015, 0.1, [60, 600])
    assert cal.shift > 0.008
    assert cal.at(600).band >= cal.shift  # more blocks do not make a slot effect go away


def test_too_short_budgets_and_runs_say_so() -> None:
    rng = np.random.default_rng(3)
    a, b = _aa(rng, MIN_BLOCKS - 1, 0.0, 0.0)
    cal = noise_calibration(a, b, 1.0, [5, 60])
    assert cal.subruns == 0 and math.isnan(cal.at(60).band)
    assert math.isinf(cal.at(5).mde)  # 5 blocks: below the 6 a verdict needs
    with pytest.raises(ValueError):
        noise_calibration([1.0, 2.0], [1.0], 1.0, [20])


@pytest.mark.parametrize("fraction, expected", [(0.008, 0.01), (0.011, 0.015), (0.0001, 0.001), (0.05, 0.05),
                                                (0.021, 0.03), (0.061, 0.07), (0.08, 0.1)])
def test_nice_band_rounds_up(fraction: float, expected: float) -> None:
    assert nice_band(fraction) == pytest.approx(expected, abs=1e-12)


def test_a_run_is_calibrated_per_benchmark_and_metric_with_its_share_of_the_block() -> None:
    from pairbench.analysis.calibration import calibrate_run
    from pairbench.model import Benchmark, Metric, Run, Sample, Variant

    rng = np.random.default_rng(2)
    metrics = (Metric("time"), Metric("sys"), Metric("exit_code", "", "none"))
    run = Run(metadata={"blocks": 40, "elapsed_s": 40 * 0.4},
              variants=[Variant("A", "x", baseline=True), Variant("A (copy)", "x")],
              benchmarks=[Benchmark("big", "command", metrics), Benchmark("small", "command", metrics)])
    for block in range(40):
        for v in ("A", "A (copy)"):
            for bench, t in (("big", 0.15), ("small", 0.05)):
                run.samples.append(Sample(bench, v, "time", t * float(np.exp(rng.normal(0, 0.02))), block))
                run.samples.append(Sample(bench, v, "sys", 0.001 if block % 4 == 0 else 0.0, block))
                run.samples.append(Sample(bench, v, "exit_code", 0.0, block))
    got = calibrate_run(run, [20.0])
    assert [(c.benchmark, c.metric.name, c.primary) for c in got] == [("big", "time", True), ("small", "time", True)]
    seconds = {c.benchmark: c.noise.block_seconds for c in got}
    assert seconds["big"] == pytest.approx(0.3, rel=0.05) and seconds["small"] == pytest.approx(0.1, rel=0.05)
    assert got[0].noise.at(20.0).blocks == int(20 / seconds["big"])
