"""pairbench micro's per-op overhead and run-to-run spread, next to timeit and pyperf timeit.

    PYTHONPATH=src python3 bench/micro_overhead.py [--repeat 5] [--python python3] [--pyperf-mode fast]

For an empty statement and a ~50 ns statement, every tool measures the statement `--repeat`
times, in one run, the tools' turns shuffled within each round so that machine drift hits them
alike. Reported per tool:
  per op     median over the rounds of the time per operation the tool reports;
             for `pass` this is the tool's overhead per op (timeit and pyperf include the loop,
             pairbench subtracts the empty loop it measures).
  spread     coefficient of variation of the rounds' values (run-to-run reproducibility).
  vs timeit  per-op ratio to timeit;  vs pyperf: spread ratio to pyperf.
Targets (issue 5): overhead no larger than timeit's, spread no larger than pyperf's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
SETUP = "s = 'hello world'"
STATEMENTS = {"pass": "pass", "s.upper()": "s.upper()"}
UNITS = {"nsec": 1e-9, "ns": 1e-9, "usec": 1e-6, "us": 1e-6, "msec": 1e-3, "ms": 1e-3, "sec": 1.0, "s": 1.0}


def _run(argv: list[str], env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])}...: exit {proc.returncode}: {proc.stderr[-500:]}")
    return proc.stdout


def measure_timeit(python: str, stmt: str) -> float:
    out = _run([python, "-m", "timeit", "-s", SETUP, stmt])
    m = re.search(r"best of \d+: ([\d.]+) (\w+) per loop", out)
    if not m:
        raise RuntimeError(f"timeit output not understood: {out!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def measure_pyperf(python: str, stmt: str, mode: str) -> float:
    flags = {"fast": ["--fast"], "rigorous": ["--rigorous"], "default": []}[mode]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pyperf.json"
        _run([python, "-m", "pyperf", "timeit", *flags, "-q", "-o", str(out), "-s", SETUP, stmt])
        doc = json.loads(out.read_text())
    values = [v for run in doc["benchmarks"][0]["runs"] for v in run.get("values", [])]
    return statistics.mean(values)


def measure_pairbench(python: str, stmt: str, clock: str, runs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
        _run([sys.executable, "-m", "pairbench", "micro", "-s", SETUP, stmt, "--python", python,
              "--runs", str(runs), "--clock", clock, "--no-history", "--export-json", str(out)], env)
        doc = json.loads(out.read_text())
    procs: dict[tuple[int, int], list[float]] = {}
    for s in doc["samples"]:
        if s["metric"] == "time_per_op" and not s["warmup"]:
            procs.setdefault((s["block"], s["replicate"]), []).append(s["value"])
    means = [sum(v) / len(v) for v in procs.values()]
    return math.exp(sum(math.log(m) for m in means) / len(means))


def fmt_time(seconds: float) -> str:
    for scale, unit in ((1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.2g} ns"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter measured by every tool")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (invocations of each tool per statement)")
    ap.add_argument("--pyperf-mode", choices=("fast", "default", "rigorous"), default="fast")
    ap.add_argument("--runs", type=int, default=6, help="pairbench blocks (processes) per invocation")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tools: dict[str, Callable[[str], float]] = {
        "timeit": lambda st: measure_timeit(args.python, st),
        f"pyperf timeit --{args.pyperf_mode}" if args.pyperf_mode != "default" else "pyperf timeit":
            lambda st: measure_pyperf(args.python, st, args.pyperf_mode),
        "pairbench micro (cpu clock)": lambda st: measure_pairbench(args.python, st, "cpu", args.runs),
        "pairbench micro (wall clock)": lambda st: measure_pairbench(args.python, st, "wall", args.runs),
    }
    rng = random.Random(args.seed)
    values: dict[tuple[str, str], list[float]] = {}
    seconds: dict[str, float] = {t: 0.0 for t in tools}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for r in range(args.repeat):
        for label, stmt in STATEMENTS.items():
            order = list(tools)
            rng.shuffle(order)
            for tool in order:
                t0 = time.monotonic()
                values.setdefault((label, tool), []).append(tools[tool](stmt))
                seconds[tool] += time.monotonic() - t0
        print(f"round {r + 1}/{args.repeat} done", file=sys.stderr)
    print(f"python: {args.python}; rounds: {args.repeat}; load average at start: {load:.2f} on {os.cpu_count()} CPUs")
    header = f"{'statement':<11} {'tool':<30} {'per op':>10} {'spread (CV)':>12} {'vs timeit':>10} {'spread vs pyperf':>17}"
    print(header)
    print("-" * len(header))
    pyperf_name = [t for t in tools if t.startswith("pyperf")][0]
    for label in STATEMENTS:
        med_timeit = statistics.median(values[(label, "timeit")])
        cv_pyperf = _cv(values[(label, pyperf_name)])
        for tool in tools:
            vs = values[(label, tool)]
            med, cv = statistics.median(vs), _cv(vs)
            print(f"{label:<11} {tool:<30} {fmt_time(med):>10} {cv * 100:>11.1f}% {med / med_timeit:>10.3f} "
                  f"{cv / cv_pyperf if cv_pyperf else float('nan'):>17.2f}")
    print("wall seconds per invocation: " + ", ".join(
        f"{t} {seconds[t] / (args.repeat * len(STATEMENTS)):.1f}" for t in tools))
    return 0


def _cv(values: list[float]) -> float:
    if len(values) < 2:
        return float("nan")
    return statistics.stdev(values) / statistics.mean(values)


if __name__ == "__main__":
    sys.exit(main())
