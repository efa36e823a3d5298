#!/usr/bin/env python3
"""Error rates of the steady-state classification and the planner's power, on synthetic data.

The tables of docs/statistics.md ("Planning a run", "Steady state of in-process series"): series
and runs with a known truth, fixed seeds, no process measured (so the figures do not depend on
the machine). The unit tests (tests/unit/test_steady_state.py, tests/unit/test_planning.py)
assert the same scenarios with fewer replications.

    python3 bench/steady_rates.py                  # 300 series per cell, 1,000 runs per plan
    python3 bench/steady_rates.py --series 100 --runs 300   # quicker
"""
from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(ROOT, "src"), ROOT]

from pairbench.stats.compare import compare_paired  # noqa: E402
from pairbench.stats.planning import blocks_for_power  # noqa: E402
from pairbench.stats.steady_state import classify_series  # noqa: E402
from tests.unit.test_steady_state import EXPECTED, _series  # noqa: E402

CELLS = [("flat", 12, 0.03), ("flat", 30, 0.03), ("flat", 100, 0.03), ("flat", 30, 0.1),
         ("warmup", 12, 0.03), ("warmup", 30, 0.03), ("warmup", 100, 0.03), ("warmup", 30, 0.1),
         ("slowdown", 40, 0.03), ("slowdown", 40, 0.1), ("none", 40, 0.03), ("none", 40, 0.1),
         # a default micro process: 7 samples of 8 batches (56 values), or of 2 batches (14) at 10 ms
         ("flat", 56, 0.03), ("flat", 56, 0.1), ("warmup", 56, 0.03), ("warmup", 56, 0.1),
         ("slowdown", 56, 0.1), ("none", 56, 0.1), ("flat", 14, 0.03), ("warmup", 14, 0.03)]
PLANS = [(0.02, 0.01), (0.05, 0.02), (0.01, 0.01), (0.03, 0.005)]


def _rates(kind: str, n: int, sigma: float, series: int, step: float, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    right = close = 0
    for _ in range(series):
        xs, start = _series(kind, n, sigma, rng)
        fit = classify_series(xs, min_step=step)
        assert fit is not None
        right += fit.classification == EXPECTED[kind]
        close += fit.steady_start is not None and start is not None and abs(fit.steady_start - start) <= 2
    return right / series, close / series


def _power(n: int, log_sd: float, effect: float, runs: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(runs):
        machine = rng.normal(0.0, 0.05, n)
        b = np.exp(machine + rng.normal(0.0, log_sd / math.sqrt(2), n))
        c = np.exp(machine + rng.normal(0.0, log_sd / math.sqrt(2), n) + math.log1p(effect))
        r = compare_paired(b.tolist(), c.tolist(), threshold=0.0, resamples=200)
        found += r.significant and r.ratio is not None and r.ratio > 1
    return found / runs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", type=int, default=300, help="series per steady-state cell")
    p.add_argument("--runs", type=int, default=1000, help="simulated runs per plan")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--no-plans", action="store_true", help="only the steady-state table")
    a = p.parse_args()
    print("| truth | samples | σ | right (1%) | right (5%) | length (1% / 5%) |")
    print("|---|---|---|---|---|---|")
    for kind, n, sigma in CELLS:
        r1, c1 = _rates(kind, n, sigma, a.series, 0.01, a.seed)
        r5, c5 = _rates(kind, n, sigma, a.series, 0.05, a.seed)
        length = f"{c1:.1%} / {c5:.1%}" if kind == "warmup" else "–"
        print(f"| {kind} | {n} | {sigma:.0%} | {r1:.1%} | {r5:.1%} | {length} |")
    if a.no_plans:
        return
    print()
    print("| σ of log-ratios | effect | planned blocks | power found |")
    print("|---|---|---|---|")
    for i, (sd, effect) in enumerate(PLANS):
        n = blocks_for_power(sd, effect)
        assert n is not None
        print(f"| {sd:.0%} | {effect:.1%} | {n} | {_power(n, sd, effect, a.runs, a.seed + i):.1%} |")


if __name__ == "__main__":
    main()
