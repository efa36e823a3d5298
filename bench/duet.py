#!/usr/bin/env python3
"""Duet vs plain interleaving at equal wall budgets, quiet and beside an injected noisy neighbour.

Workload: a C loop (compiled here) of ~30 ms; B does exactly 1% more iterations. For each mode
(plain ABBA interleaving, `--duet`), neighbour (none, or a CPU hog that this script starts, runs
in bursts of 0.3 s on / 0.3 s off on every CPU, and stops by PID) and trial, one `pairbench cmd`
run of a fixed number of blocks is made; from its run file come the SD of the paired log-ratios
(wall `time` and CPU `cpu` = user + sys) and the seconds per block, hence the 95% CI half-width
that a budget of T seconds buys: t·s_d/√(T / seconds per block). Also printed: how many runs
detected the 1% (CI excludes 0). Cells run in a random order.

    python3 bench/duet.py                      # 6 trials per cell, 40 blocks, T = 5 s and 20 s
    python3 bench/duet.py --trials 10 --blocks 60
    python3 bench/duet.py --workload python --iterations 100000

Detection table (`--budget T`): each run is `pairbench cmd --max-time T` (the same wall budget for
both modes); B does +0% (the A/A false-alarm rate), +0.5%, +1% or +2% work; per run the 95% CI of
the mean paired log-ratio (Student t over the blocks measured) on wall time and on CPU time
(duet's `cpu`; plain runs: user + sys), its half-width, and whether it excludes 0. Rows are
appended to --out, so the cells can be run in chunks (`--chunk 1/4` ... `--chunk 4/4`, each a few
minutes) and summed up with `--report`:

    python3 bench/duet.py --budget 5 --workload c --trials 10 --chunk 1/4 --out duet5.jsonl
    python3 bench/duet.py --report duet5.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exact_loop import compile_loop  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PY_SCRIPT = "import sys\nd = {}\nfor i in range(int(sys.argv[1])):\n    d[str(i)] = i\nsorted(d)\n"
HOG = "import time\nwhile True:\n    t = time.time() + 0.3\n    while time.time() < t: pass\n    time.sleep(0.3)\n"


def _hogs(n: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True) for _ in range(n)]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def _one(loop: str, n: int, mode: str, blocks: int, out: Path, env: dict[str, str]) -> dict[str, float]:
    argv = [sys.executable, "-m", "pairbench", "cmd", "-N", f"{loop} {n}", f"{loop} {int(n * 1.01)}", "-n", "A",
            "-n", "B", "-r", str(blocks), "-w", "1", "--no-history", "--no-progress", "--export-json", str(out)]
    if mode == "duet":
        argv.append("--duet")
    subprocess.run(argv, check=True, capture_output=True, env=env)
    run = json.loads(out.read_text())
    vals: dict[str, dict[int, dict[str, float]]] = {"time": {}, "cpu": {}}
    for s in run["samples"]:
        if s["warmup"]:
            continue
        if s["metric"] in vals:
            vals[s["metric"]].setdefault(s["block"], {})[s["variant"]] = s["value"]
        elif s["metric"] in ("user", "sys"):  # plain runs have no cpu metric: user + sys
            d = vals["cpu"].setdefault(s["block"], {})
            key = s["variant"] + "#" + s["metric"]
            d[key] = s["value"]
    row = {"block_s": run["metadata"]["elapsed_s"] / run["metadata"]["blocks"]}
    for metric, per in vals.items():
        ds = []
        for v in per.values():
            a = v.get("A", v.get("A#user", 0) + v.get("A#sys", 0))
            b = v.get("B", v.get("B#user", 0) + v.get("B#sys", 0))
            if a > 0 and b > 0:
                ds.append(math.log(b / a))
        sd = statistics.stdev(ds)
        row[f"{metric}_sd"] = sd
        row[f"{metric}_detect"] = float(abs(statistics.mean(ds)) > 1.96 * sd / math.sqrt(len(ds)))
    return row


EFFECTS = (0.0, 0.005, 0.01, 0.02)


def _t95(df: int) -> float:
    """Two-sided 95% Student t quantile (scipy when present, else the normal's 1.96 plus a correction)."""
    try:
        from scipy import stats  # type: ignore[import-untyped]

        return float(stats.t.ppf(0.975, df))
    except ImportError:
        return 1.96 + 2.4 / max(df, 1)


def _budget_run(program: str, n: int, effect: float, mode: str, budget: float, out: Path,
                env: dict[str, str]) -> dict[str, Any]:
    """One `pairbench cmd --max-time budget` run: per metric the CI half-width and whether it excludes 0."""
    argv = [sys.executable, "-m", "pairbench", "cmd", "-N", f"{program} {n}", f"{program} {int(round(n * (1 + effect)))}",
            "-n", "A", "-n", "B", "-r", "3", "-w", "1", "--max-time", str(budget), "--no-history", "--no-progress",
            "--export-json", str(out)] + (["--duet"] if mode == "duet" else [])
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} run failed: {done.stderr.strip()[-300:]}")
    run = json.loads(out.read_text())
    per: dict[str, dict[int, dict[str, float]]] = {"time": {}, "cpu": {}}
    for s in run["samples"]:
        if s["warmup"]:
            continue
        metric = "cpu" if s["metric"] in ("user", "sys") and mode == "plain" else s["metric"]
        if metric in per:
            d = per[metric].setdefault(s["block"], {})
            d[s["variant"]] = d.get(s["variant"], 0.0) + s["value"]
    row: dict[str, Any] = {"elapsed_s": float(run["metadata"]["elapsed_s"]), "blocks": float(run["metadata"]["blocks"])}
    for metric, blocks in per.items():
        ds = [math.log(v["B"] / v["A"]) for v in blocks.values() if v.get("A", 0) > 0 and v.get("B", 0) > 0]
        half = _t95(len(ds) - 1) * statistics.stdev(ds) / math.sqrt(len(ds))
        row[f"{metric}_half"] = half
        row[f"{metric}_est"] = statistics.mean(ds)
        row[f"{metric}_detect"] = float(abs(statistics.mean(ds)) > half)
    return row


