#!/usr/bin/env python3
"""Family-wise A/A false-alarm rates: Holm families and adaptive stopping's looks (issue 10 §1).

Synthetic paired blocks with a known truth (identical variants): a per-block machine factor
shared by every variant (5% lognormal, which pairing cancels) and independent per-measurement
noise on the log scale (2%: normal, Student t with 3 df, 5% of measurements hit by a +35% stall,
or right-skewed lognormal). A Holm family is m candidates against one shared baseline (a sweep),
judged by `stats.family.compare_family`; adaptive stopping analyses at the looks
`plan_looks(n, 3n)` with `look_confidence(0.95, K)` and stops at the first settled verdict. A
false alarm is any faster/slower verdict. Fixed seeds; prints a Markdown table for
docs/statistics.md. tests/unit/test_stats_family_rates.py asserts the same with fewer runs.

    python3 bench/family_rates.py                  # 400 families / runs per cell, a few minutes
    python3 bench/family_rates.py --runs 100       # quicker
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from pairbench.stats.compare import compare_paired  # noqa: E402
from pairbench.stats.family import compare_family  # noqa: E402
from pairbench.stats.sequential import look_confidence, plan_looks  # noqa: E402

ALPHA = 0.05
NOISES = ("normal", "t3", "spikes", "skewed")
NS = (6, 8, 10, 15, 20, 30)
MS = (2, 6, 12)


def noise(rng: np.random.Generator, kind: str, size: tuple[int, ...], sigma: float = 0.02) -> np.ndarray:
    if kind == "normal":
        return rng.normal(0.0, sigma, size)
    if kind == "t3":
        return rng.standard_t(3, size) * sigma
    if kind == "spikes":
        return rng.normal(0.0, sigma, size) + (rng.random(size) < 0.05) * 0.3
    if kind == "skewed":
        return rng.lognormal(0.0, 1.0, size) * sigma
    raise ValueError(kind)


def family_rate(n: int, m: int, kind: str, runs: int, seed: int, resamples: int) -> float:
    rng = np.random.default_rng(seed)
    block = rng.normal(0.0, 0.05, (runs, 1, n))
    base = 0.03 * np.exp(block[:, 0] + noise(rng, kind, (runs, n)))
    cand = 0.03 * np.exp(block + noise(rng, kind, (runs, m, n)))
    alarms = 0
    for f in range(runs):
        members = compare_family([(base[f], cand[f, j], "lower") for j in range(m)], resamples=resamples)
        alarms += any(x.final.verdict in ("faster", "slower") for x in members)
    return alarms / runs


def looks_rate(n: int, kind: str, runs: int, seed: int, resamples: int) -> float:
    looks = plan_looks(n, 3 * n)
    level = look_confidence(1 - ALPHA, len(looks))
    rng = np.random.default_rng(seed)
    top = looks[-1]
    block = rng.normal(0.0, 0.05, (runs, top))
    base = 0.03 * np.exp(block + noise(rng, kind, (runs, top)))
    cand = 0.03 * np.exp(block + noise(rng, kind, (runs, top)))
    alarms = 0
    for s in range(runs):
        for k in looks:
            r = compare_paired(base[s, :k], cand[s, :k], confidence=level, resamples=resamples)
            if r.verdict in ("faster", "slower"):
                alarms += 1
                break
            if r.verdict == "same":
                break
    return alarms / runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=400, help="families (or stopping runs) per cell")
    ap.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per interval")
    args = ap.parse_args()
    t0 = time.time()
    se = math.sqrt(ALPHA * (1 - ALPHA) / args.runs)
    print(f"A/A family-wise false alarms, {args.runs} runs per cell (binomial SE at 5%: {se * 100:.2f} points)\n")
    cols = [f"Holm m={m}" for m in MS] + ["looks n..3n"]
    print("| n | noise | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    worst = 0.0
    for n in NS:
        for i, kind in enumerate(NOISES):
            rates = [family_rate(n, m, kind, args.runs, 100_000 + 1000 * m + 10 * n + i, args.resamples) for m in MS]
            rates.append(looks_rate(n, kind, args.runs, 200_000 + 10 * n + i, args.resamples))
            worst = max(worst, *rates)
            print(f"| {n} | {kind} | " + " | ".join(f"{r * 100:.1f}%" for r in rates) + " |", flush=True)
    print(f"\nworst cell {worst * 100:.1f}% (α + 3 SE = {(ALPHA + 3 * se) * 100:.1f}%); {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
