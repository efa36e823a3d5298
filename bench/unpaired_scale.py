#!/usr/bin/env python3
"""`pairbench compare` of two hyperfine and two pyperf files with many values a side: wall time and
peak memory of the whole command (startup included), one process per measurement.

Unpaired comparisons select the Hodges-Lehmann shift and the Mann-Whitney interval from the m·n
differences without forming them (stats/pairwise.py) and count Kendall's S by merge sort; before,
20,000 values a side formed 4·10^8 differences (9.4 GB). The values carry outliers every 97th,
so the robust (Mann-Whitney) interval is the one chosen. Give `--src` another tree's `src` (a
checkout of an older commit) to measure it on the same files; the outputs are compared too.

    python3 bench/unpaired_scale.py                      # 20,000 values a side
    python3 bench/unpaired_scale.py --values 2000        # quicker
    python3 bench/unpaired_scale.py --src /tmp/old/src   # the same files with another tree
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _files(folder: str, n: int) -> dict[str, tuple[str, str]]:
    rng = np.random.default_rng(1)
    out: dict[str, tuple[str, str]] = {}
    for kind in ("hyperfine", "pyperf"):
        paths = []
        for side, scale in (("a", 1.0), ("b", 1.02)):
            t = scale * 0.01 * np.exp(rng.normal(0.0, 0.05, n))
            t[::97] *= 1.5
            if kind == "hyperfine":
                doc: dict[str, object] = {
                    "results": [{"command": "prog", "times": t.tolist(), "mean": float(t.mean())}]}
            else:
                doc = {"version": "1.0", "metadata": {"unit": "second", "name": "bench"},
                       "benchmarks": [{"metadata": {"name": "bench"},
                                       "runs": [{"metadata": {}, "values": [float(v)]} for v in t]}]}
            path = os.path.join(folder, f"{kind}-{side}.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            paths.append(path)
        out[kind] = (paths[0], paths[1])
    return out


def _measure(src: str, files: tuple[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one `compare` in a fresh process."""
    code = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.stdout.write(r.stdout)")
    env = dict(os.environ, PYTHONPATH=src)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "pairbench", "compare", *files],
                          capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    rss_kb, _, output = done.stdout.partition("\n")
    return wall, int(rss_kb) / 1024, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=20_000, help="values a side (default 20000)")
    parser.add_argument("--src", help="another tree's src to measure on the same files")
    args = parser.parse_args()
    trees = [("this tree", os.path.join(HERE, "..", "src"))] + ([("--src", args.src)] if args.src else [])
    with tempfile.TemporaryDirectory() as folder:
        for kind, files in _files(folder, args.values).items():
            outputs = []
            for label, src in trees:
                wall, rss, output = _measure(src, files)
                outputs.append(output)
                print(f"{kind:9}  {args.values} values a side  {label:9}  {wall:7.2f} s  {rss:8.0f} MB")
            if len(outputs) == 2:
                print(f"{kind:9}  outputs {'identical' if outputs[0] == outputs[1] else 'DIFFER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
