"""How many pyperformance benchmarks `pairbench micro` runs unchanged across two CPython builds.

    PYTHONPATH=src python3 bench/micro_breadth.py [--python A --python B] [--only NAME ...]

Every `bm_*` directory of the installed pyperformance (pip install pyperformance==1.14.0) is run on
its own (`pairbench micro bm_NAME --python A --python B`) at the smallest settings: one block, two
samples of 10 ms per process, no warm-up sample, no allocation pass. Each benchmark (a directory
may hold several, through its metafiles) ends in one outcome:
  both      measured on both interpreters;
  one       measured on one, the other's error reported (and shown);
  neither   listed or calibrated on neither (the error is shown);
  skipped   skipped by both, as pyperformance skips it: its requires-python excludes them;
  timeout   the directory did not finish in its time (--timeout seconds per benchmark in it).
Directories are counted apart by whether they need third-party packages (a requirements.txt):
the acceptance figure is for the dependency-free ones, which need nothing beyond the interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALLEST = ["--runs", "1", "--samples", "2", "--warmup-samples", "0", "--target-time", "0.01", "--no-alloc"]


def benchmarks_root() -> Path:
    import pyperformance

    return Path(pyperformance.__file__).parent / "data-files" / "benchmarks"


def benchmark_count(directory: Path) -> int:
    """How many benchmarks the directory holds (its pyproject.toml and bm_*.toml metafiles)."""
    return 1 + len(list(directory.glob("bm_*.toml")))


def run_directory(directory: Path, pythons: list[str], timeout: float) -> tuple[dict[str, str], str]:
    """(benchmark -> outcome, the error text) for one bm_* directory, `timeout` s per benchmark."""
    timeout *= benchmark_count(directory)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="200", NO_COLOR="1")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        flags = [f for p in pythons for f in ("--python", p)]
        argv = [sys.executable, "-m", "pairbench", "micro", str(directory), *flags, *SMALLEST,
                "--export-json", str(out), "--no-history", "--no-progress"]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {directory.name[3:]: "timeout"}, f"over {timeout:.0f} s"
        errors = " | ".join(line for line in (proc.stdout + proc.stderr).splitlines()
                            if line.startswith(("error", "warning [")) and "load average" not in line)
        if not out.is_file():
            return {directory.name[3:]: "neither"}, errors
        run = json.loads(out.read_text())
    variants = [v["name"] for v in run["variants"]]
    measured: dict[str, set[str]] = {}
    for s in run["samples"]:
        if s["metric"] == "time_per_op" and not s.get("warmup"):
            measured.setdefault(s["benchmark"], set()).add(s["variant"])
    skipped = {n["benchmark"] for n in run.get("notices", []) if "needs Python" in n.get("message", "")}
    outcomes = {}
    for b in run["benchmarks"]:
        got = measured.get(b["name"], set())
        outcomes[b["name"]] = ("both" if len(got) == len(variants) else "one" if got
                               else "skipped" if b["name"] in skipped else "neither")
    return outcomes or {directory.name[3:]: "neither"}, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[])
    parser.add_argument("--only", action="append", default=[], help="bm_* names to run (default: all)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per benchmark of a directory")
    args = parser.parse_args()
    pythons = args.python or ["/usr/bin/python3", sys.executable]
    root = benchmarks_root()
    dirs = sorted(d for d in root.iterdir() if d.is_dir() and d.name.startswith("bm_")
                  and (not args.only or d.name[3:] in args.only))
    counts: dict[str, Counter[str]] = {"dependency-free": Counter(), "with requirements": Counter()}
    dir_counts: dict[str, Counter[str]] = {"dependency-free": Counter(), "with requirements": Counter()}
    started = time.time()
    for d in dirs:
        group = "with requirements" if (d / "requirements.txt").is_file() else "dependency-free"
        t0 = time.time()
        outcomes, errors = run_directory(d, pythons, args.timeout)
        counts[group].update(outcomes.values())
        worst = "both" if all(o in ("both", "skipped") for o in outcomes.values()) else "not all on both"
        dir_counts[group][worst] += 1
        line = ", ".join(f"{k} {v}" for k, v in outcomes.items())
        print(f"{d.name:32} {group:18} {time.time() - t0:6.1f} s  {line}", flush=True)
        if errors and worst != "both":
            print(f"    {errors[:400]}", flush=True)
    print()
    print(f"interpreters: {' vs '.join(pythons)}; {time.time() - started:.0f} s in all")
    for group in counts:
        dirs_total = sum(dir_counts[group].values())
        print(f"{group:18} directories {dirs_total:3}: all benchmarks on both {dir_counts[group]['both']:3}   "
              f"benchmarks: " + ", ".join(f"{k} {v}" for k, v in sorted(counts[group].items())))


if __name__ == "__main__":
    main()
