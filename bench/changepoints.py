#!/usr/bin/env python3
"""Change points: pairbench's detector (stats/changepoint.py) beside E-Divisive means, on synthetic
histories with known steps, with the precision and recall of each from the same series.

E-Divisive means (Matteson & James 2014, "A nonparametric approach for multiple change point
analysis of multivariate data", JASA 109(505)) is the method of MongoDB's
signal-processing-algorithms and of Apache Otava (Hunter). It is implemented here from the paper:
the divergence Q(τ) = τ(n−τ)/n · [2/(τ(n−τ)) Σ|X_i−Y_j| − 1/C(τ,2) Σ|X_i−X_k| − 1/C(n−τ,2) Σ|Y_j−Y_k|]
(α = 1), the best split of a segment kept when a permutation test (R permutations of the
segment) gives p ≤ 0.05, then both halves searched again (the paper's hierarchical procedure with
κ = the segment's end, as those tools use it). Input: each run's median, as those tools take one
value per run; pairbench's detector gets every run's values.

A detection is right when it lies within one run of a true step (each step counted once);
precision = right detections / detections, recall = steps found / steps. Fixed seeds.

    python3 bench/changepoints.py             # 200 series per case
    python3 bench/changepoints.py --series 50 # quicker
"""
from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from typing import Callable, Sequence

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from pairbench.stats.changepoint import find_change_points  # noqa: E402


def _q_all(x: np.ndarray, min_size: int) -> tuple[float, int]:
    """The largest Q(τ) of a segment and its τ (E-Divisive means, α = 1)."""
    n = len(x)
    d = np.abs(x[:, None] - x[None, :])
    s = np.zeros((n + 1, n + 1))
    s[1:, 1:] = d.cumsum(0).cumsum(1)

    def block(a: int, b: int, c: int, e: int) -> float:
        return float(s[b, e] - s[a, e] - s[b, c] + s[a, c])

    best = (-math.inf, -1)
    for t in range(min_size, n - min_size + 1):
        m = n - t
        between = 2.0 * block(0, t, t, n) / (t * m)
        left = block(0, t, 0, t) / (t * (t - 1)) if t > 1 else 0.0
        right = block(t, n, t, n) / (m * (m - 1)) if m > 1 else 0.0
        q = t * m / n * (between - left - right)
        if q > best[0]:
            best = (q, t)
    return best


def e_divisive(values: Sequence[float], *, alpha: float = 0.05, permutations: int = 199, min_size: int = 2,
               seed: int = 0) -> list[int]:
    """Change point indices (a step between i−1 and i) of a series by E-Divisive means."""
    rng = np.random.default_rng(seed)
    x = np.log(np.asarray(values, dtype=float))
    found: list[int] = []

    def search(lo: int, hi: int) -> None:
        seg = x[lo:hi]
        if len(seg) < 2 * min_size:
            return
        q, t = _q_all(seg, min_size)
        if t < 0:
            return
        hits = sum(_q_all(rng.permutation(seg), min_size)[0] >= q for _ in range(permutations))
        if (hits + 1) / (permutations + 1) > alpha:
            return
        found.append(lo + t)
        search(lo, lo + t)
        search(lo + t, hi)

    search(0, len(x))
    return sorted(found)


def _history(rng: random.Random, n: int, steps: dict[int, float], run_noise: float, stall: bool,
             values: int = 10) -> list[list[float]]:
    """n runs of `values` values; `steps` multiplies the level from a run on; optional 4x stall per run."""
    level, out = 1.0, []
    for i in range(n):
        level *= steps.get(i, 1.0)
        drift = math.exp(rng.gauss(0, run_noise))
        run = [0.03 * level * drift * rng.lognormvariate(0, 0.02) for _ in range(values)]
        if stall:
            run[rng.randrange(values)] *= 4
        out.append(run)
    return out


CASES: list[tuple[str, int, Callable[[random.Random, int], dict[int, float]], float, bool, int]] = [
    # name, runs, steps (from the seed), run-to-run noise, a stall per run, values per run
    ("flat, 30 runs, 1% noise", 30, lambda r, n: {}, 0.01, False, 10),
    ("flat, 30 runs, 1% noise, stalls", 30, lambda r, n: {}, 0.01, True, 10),
    ("2x step, 4 + 4 runs", 8, lambda r, n: {4: 2.0}, 0.01, False, 10),
    ("2x step, 4 + 4 runs, stalls", 8, lambda r, n: {4: 2.0}, 0.01, True, 10),
    ("2x step, 4 + 4 runs of 5 values, stalls", 8, lambda r, n: {4: 2.0}, 0.01, True, 5),
    ("+5% step at random, 30 runs", 30, lambda r, n: {r.randrange(5, n - 5): 1.05}, 0.01, False, 10),
    ("+10% step at random, 30 runs, 3% noise", 30, lambda r, n: {r.randrange(5, n - 5): 1.10}, 0.03, False, 10),
    ("two +20% steps, 40 runs", 40, lambda r, n: {12: 1.2, 28: 1.2}, 0.01, False, 10),
    ("+10% up then back, 30 runs", 30, lambda r, n: {10: 1.1, 20: 1 / 1.1}, 0.01, False, 10),
]


def _score(found: Sequence[int], truth: Sequence[int]) -> tuple[int, int]:
    """(right detections, steps found): a detection within one run of an unmatched step is right."""
    left = list(truth)
    right = 0
    for f in found:
        match = next((t for t in left if abs(t - f) <= 1), None)
        if match is not None:
            left.remove(match)
            right += 1
    return right, len(truth) - len(left)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--series", type=int, default=200, help="series per case (default 200)")
    ap.add_argument("--permutations", type=int, default=199, help="E-Divisive's permutations (default 199)")
    args = ap.parse_args()
    print(f"{args.series} series per case; precision = right detections / detections, recall = steps found / steps, "
          "false = series with a detection where there is no step\n")
    print("| history | pairbench precision | recall | false | ms/series | E-Divisive precision | recall | false | ms/series |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, n, steps_of, noise, stall, values in CASES:
        tally = {"pairbench": [0, 0, 0, 0, 0.0], "edm": [0, 0, 0, 0, 0.0]}  # right, found, detections, false, s
        n_true = 0
        for seed in range(args.series):
            rng = random.Random(seed)
            steps = steps_of(rng, n)
            runs = _history(rng, n, steps, noise, stall, values)
            truth = sorted(steps)
            n_true += len(truth)
            for method in tally:
                start = time.perf_counter()
                if method == "pairbench":
                    found = [c.index for c in find_change_points(runs)]
                else:
                    found = e_divisive([statistics.median(r) for r in runs], permutations=args.permutations, seed=seed)
                t = tally[method]
                t[4] += time.perf_counter() - start
                right, hit = _score(found, truth)
                t[0] += right
                t[1] += hit
                t[2] += len(found)
                t[3] += bool(found) and not truth
        cells = []
        for method in ("pairbench", "edm"):
            right, hit, det, false, secs = tally[method]
            precision = f"{right / det:.2f}" if det else "–"
            recall = f"{hit / n_true:.2f}" if n_true else "–"
            false_rate = f"{false / args.series:.1%}" if not n_true else "–"
            cells += [precision, recall, false_rate, f"{1000 * secs / args.series:.1f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
