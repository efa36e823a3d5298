"""Do pairbench's ratios for pyperformance benchmarks agree with pyperf's own, same machine, same run?

    PYTHONPATH=src python3 bench/pyperf_agreement.py [--base /usr/bin/python3] [--cand python3] [--rounds 2]

For chaos, nbody and unpack_sequence: pyperf's own runs (`run_benchmark.py --fast -o FILE` under
each interpreter with the real pyperf, then `pyperf compare_to`) and `pairbench micro bm_NAME
--python BASE --python CAND`, tools alternating in shuffled order, `--rounds` times. Printed per
benchmark: each tool's ratio candidate / baseline (median over rounds) and their difference.
Target (issue 17): within 3%.

The real pyperf comes from the interpreter running this script (`import pyperf`); an interpreter
without it gets it on PYTHONPATH (pyperf is pure Python), so both run the same pyperf.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("chaos", "nbody", "unpack_sequence")


def _pyperf_path(tmp: Path) -> str:
    """A directory holding only the real pyperf, for PYTHONPATH."""
    import pyperf

    link = tmp / "realpyperf"
    link.mkdir(exist_ok=True)
    target = link / "pyperf"
    if not target.exists():
        target.symlink_to(Path(pyperf.__file__).parent)
    return str(link)


def pyperf_ratio(script: Path, base: str, cand: str, tmp: Path) -> float:
    """pyperf's ratio of mean times, candidate / baseline, as `pyperf compare_to` reports it."""
    env = dict(os.environ, PYTHONPATH=_pyperf_path(tmp))
    files = []
    for i, exe in enumerate((base, cand)):
        out = tmp / f"pyperf-{script.parent.name}-{i}.json"
        out.unlink(missing_ok=True)
        subprocess.run([exe, str(script), "--fast", "--quiet", "-o", str(out)], check=True, env=env,
                       capture_output=True, timeout=1200)
        files.append(out)
    # compare_to's figure is changed.mean() / ref.mean() (pyperf/_compare.py, norm_mean), printed
    # to two decimals ("1.07x slower"); the same ratio from the files keeps four.
    import pyperf

    means = [pyperf.Benchmark.load(str(f)).mean() for f in files]
    proc = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(files[0]), str(files[1])],
                          check=True, capture_output=True, text=True)
    verdict = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"
    print(f"    pyperf compare_to: {verdict}", flush=True)
    return means[1] / means[0]


def pairbench_ratio(directory: Path, base: str, cand: str, tmp: Path) -> float:
    """pairbench's estimated ratio, candidate / baseline, of time per op."""
    out = tmp / f"pairbench-{directory.name}.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    subprocess.run([sys.executable, "-m", "pairbench", "micro", str(directory), "--python", base, "--python",
                    cand, "--no-alloc", "--no-history", "--no-progress", "--export-json", str(out)],
                   check=True, env=env, capture_output=True, timeout=1800)
    run = json.loads(out.read_text())
    (c,) = [c for c in run["comparisons"] if c["metric"] == "time_per_op"]
    return float(c["ratio"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="/usr/bin/python3")
    parser.add_argument("--cand", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    import pyperformance

    root = Path(pyperformance.__file__).parent / "data-files" / "benchmarks"
    names = args.only or list(BENCHMARKS)
    ratios: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for r in range(args.rounds):
            jobs = [(name, tool) for name in names for tool in ("pyperf", "pairbench")]
            random.Random(r).shuffle(jobs)
            for name, tool in jobs:
                d = root / f"bm_{name}"
                value = (pyperf_ratio(d / "run_benchmark.py", args.base, args.cand, tmp) if tool == "pyperf"
                         else pairbench_ratio(d, args.base, args.cand, tmp))
                ratios.setdefault((name, tool), []).append(value)
                print(f"round {r + 1} {name:16} {tool:9} ratio {value:.4f}", flush=True)
    print(f"\n{args.cand} / {args.base}, median over {args.rounds} rounds; spread = (max - min) / median "
          "of each tool's ratios across the rounds")
    print(f"{'benchmark':16} {'pyperf':>8} {'pairbench':>10} {'difference':>11} {'pyperf spread':>14} "
          f"{'pairbench spread':>17}")
    for name in names:
        a_all, b_all = ratios[(name, "pyperf")], ratios[(name, "pairbench")]
        a, b = statistics.median(a_all), statistics.median(b_all)
        print(f"{name:16} {a:8.4f} {b:10.4f} {100 * (b / a - 1):+10.1f}% {100 * (max(a_all) - min(a_all)) / a:13.1f}% "
              f"{100 * (max(b_all) - min(b_all)) / b:16.1f}%")


if __name__ == "__main__":
    main()
