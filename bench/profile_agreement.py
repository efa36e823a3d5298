#!/usr/bin/env python3
"""Does `--profile` leave the verdict alone? The same comparison with and without it, side by side.

Workload: the exact-work C loop (bench/exact_loop.py, compiled here): `loop N` against `loop 1.05N`
(exactly 5% more work; `--change` sets it) and `loop N` against itself (A/A). Each cell (a pair and
a trial) runs `pairbench cmd` twice with the same `--seed` and the same fixed budget (`-r RUNS`
blocks, or `--max-time T` with `-r` as the minimum): once plain and once with `--profile`, in a
random order per cell (half the cells start with each), the cells themselves shuffled. The
profiling blocks run apart from the timed ones and outside the budget (docs/profiles.md), so the
two runs of a cell should give the same verdict and each ratio should lie inside the other run's
95% CI, within the machine's noise; their only cost is the profiled runs' wall time.

Printed per cell: each run's verdict, ratio, 95% CI and wall time (the profiled run's time spent
in profiled runs in brackets), whether the verdicts are the same and whether each ratio lies in
the other's CI; then per pair a summary (counts of agreement, median ratios and CI widths, mean
times).

    python3 bench/profile_agreement.py                          # 10 trials, 20 blocks (~10-15 minutes)
    python3 bench/profile_agreement.py --trials 1 --runs 8      # a check that it runs
    python3 bench/profile_agreement.py --max-time 10 --trials 10 --json > agreement.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_loop import compile_loop  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ARMS = ("plain", "profile")


def _one(loop: Path, n_base: int, n_cand: int, arm: str, seed: int, a: argparse.Namespace, out: Path,
         env: dict[str, str]) -> dict[str, Any]:
    """One `pairbench cmd` run; its time comparison, wall time and profiles from its run file."""
    argv = [sys.executable, "-m", "pairbench", "cmd", "-N", f"{loop} {n_base}", f"{loop} {n_cand}", "-n", "A",
            "-n", "B", "-r", str(a.runs), "-w", "1", "--seed", str(seed), "--no-history", "--no-progress",
            "--export-json", str(out)]
    if a.max_time is not None:
        argv += ["--max-time", str(a.max_time)]
    if arm == "profile" and not a.control:
        argv += ["--profile", "--profile-blocks", str(a.profile_blocks)]
    started = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"pairbench exited {proc.returncode} ({arm}): {proc.stderr.strip()[-600:]}")
    doc = json.loads(out.read_text())
    c = next(c for c in doc["comparisons"] if c["metric"] == "time")
    profiles = doc.get("profiles") or []
    timed = sum(1 for s in doc["samples"] if s["metric"] == "time" and not s.get("warmup"))
    return {"verdict": c["verdict"], "ratio": c["ratio"], "ci": list(c["ci"]), "wall_s": wall,
            "blocks": doc["metadata"].get("blocks"), "timed_samples": timed,
            "profiled_s": sum(float(p.get("seconds") or 0.0) for p in profiles),
            "sampler": profiles[0]["sampler"] if profiles else ""}


def _inside(ratio: float, ci: list[float]) -> bool:
    return ci[0] <= ratio <= ci[1]


def _cell_row(pair: str, trial: int, first: str, runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    p, q = runs["plain"], runs["profile"]
    return {"pair": pair, "trial": trial, "first": first, "plain": p, "profile": q,
            "same_verdict": p["verdict"] == q["verdict"],
            "plain_in_profile_ci": _inside(p["ratio"], q["ci"]),
            "profile_in_plain_ci": _inside(q["ratio"], p["ci"])}


def _fmt_run(r: dict[str, Any]) -> str:
    extra = f" [{r['profiled_s']:.1f} s profiled, {r['sampler']}]" if r["sampler"] else ""
    return (f"{r['verdict']:<12} {r['ratio']:.4f} [{r['ci'][0]:.4f}, {r['ci'][1]:.4f}] "
            f"{r['blocks']} blocks {r['wall_s']:6.1f} s{extra}")


def _print_row(row: dict[str, Any]) -> None:
    yes = {True: "yes", False: "NO"}
    print(f"{row['pair']:<6} trial {row['trial'] + 1:<3} ({row['first']} first)\n"
          f"    plain    {_fmt_run(row['plain'])}\n"
          f"    profile  {_fmt_run(row['profile'])}\n"
          f"    same verdict: {yes[row['same_verdict']]}; plain ratio in the profiled CI: "
          f"{yes[row['plain_in_profile_ci']]}; profiled ratio in the plain CI: {yes[row['profile_in_plain_ci']]}"
          + ("" if row["plain"]["timed_samples"] == row["profile"]["timed_samples"] else
             f"; timed samples DIFFER ({row['plain']['timed_samples']} and {row['profile']['timed_samples']})"),
          flush=True)


def _summary(pair: str, rows: list[dict[str, Any]], truth: float) -> None:
    n = len(rows)
    print(f"\n{pair} (truth: ratio {truth:.2f} in work), {n} trial{'s' if n != 1 else ''}:")
    for arm in ARMS:
        runs = [r[arm] for r in rows]
        verdicts: dict[str, int] = {}
        for r in runs:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        halves = [(math.log(r["ci"][1]) - math.log(r["ci"][0])) / 2 * 100 for r in runs if min(r["ci"]) > 0]
        profiled = statistics.mean(r["profiled_s"] for r in runs)
        print(f"  {arm:<8} verdicts {', '.join(f'{v} {k}' for v, k in sorted(verdicts.items()))}; "
              f"median ratio {statistics.median(r['ratio'] for r in runs):.4f}; "
              f"median CI half-width {statistics.median(halves) if halves else float('nan'):.2f}%; "
              f"mean wall {statistics.mean(r['wall_s'] for r in runs):.1f} s"
              + (f" (of which {profiled:.1f} s in profiled runs)" if profiled else ""))
    same = sum(r["same_verdict"] for r in rows)
    inside = sum(r["plain_in_profile_ci"] for r in rows)
    back = sum(r["profile_in_plain_ci"] for r in rows)
    diffs = [abs(math.log(r["profile"]["ratio"] / r["plain"]["ratio"])) * 100 for r in rows]
    print(f"  same verdict {same}/{n}; plain ratio in the profiled CI {inside}/{n}; "
          f"profiled ratio in the plain CI {back}/{n}; median |ratio difference| {statistics.median(diffs):.2f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10, help="cells per pair (default 10)")
    ap.add_argument("--runs", type=int, default=20, help="-r: timed blocks of every run (default 20)")
    ap.add_argument("--max-time", type=float, default=None, help="--max-time of every run (default: none, -r fixed)")
    ap.add_argument("--profile-blocks", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=500_000_000,
                    help="the baseline's loop count (default 5e8, about 0.3 s: long enough to sample)")
    ap.add_argument("--change", type=float, default=5.0, help="the candidate's extra work in %% (default 5)")
    ap.add_argument("--pairs", default="change,aa", help="which pairs: change (+CHANGE%%), aa (A/A)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print each cell as a JSON line instead")
    ap.add_argument("--control", action="store_true",
                    help="the 'profile' arm runs without --profile too: how often two plain runs differ alike")
    a = ap.parse_args()
    if shutil.which("cc") is None:
        print("a C compiler (cc) is needed to build the loop", file=sys.stderr)
        return 1
    rng = random.Random(a.seed)
    tmp = Path(tempfile.mkdtemp(prefix="pb-profile-agreement-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    try:
        loop = compile_loop(tmp)
        n = a.iterations
        pairs = {"change": (f"+{a.change:g}%", n, round(n * (1 + a.change / 100))), "aa": ("A/A", n, n)}
        chosen = [pairs[p] for p in a.pairs.split(",")]
        cells = [(label, nb, nc, t) for label, nb, nc in chosen for t in range(a.trials)]
        rng.shuffle(cells)
        firsts = [ARMS[i % 2] for i in range(len(cells))]  # half the cells start plain, half profiled
        rng.shuffle(firsts)
        rows: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in chosen}
        if not a.json:
            load = os.getloadavg()[0]
            print(f"{len(cells)} cells, -r {a.runs}" + (f", --max-time {a.max_time:g}" if a.max_time else "")
                  + f", {a.profile_blocks} profiling blocks, loop {n:.3g} iterations; load average {load:.2f} "
                  f"on {os.cpu_count()} CPUs at the start"
                  + ("\ncontrol: the 'profile' arm runs without --profile (two plain runs side by side)" if a.control
                     else ""), flush=True)
        for i, ((label, nb, nc, trial), first) in enumerate(zip(cells, firsts)):
            order = (first, ARMS[1 - ARMS.index(first)])
            seed = a.seed * 1000 + i
            runs = {arm: _one(loop, nb, nc, arm, seed, a, tmp / f"{i}-{arm}.json", env) for arm in order}
            row = _cell_row(label, trial, first, runs)
            rows[label].append(row)
            if a.json:
                print(json.dumps(row), flush=True)
            else:
                _print_row(row)
        if not a.json:
            for label, nb, nc in chosen:
                _summary(label, sorted(rows[label], key=lambda r: r["trial"]), nc / nb)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
