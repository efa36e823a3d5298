"""What a whole `pairbench cmd` call costs beside hyperfine's, in the same run: wall time and peak RSS.

    PYTHONPATH=src python3 bench/overhead.py [--rounds 5] [--runs 300] [--sleep-rounds 3]

Prints, from one run of this script:
  1. `cmd -N -r RUNS -w 0 true true` (2 x RUNS runs of /bin/true) and `hyperfine -N -r RUNS -w 0
     true true`, in alternating turns (the order shuffled per round): each tool's median whole-call
     wall time (the time of the process, start to exit), CPU time (user + system, the processes it
     waited for included: steadier than wall time on a busy machine) and peak RSS (`/usr/bin/time
     -f %M`: the largest of the tool's own and of every process it waited for, its launcher
     included), and the ratios pairbench / hyperfine. Targets (docs/measurement.md): time <= 1.5x, peak RSS <= 50 MB.
  1b. The same at -r 2, so that
  3. each tool's cost of one more run ((T(RUNS) - T(2)) / (2 (RUNS - 2))) and its fixed cost (the
     rest of the call at -r 2: start, imports, analysis, report) are told apart.
  2. The same for a default two-command run, `cmd 'sleep 0.01' 'sleep 0.012'` against
     `hyperfine 'sleep 0.01' 'sleep 0.012'` (each with its own default run count and stopping).

pairbench runs as an installed package does: bytecode cached (PYTHONPYCACHEPREFIX, compiled by a
first call that is not counted; with PYTHONDONTWRITEBYTECODE every call would compile ~140
modules anew), history and run files written as by default (into a temporary XDG_DATA_HOME),
output to a pipe as under CI (no progress bar). Needs hyperfine and /usr/bin/time (Debian
packages `hyperfine`, `time`).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME = "/usr/bin/time"
FEWEST = 2
"""The fewest runs of each command both tools take (pairbench's analysis needs two blocks)."""


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    env["XDG_DATA_HOME"] = str(tmp / "data")
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _call(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Whole-call wall time (s), CPU time (user + system, s, the processes it waited for included)
    and peak RSS (KiB) of one call."""
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%U %S %M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env, timeout=900)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:8])}...: exit {done.returncode}: {done.stderr[-800:]}")
    user, system, peak = done.stderr.split()[-3:]
    return wall, float(user) + float(system), int(peak)


def _side_by_side(title: str, tools: dict[str, list[str]], rounds: int, env: dict[str, str],
                  rng: random.Random) -> dict[str, float]:
    """Prints the tools' figures side by side; returns each tool's median wall time."""
    walls: dict[str, list[float]] = {name: [] for name in tools}
    cpus: dict[str, list[float]] = {name: [] for name in tools}
    peaks: dict[str, list[int]] = {name: [] for name in tools}
    for _ in range(rounds):
        order = list(tools)
        rng.shuffle(order)
        for name in order:
            wall, cpu, peak = _call(tools[name], env)
            walls[name].append(wall)
            cpus[name].append(cpu)
            peaks[name].append(peak)
    ours, theirs = (statistics.median(walls[n]) for n in tools)
    our_cpu, their_cpu = (statistics.median(cpus[n]) for n in tools)
    our_peak, their_peak = (statistics.median(peaks[n]) for n in tools)
    print(f"{title} ({rounds} alternating rounds; medians, and the wall time of each round)")
    print(f"   {'':9s} {'wall':>9s}  {'CPU':>9s}  {'peak RSS':>10s}")
    for name in tools:
        print(f"   {name:9s} {statistics.median(walls[name]):7.3f} s  {statistics.median(cpus[name]):7.3f} s  "
              f"{statistics.median(peaks[name]) / 1024:6.1f} MiB   per round: {[round(w, 3) for w in walls[name]]} s")
    print(f"   ratio     {ours / theirs:7.2f} x  {our_cpu / max(their_cpu, 0.01):7.2f} x  {our_peak / their_peak:6.1f} x     "
          f"(targets: wall <= 1.5x; pairbench's peak <= 50 MB: {our_peak * 1024 / 1e6:.1f} MB)")
    return {name: statistics.median(walls[name]) for name in tools}


def _per_run(many: dict[str, float], few: dict[str, float], runs: int, fewer: int) -> None:
    """Each tool's cost of one more run and its fixed cost, from its calls at two run counts."""
    print(f"3. cost of a run and fixed cost, from the calls at -r {fewer} and -r {runs} (medians)")
    per = {name: (many[name] - few[name]) / (2 * (runs - fewer)) for name in many}
    fixed = {name: few[name] - 2 * fewer * per[name] for name in many}
    for name in many:
        print(f"   {name:9s} {per[name] * 1e3:6.3f} ms a run   {fixed[name]:6.3f} s fixed")
    ours, theirs = list(many)
    print(f"   ratio     {per[ours] / per[theirs]:6.2f} x        {fixed[ours] / max(fixed[theirs], 1e-9):6.1f} x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of the /bin/true call")
    parser.add_argument("--runs", type=int, default=300, help="runs of each command in the /bin/true call")
    parser.add_argument("--sleep-rounds", type=int, default=3, help="rounds of the default two-command call")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for tool in ("hyperfine", TIME):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed", file=sys.stderr)
            return 1
    pairbench = [sys.executable, "-m", "pairbench", "cmd"]
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="pairbench-overhead-") as tmp:
        env = _env(Path(tmp))
        _call([*pairbench, "-N", "-r", "2", "-w", "0", "true", "true"], env)  # compiles and caches the bytecode
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start")
        runs = str(args.runs)
        many = _side_by_side(f"1. 2 x {runs} runs of /bin/true: `cmd -N -r {runs} -w 0 true true`",
                             {"pairbench": [*pairbench, "-N", "-r", runs, "-w", "0", "true", "true"],
                              "hyperfine": ["hyperfine", "-N", "-r", runs, "-w", "0", "true", "true"]},
                             args.rounds, env, rng)
        few = _side_by_side(f"1b. the same at -r {FEWEST}",
                            {"pairbench": [*pairbench, "-N", "-r", str(FEWEST), "-w", "0", "true", "true"],
                             "hyperfine": ["hyperfine", "-N", "-r", str(FEWEST), "-w", "0", "true", "true"]},
                            args.rounds, env, rng)
        _side_by_side("2. default run: `cmd 'sleep 0.01' 'sleep 0.012'`",
                      {"pairbench": [*pairbench, "sleep 0.01", "sleep 0.012"],
                       "hyperfine": ["hyperfine", "sleep 0.01", "sleep 0.012"]},
                      args.sleep_rounds, env, rng)
        _per_run(many, few, args.runs, FEWEST)
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
