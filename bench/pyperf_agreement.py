"""Do pairbench's ratios for pyperformance benchmarks agree with pyperf's own, same machine, same run?

    PYTHONPATH=src python3 bench/pyperf_agreement.py [--base /usr/bin/python3] [--cand python3] [--rounds 2]
        [--only NAME] [--pyperf-processes 20 | --sequential] [--pairbench-runs N]

For chaos, nbody and unpack_sequence: pyperf's own runs of pyperformance's `run_benchmark.py` with
the real pyperf, then `pyperf compare_to`, and `pairbench micro bm_NAME --python BASE --python
CAND`, tools alternating in shuffled order, `--rounds` times. Printed per benchmark: each tool's
ratio candidate / baseline (median over rounds), their difference and each one's spread over rounds.
Target (issue 17): within 3%.

pyperf's runs are interleaved by default: one calibration of the loop count on the baseline, then
`--processes 1 --loops N --append FILE` calls alternating the two interpreters in ABBA order,
`--pyperf-processes` per interpreter, so a slow phase of the machine lands on both sides (pyperf's
own design runs every process of one interpreter before the other's). `--sequential` keeps that
design: `run_benchmark.py --fast -o FILE` under each interpreter in turn.

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


def _pyperf_files(script: Path, exes: tuple[str, str], tmp: Path) -> list[Path]:
    """Fresh output paths, one per interpreter."""
    files = [tmp / f"pyperf-{script.parent.name}-{i}.json" for i in range(len(exes))]
    for f in files:
        f.unlink(missing_ok=True)
    return files


def _sequential_runs(script: Path, exes: tuple[str, str], tmp: Path) -> list[Path]:
    """pyperf's own design: every process of one interpreter, then every process of the other."""
    env = dict(os.environ, PYTHONPATH=_pyperf_path(tmp))
    files = _pyperf_files(script, exes, tmp)
    for exe, out in zip(exes, files):
        subprocess.run([exe, str(script), "--fast", "--quiet", "-o", str(out)], check=True, env=env,
                       capture_output=True, timeout=1200)
    return files


def _calibrated_loops(script: Path, exe: str, tmp: Path) -> int:
    """One calibration of the outer loop count on the baseline, shared by both (`--same-loops`)."""
    env = dict(os.environ, PYTHONPATH=_pyperf_path(tmp))
    out = tmp / f"calibrate-{script.parent.name}.json"
    out.unlink(missing_ok=True)
    subprocess.run([exe, str(script), "--processes", "1", "--values", "1", "--warmups", "1", "--quiet",
                    "-o", str(out)], check=True, env=env, capture_output=True, timeout=600)
    import pyperf

    return int(max(run.get_loops() for run in pyperf.Benchmark.load(str(out)).get_runs()))


def _interleaved_runs(script: Path, exes: tuple[str, str], tmp: Path, processes: int) -> list[Path]:
    """One worker process per call, interpreters alternating ABBA, at one shared loop count."""
    env = dict(os.environ, PYTHONPATH=_pyperf_path(tmp))
    loops = _calibrated_loops(script, exes[0], tmp)
    files = _pyperf_files(script, exes, tmp)
    for k in range(processes):
        order = (0, 1) if k % 2 == 0 else (1, 0)
        for i in order:
            subprocess.run([exes[i], str(script), "--processes", "1", "--loops", str(loops), "--quiet",
                            "--append", str(files[i])], check=True, env=env, capture_output=True,
                           timeout=600)
    print(f"    pyperf interleaved: {processes} processes per interpreter, --loops {loops}", flush=True)
    return files


POOLED: dict[str, list[tuple[float, float]]] = {}
"""Per benchmark, each round's pyperf means (baseline, candidate): the rounds pooled, as one longer run."""


def pyperf_ratio(script: Path, base: str, cand: str, tmp: Path, processes: int = 0) -> float:
    """pyperf's ratio of mean times, candidate / baseline, as `pyperf compare_to` reports it.

    processes > 0: interleaved calls, that many per interpreter; 0: pyperf's sequential design.
    """
    files = (_interleaved_runs(script, (base, cand), tmp, processes) if processes
             else _sequential_runs(script, (base, cand), tmp))
    # compare_to's figure is changed.mean() / ref.mean() (pyperf/_compare.py, norm_mean), printed
    # to two decimals ("1.07x slower"); the same ratio from the files keeps four.
    import pyperf

    benches = [pyperf.Benchmark.load(str(f)) for f in files]
    means = [b.mean() for b in benches]
    POOLED.setdefault(script.parent.name.removeprefix("bm_"), []).append((means[0], means[1]))
    print("    pyperf values: " + ", ".join(f"{b.mean():.4g} s \u00b1 {100 * b.stdev() / b.mean():.1f}% "
                                           f"({len(b.get_values())} values)" for b in benches), flush=True)
    proc = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(files[0]), str(files[1])],
                          check=True, capture_output=True, text=True)
    verdict = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"
    print(f"    pyperf compare_to: {verdict}", flush=True)
    return means[1] / means[0]


def pairbench_ratio(directory: Path, base: str, cand: str, tmp: Path, runs: int = 0) -> float:
    """pairbench's estimated ratio, candidate / baseline, of time per op (runs > 0: that many blocks)."""
    out = tmp / f"pairbench-{directory.name}.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    subprocess.run([sys.executable, "-m", "pairbench", "micro", str(directory), "--python", base, "--python",
                    cand, "--no-alloc", "--no-history", "--no-progress", "--export-json", str(out)]
                   + (["--runs", str(runs)] if runs else []),
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
    parser.add_argument("--pyperf-processes", type=int, default=20,
                        help="interleaved pyperf: worker processes per interpreter per round")
    parser.add_argument("--pairbench-runs", type=int, default=0,
                        help="pairbench's blocks per round (default: its own default)")
    parser.add_argument("--sequential", action="store_true",
                        help="pyperf's own design: all of one interpreter, then the other (--fast)")
    args = parser.parse_args()
    if args.pyperf_processes < 1:
        parser.error("--pyperf-processes must be at least 1")
    processes = 0 if args.sequential else args.pyperf_processes
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
                script = d / "run_benchmark.py"
                value = (pyperf_ratio(script, args.base, args.cand, tmp, processes) if tool == "pyperf"
                         else pairbench_ratio(d, args.base, args.cand, tmp, args.pairbench_runs))
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
    print("\npooled over the rounds (pyperf: ratio of the means of all values; pairbench: geometric mean "
          "of the rounds' ratios, the rounds being of equal size):")
    for name in names:
        pairs = POOLED.get(name, [])
        a = sum(c for _, c in pairs) / sum(b for b, _ in pairs)
        b = statistics.geometric_mean(ratios[(name, "pairbench")])
        print(f"{name:16} {a:8.4f} {b:10.4f} {100 * (b / a - 1):+10.1f}%")
    print("\nper round (pyperf | pairbench):")
    for name in names:
        print(f"{name:16} " + " ".join(f"{v:.4f}" for v in ratios[(name, "pyperf")]) + " | "
              + " ".join(f"{v:.4f}" for v in ratios[(name, "pairbench")]))


if __name__ == "__main__":
    main()