def _table(a: argparse.Namespace, program: str) -> int:
    """Run this chunk's cells of the detection table, appending one JSON row per run to --out."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    cells = [(mode, eff) for mode in ("plain", "duet") for eff in EFFECTS for _ in range(a.trials)]
    random.Random(2).shuffle(cells)
    k, of = (int(x) for x in a.chunk.split("/"))
    mine = [c for i, c in enumerate(cells) if i % of == k - 1]
    with open(a.out, "a", encoding="utf-8") as fh:
        for i, (mode, eff) in enumerate(mine):
            try:
                row = _budget_run(program, a.iterations, eff, mode, a.budget, Path(a.out).with_suffix(f".{k}.json"),
                                  env)
            except RuntimeError as exc:  # counted as missing in the table, said here
                print(f"  {i + 1}/{len(mine)} {exc}", flush=True)
                continue
            row.update(workload=a.workload, mode=mode, effect=eff, budget=a.budget)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(f"  {i + 1}/{len(mine)} {mode:5} +{100 * eff:g}% wall ±{100 * row['time_half']:.2f}% "
                  f"cpu ±{100 * row['cpu_half']:.2f}% ({row['blocks']:.0f} blocks, {row['elapsed_s']:.1f} s)", flush=True)
    return 0


def _report(paths: list[str]) -> int:
    """The detection table from the rows of earlier chunks."""
    rows = [json.loads(line) for p in paths for line in open(p, encoding="utf-8") if line.strip()]
    groups: dict[tuple[str, float, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["workload"], r["budget"], r["mode"]), []).append(r)
    print("| workload | budget | mode | blocks | ±CI wall | ±CI cpu | " + " | ".join(
        f"{'A/A false alarms' if e == 0 else f'+{100 * e:g}% detected'} (wall, cpu)" for e in EFFECTS)
        + " | mean error of the estimate (wall, cpu) |")
    print("|---|---|---|---|---|---|" + "---|" * (len(EFFECTS) + 1))
    for (workload, budget, mode), rs in sorted(groups.items()):
        cells = []
        for e in EFFECTS:
            er = [r for r in rs if abs(r["effect"] - e) < 1e-9]
            cells.append(f"{sum(r['time_detect'] for r in er):.0f}/{len(er)}, {sum(r['cpu_detect'] for r in er):.0f}/{len(er)}")
        med = {k: statistics.median(r[k] for r in rs) for k in ("blocks", "time_half", "cpu_half")}
        # bias: the mean over runs of (estimated log-ratio - true log-ratio), for rows that kept the estimate
        bias = [f"{100 * statistics.mean(r[f'{m}_est'] - math.log1p(r['effect']) for r in rs):+.2f}%"
                if all(f"{m}_est" in r for r in rs) else "-" for m in ("time", "cpu")]
        print(f"| {workload} | {budget:g} s | {mode} | {med['blocks']:.0f} | {100 * med['time_half']:.2f}% | "
              f"{100 * med['cpu_half']:.2f}% | " + " | ".join(cells) + f" | {bias[0]}, {bias[1]} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, help="the detection table at this --max-time (see the docstring)")
    ap.add_argument("--chunk", default="1/1", help="K/M: run the K-th of M interleaved shares of the cells")
    ap.add_argument("--out", default="duet.jsonl", help="rows of the detection table are appended here")
    ap.add_argument("--report", nargs="+", metavar="JSONL", help="print the detection table from these rows")
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--blocks", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=30_000_000)
    ap.add_argument("--budgets", default="5,20")
    ap.add_argument("--workload", choices=("c", "python"), default="c",
                    help="the C loop, or a Python script building and sorting a dict (--iterations keys)")
    a = ap.parse_args()
    if a.report:
        return _report(a.report)
    tmp = Path(tempfile.mkdtemp(prefix="pb-duet-"))
    if a.workload == "c":
        compile_loop(tmp)
        program = str(tmp / "loop")
    else:
        (tmp / "work.py").write_text(PY_SCRIPT)
        program = f"{sys.executable} {tmp / 'work.py'}"
    if a.budget:
        return _table(a, program)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    cells = [(mode, hog) for mode in ("plain", "duet") for hog in ("none", "hog") for _ in range(a.trials)]
    random.Random(1).shuffle(cells)
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    for i, (mode, hog) in enumerate(cells):
        procs = _hogs(len(os.sched_getaffinity(0))) if hog == "hog" else []
        try:
            row = _one(program, a.iterations, mode, a.blocks, tmp / f"r{i}.json", env)
        finally:
            _stop(procs)
        results.setdefault((mode, hog), []).append(row)
        print(f"  {i + 1}/{len(cells)} {mode:5} {hog:4} wall sd {row['time_sd']:.4f} cpu sd {row['cpu_sd']:.4f} "
              f"{row['block_s']:.3f} s/block", flush=True)
    budgets = [float(x) for x in a.budgets.split(",")]
    print(f"\n{a.workload} workload of {a.iterations / 1e6:g}M iterations, B = +1% work; {a.blocks} blocks per run, {a.trials} runs per cell")
    print("mode   neighbour  s/block  log-ratio SD wall  cpu   " + "  ".join(
        f"±CI {b:g}s wall  cpu" for b in budgets) + "   detected 1% (wall, cpu)")
    for (mode, hog), rows in sorted(results.items()):
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        widths = []
        for b in budgets:
            n = max(b / med["block_s"], 2)
            widths.append(f"{100 * 1.96 * med['time_sd'] / math.sqrt(n):8.2f}% {100 * 1.96 * med['cpu_sd'] / math.sqrt(n):5.2f}%")
        det = (sum(r["time_detect"] for r in rows), sum(r["cpu_detect"] for r in rows))
        print(f"{mode:6} {hog:9} {med['block_s']:7.3f}  {med['time_sd']:12.4f} {med['cpu_sd']:6.4f}  "
              + "  ".join(widths) + f"   {det[0]:.0f}/{len(rows)}, {det[1]:.0f}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
