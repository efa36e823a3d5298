#!/usr/bin/env python3
"""`--measure instructions`: how exact the counts are, and how much slower a counted run is than a timed one.

For a C loop (compiled here; B does exactly 1% more iterations) and a Python script, runs each
command plainly and counted (the same wrapping `pairbench cmd --measure instructions` uses:
runners/instructions.py), interleaved, and prints the median wall time of both, their ratio (the
slowdown factor of the mode), the distinct counts seen per command and the B/A count ratio.

    python3 bench/instructions.py            # 5 runs of each
    python3 bench/instructions.py --runs 9
    python3 bench/instructions.py --micro    # `pairbench micro`, Python and Ruby

`--micro` runs `pairbench micro` on a benchmark file with two ops (one doing twice the other's
work), interpreter against itself, once with `--measure time` and once with `--measure
instructions`, and prints the seconds per block of each (the slowdown of the mode), every
per-op count seen per variant, the A/A ratio and twice/once.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_loop import compile_loop  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pairbench.runners.instructions import choose_counter  # noqa: E402

PY = "d = {str(i): i for i in range(200000)}\ns = sorted(d)\n"


def _wall(argv: list[str], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


MICRO = {
    "python": ("bm.py", "def bench_once():\n    d = {}\n    for i in range(40):\n        d[i] = i\n\n\n"
               "def bench_twice():\n    bench_once()\n    bench_once()\n", "--python", sys.executable),
    "ruby": ("bm.yml", "prelude: |\n  a = []\nbenchmark:\n  once: |\n    40.times { |i| a << i }\n    a.clear\n"
             "  twice: |\n    40.times { |i| a << i }\n    a.clear\n    40.times { |i| a << i }\n    a.clear\n",
             "--ruby", "ruby"),
}


def _micro(tmp: Path, blocks: int) -> None:
    """`pairbench micro` timed against counted, per language."""
    import json
    import os

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    for language, (name, text, flag, exe) in MICRO.items():
        (tmp / name).write_text(text)
        per_block = {}
        for measure in ("time", "instructions"):
            out = tmp / f"{language}-{measure}.json"
            subprocess.run([sys.executable, "-m", "pairbench", "micro", str(tmp / name), flag, exe, flag, exe,
                            "-n", "A", "-n", "A again", "--measure", measure, "-r", str(blocks), "--no-history",
                            "--no-progress", "--export-json", str(out)], check=True, capture_output=True, env=env)
            run = json.loads(out.read_text())
            per_block[measure] = run["metadata"]["elapsed_s"] / run["metadata"]["blocks"]
        seen: dict[str, dict[str, list[float]]] = {}
        for smp in run["samples"]:
            if smp["metric"] == "instructions_per_op":
                seen.setdefault(smp["benchmark"], {}).setdefault(smp["variant"], []).append(smp["value"])
        t, c = per_block["time"], per_block["instructions"]
        print(f"micro {language}: {t:.2f} s per block timed, {c:.2f} s counted: slowdown {c / t:.1f}x")
        for bench, by in sorted(seen.items()):
            print(f"  {bench:6} per-op counts {dict((v, sorted(set(x))) for v, x in by.items())}; "
                  f"A/A {by['A again'][0] / by['A'][0]:.6f}")
        print(f"  twice/once {seen['twice']['A'][0] / seen['once']['A'][0]:.4f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--micro", action="store_true", help="the `pairbench micro` case instead (blocks: --runs)")
    a = ap.parse_args()
    if a.micro:
        _micro(Path(tempfile.mkdtemp(prefix="pb-instr-")), a.runs)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="pb-instr-"))
    compile_loop(tmp)
    (tmp / "bench.py").write_text(PY)
    commands = {"C loop A (10M)": [str(tmp / "loop"), "10000000"], "C loop B (10.1M)": [str(tmp / "loop"), "10100000"],
                "python3 bench.py": [sys.executable, str(tmp / "bench.py")]}
    counter = choose_counter()
    print(counter.describe())
    counts: dict[str, list[int]] = {}
    print(f"{'command':18} {'plain':>9} {'counted':>9} {'slowdown':>9}  distinct counts")
    import os

    for name, argv in commands.items():
        plain, counted = [], []
        for _ in range(a.runs):
            plain.append(_wall(argv))
            wrapped, env = counter.wrap(argv, dict(os.environ))
            counted.append(_wall(wrapped, env))
            counts.setdefault(name, []).append(counter.read())
        p, c = statistics.median(plain), statistics.median(counted)
        print(f"{name:18} {p * 1e3:7.1f}ms {c * 1e3:7.0f}ms {c / p:8.1f}x  {sorted(set(counts[name]))}")
    ratios = sorted({b / a_ for a_, b in zip(counts["C loop A (10M)"], counts["C loop B (10.1M)"])})
    print(f"B/A instruction ratio per run: {', '.join(f'{r:.6f}' for r in ratios)} (exact work ratio 1.010000)")
    counter.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
