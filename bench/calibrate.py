#!/usr/bin/env python3
"""Does `pairbench calibrate` keep the promise of its band? Its δ beside the A/A false alarms it allows.

One calibration of a command (a C loop of fixed work, compiled here, or any command given) at a
budget, then K fresh A/A comparisons of the command with itself at the same budget, each judged
with `--threshold auto` (the calibrated δ) and, from the same run files, at δ = 0 (any CI that
excludes 0), which is what the band exists to tame. Prints the calibrated δ, the MDE it was based
on, and both false-alarm counts with a 95% Clopper-Pearson-style bound.

    python3 bench/calibrate.py                     # 10 s budget, 20 A/A runs (about 4 minutes)
    python3 bench/calibrate.py --budget 20 --trials 30 --command 'python3 -c pass'
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_loop import compile_loop  # noqa: E402

REPO = Path(__file__).resolve().parent.parent



def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pairbench", *args], capture_output=True, text=True, env=env)


def _upper(k: int, n: int) -> float:
    """One-sided 95% upper bound of a binomial rate (Wilson score), for k of n."""
    z, p = 1.645, k / n
    centre = p + z * z / (2 * n)
    return (centre + z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--command", help="command to calibrate (default: a ~5 ms C loop)")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pb-calibrate-"))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "PAIRBENCH_HISTORY": str(tmp / "h.sqlite")}
    try:
        command = a.command
        if command is None:
            compile_loop(tmp)
            command = f"{tmp / 'loop'} 5000000"
        cal = _cli("calibrate", "-N", command, "--max-time", str(a.budget), "--no-progress",
                   "--export-json", str(tmp / "aa.json"), env=env)
        if cal.returncode != 0:
            print(cal.stderr, file=sys.stderr)
            return 1
        print(cal.stdout.rstrip())
        delta = float(re.search(r"use δ = ([\d.]+)%", cal.stdout).group(1))  # type: ignore[union-attr]
        meaningful = significant = 0
        for i in range(a.trials):
            out = tmp / f"run{i}.json"
            r = _cli("cmd", "-N", command, command, "-n", "A", "-n", "A again", "--max-time", str(a.budget),
                     "--threshold", "auto", "--no-history", "--no-progress", "--export-json", str(out), env=env)
            if r.returncode != 0:
                print(r.stderr, file=sys.stderr)
                return 1
            c = next(c for c in json.loads(out.read_text())["comparisons"] if c["metric"] == "time")
            meaningful += bool(c["meaningful"])
            significant += bool(c["significant"])
            print(f"  A/A run {i + 1}: ratio {c['ratio']:.4f}  CI [{c['ci'][0]:.4f}, {c['ci'][1]:.4f}]  "
                  f"{c['verdict']}{' (meaningful)' if c['meaningful'] else ''}", flush=True)
        n = a.trials
        print(f"calibrated δ = {delta:g}% for {a.budget:g} s")
        print(f"A/A false alarms at δ = {delta:g}%: {meaningful} of {n} (95% upper bound {_upper(meaningful, n):.0%}); "
              f"promised: at most 5%")
        print(f"A/A runs whose CI excludes 0 (δ = 0): {significant} of {n}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
