#!/usr/bin/env python3
"""Sensitivity of pairbench, hyperfine and pyperf at equal wall-clock budgets.

The workload is a tiny C loop whose extra work is known exactly: variant B runs N x (1 + d/100)
iterations of the loop that A runs N times, and callgrind's instruction counts confirm the
ratio before anything is timed. For every tool, budget and difference d the script runs K
trials and counts how often the tool calls B significantly slower than A (detection), or calls
an identical copy different at all (d = 0: a false positive). Cells run in a random order so that
machine drift hits every tool alike. See docs/sensitivity.md for the method and a measured table.

    python3 bench/sensitivity.py                      # 20 s and 60 s budgets, 3 trials per cell
    python3 bench/sensitivity.py --quick              # smoke run, about two minutes
    python3 bench/sensitivity.py --budgets 20 --trials 4 --out results.jsonl
    python3 bench/sensitivity.py --table results.jsonl   # print the table of a results file
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

TOOLS = ("pairbench", "pairbench-fixed", "hyperfine", "pyperf")
REPO = Path(__file__).resolve().parent.parent

BUSY_C = r"""
#include <stdlib.h>
/* busy N: N iterations of an integer add that the compiler may not remove or fold. */
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 0;
    unsigned long x = 0;
    for (long i = 0; i < n; i++) {
        x += (unsigned long)i;
        __asm__ volatile("" : "+r"(x));
    }
    return (int)(x & 0);
}
"""


@dataclass(frozen=True)
class Trial:
    """One tool's answer to "is B different from A?" in one cell of the grid."""

    tool: str
    budget: float
    diff: float
    trial: int
    significant: bool
    slower: bool | None  # B measured slower than A (None when the tool gave no direction)
    ratio: float | None  # B / A as the tool estimated it
    p_value: float | None
    elapsed: float  # wall seconds the tool took
    units: int  # blocks (pairbench), runs per command (hyperfine), processes per command (pyperf)
    time: float  # Unix time at the start


def outcome(diff: float, significant: bool, slower: bool | None) -> str:
    """Classify a trial: 'hit' (a true difference found in the right direction), 'miss',
    'wrong' (significant the wrong way), 'fp' (A/A called different) or 'ok' (A/A not)."""
    if diff == 0:
        return "fp" if significant else "ok"
    if not significant:
        return "miss"
    return "hit" if slower else "wrong"


# ---------------------------------------------------------------- workload and ground truth


def build_busy(workdir: Path) -> Path:
    """Compile the workload with gcc (static when libc.a is present, for a short, fixed start-up)."""
    if shutil.which("gcc") is None:
        sys.exit("error: gcc is needed to build the workload (apt-get install gcc)")
    src = workdir / "busy.c"
    src.write_text(BUSY_C)
    exe = workdir / "busy"
    for extra in (["-static"], []):
        proc = subprocess.run(["gcc", "-O2", *extra, "-o", str(exe), str(src)], capture_output=True, text=True)
        if proc.returncode == 0:
            return exe
    sys.exit(f"error: gcc could not build {src}: {proc.stderr.strip()}")


def callgrind_instructions(exe: Path, n: int, workdir: Path) -> int:
    """Total instructions executed by `exe n`, counted by valgrind's callgrind."""
    out = workdir / f"callgrind.{n}.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe), str(n)],
        check=True, capture_output=True,
    )
    return parse_callgrind_total(out.read_text())


def parse_callgrind_total(text: str) -> int:
    """The event total of a callgrind output file ('summary:' or 'totals:' line)."""
    for key in ("summary:", "totals:"):
        for line in text.splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    raise ValueError("no 'summary:' or 'totals:' line in callgrind output")


def verify_ratios(exe: Path, base_n: int, diffs: Iterable[float], workdir: Path) -> list[dict]:
    """Instruction counts of every variant, and their ratio to the base, from callgrind."""
    if shutil.which("valgrind") is None:
        print("warning: valgrind not found; instruction ratios not verified", file=sys.stderr)
        return []
    base = callgrind_instructions(exe, base_n, workdir)
    rows = []
    for d in diffs:
        n = n_for(base_n, d)
        count = base if d == 0 else callgrind_instructions(exe, n, workdir)
        rows.append({"diff": d, "n": n, "instructions": count, "expected": 1 + d / 100, "measured": count / base})
    return rows


def n_for(base_n: int, diff: float) -> int:
    return round(base_n * (1 + diff / 100))


# ---------------------------------------------------------------- the tools


class Sizer:
    """Cost per unit of work for a tool (a run, a process), learnt from what it took so far,
    so that the next trial's size matches the budget as the machine's load changes."""

    def __init__(self) -> None:
        self.cost: dict[str, float] = {}

    def units(self, tool: str, budget: float, fixed: float = 0.0, minimum: int = 2) -> int:
        return max(minimum, int((budget - fixed) / self.cost[tool]))

    def learn(self, tool: str, elapsed: float, units: int, fixed: float = 0.0) -> None:
        per = max(elapsed - fixed, 1e-3) / max(units, 1)
        old = self.cost.get(tool)
        self.cost[tool] = per if old is None else 0.5 * old + 0.5 * per


def run_pairbench(exe: Path, na: int, nb: int, budget: float | None, threshold: float, out: Path, seed: int,
                  runs: int | None = None) -> tuple[dict, float]:
    """pairbench with adaptive stopping inside `budget` seconds, or with a fixed number of blocks."""
    size = ["--max-time", f"{budget:g}", "--max-runs", "100000"] if runs is None else ["--runs", str(runs)]
    cmd = [
        sys.executable, "-m", "pairbench", "cmd", "-N", "-n", "A", "-n", "B", *size, "--threshold", f"{threshold:g}",
        "--seed", str(seed), "--export-json", str(out), "--no-history", "--no-progress",
        f"{exe} {na}", f"{exe} {nb}",
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - t0
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"pairbench failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return json.loads(out.read_text()), elapsed


def read_pairbench(doc: dict) -> tuple[bool, bool | None, float | None, float | None, int]:
    """(significant, B slower, ratio, p, blocks) of the primary `time` comparison in a run file."""
    comp = next(c for c in doc["comparisons"] if c["metric"] == "time")
    ratio = comp["ratio"]
    return bool(comp["significant"]), (ratio > 1 if ratio is not None else None), ratio, comp["p_value"], int(doc["metadata"].get("blocks", comp["n"]))


def run_hyperfine(exe: Path, na: int, nb: int, runs: int, out: Path) -> tuple[dict, float]:
    cmd = ["hyperfine", "-N", "--style", "none", "--warmup", "1", "--runs", str(runs),
           "--export-json", str(out), f"{exe} {na}", f"{exe} {nb}"]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, capture_output=True)
    return json.loads(out.read_text()), time.monotonic() - t0


def read_hyperfine(doc: dict) -> tuple[bool, bool, float, float]:
    """Welch's t-test on the two commands' times, as hyperfine's scripts/welch_ttest.py does."""
    from scipy import stats

    a, b = doc["results"][0]["times"], doc["results"][1]["times"]
    p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    return p < 0.05, mean_b > mean_a, mean_b / mean_a, p


def run_pyperf(exe: Path, n: int, processes: int, values: int, loops: int, out: Path) -> float:
    cmd = [sys.executable, "-m", "pyperf", "command", "-q", "--processes", str(processes), "--values", str(values),
           "--warmups", "1", "--loops", str(loops), "-o", str(out), "--", str(exe), str(n)]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.monotonic() - t0


def compare_pyperf(a: Path, b: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(a), str(b)],
                          check=True, capture_output=True, text=True)
    return proc.stdout


def parse_compare_to(text: str) -> tuple[bool, bool | None, float | None]:
    """(significant, B slower, ratio) from `pyperf compare_to a.json b.json` output.

    Significant:  `Mean +- std dev: [a] 30.1 ms +- 0.2 ms -> [b] 33.2 ms +- 0.3 ms: 1.10x slower`
    Not:          `Benchmark hidden because not significant (1): command` or `Not significant!`
    """
    if re.search(r"not significant", text, re.IGNORECASE):
        return False, None, None
    m = re.search(r"([\d.]+)x (slower|faster)", text)
    if m:
        factor = float(m.group(1))
        slower = m.group(2) == "slower"
        return True, slower, factor if slower else 1 / factor
    if "Mean" in text and "->" in text:  # "no change" and similar: significant but equal at print precision
        return True, None, 1.0
    raise ValueError(f"unrecognised compare_to output: {text.strip()[:200]}")


# ---------------------------------------------------------------- the grid


class Bench:
    def __init__(self, exe: Path, base_n: int, workdir: Path, threshold: float, pyperf_values: int,
                 pyperf_loops: int) -> None:
        self.exe, self.base_n, self.workdir = exe, base_n, workdir
        self.threshold, self.pyperf_values, self.pyperf_loops = threshold, pyperf_values, pyperf_loops
        self.pairbench_overhead = 0.0  # start-up and analysis time outside pairbench's --max-time
        self.sizer = Sizer()
        self.counter = 0

    def _path(self, stem: str) -> Path:
        self.counter += 1
        return self.workdir / f"{stem}-{self.counter}.json"

    def _learn_pairbench(self, doc: dict, elapsed: float) -> None:
        """Seconds outside the measuring loop (start-up, analysis), and seconds per block (warm-up included)."""
        inside = float(doc["metadata"].get("elapsed_s", elapsed))
        over = max(elapsed - inside, 0.0)
        self.pairbench_overhead = over if not self.pairbench_overhead else 0.5 * (self.pairbench_overhead + over)
        self.sizer.learn("pairbench", inside, int(doc["metadata"].get("blocks", 10)) + 1)

    def calibrate(self, tools: Iterable[str]) -> None:
        """Learn each peer's cost per unit from a short run of its own (pairbench sizes itself)."""
        if "pairbench" in tools or "pairbench-fixed" in tools:
            doc, elapsed = run_pairbench(self.exe, self.base_n, self.base_n, 2.0, self.threshold, self._path("pb"), 1)
            self._learn_pairbench(doc, elapsed)
        if "hyperfine" in tools:
            _, elapsed = run_hyperfine(self.exe, self.base_n, self.base_n, 10, self._path("hf"))
            self.sizer.learn("hyperfine", elapsed, 2 * 11)
        if "pyperf" in tools:
            elapsed = run_pyperf(self.exe, self.base_n, 2, self.pyperf_values, self.pyperf_loops, self._path("pp"))
            self.sizer.learn("pyperf", elapsed, 2)

    def trial(self, tool: str, budget: float, diff: float, k: int) -> Trial:
        na, nb = self.base_n, n_for(self.base_n, diff)
        start = time.time()
        if tool == "pairbench":
            max_time = max(budget / 4, budget - self.pairbench_overhead)
            doc, elapsed = run_pairbench(self.exe, na, nb, max_time, self.threshold, self._path("pb"),
                                         random.randrange(2**31))
            self._learn_pairbench(doc, elapsed)
            sig, slower, ratio, p, units = read_pairbench(doc)
        elif tool == "pairbench-fixed":
            runs = max(10, int((budget - self.pairbench_overhead) / self.sizer.cost["pairbench"]) - 1)
            doc, elapsed = run_pairbench(self.exe, na, nb, None, self.threshold, self._path("pbf"),
                                         random.randrange(2**31), runs=runs)
            self._learn_pairbench(doc, elapsed)
            sig, slower, ratio, p, units = read_pairbench(doc)
        elif tool == "hyperfine":
            runs = self.sizer.units("hyperfine", budget / 2) - 1  # one warm-up run per command
            doc, elapsed = run_hyperfine(self.exe, na, nb, runs, self._path("hf"))
            self.sizer.learn("hyperfine", elapsed, 2 * (runs + 1))
            sig, slower, ratio, p = read_hyperfine(doc)
            units = runs
        elif tool == "pyperf":
            procs = self.sizer.units("pyperf", budget / 2)
            a, b = self._path("pp-a"), self._path("pp-b")
            elapsed = run_pyperf(self.exe, na, procs, self.pyperf_values, self.pyperf_loops, a)
            elapsed += run_pyperf(self.exe, nb, procs, self.pyperf_values, self.pyperf_loops, b)
            self.sizer.learn("pyperf", elapsed, 2 * procs)
            sig, slower, ratio = parse_compare_to(compare_pyperf(a, b))
            p, units = None, procs
        else:
            raise ValueError(tool)
        return Trial(tool, budget, diff, k, sig, slower, ratio, p, elapsed, units, start)


def aggregate(trials: Iterable[dict]) -> dict[tuple[str, float, float], dict]:
    """Per (tool, budget, diff): trial count, hits (detections, or false positives at d = 0),
    wrong-way calls, and mean seconds used."""
    cells: dict[tuple[str, float, float], dict] = defaultdict(lambda: {"n": 0, "hits": 0, "wrong": 0, "elapsed": 0.0})
    for t in trials:
        cell = cells[(t["tool"], float(t["budget"]), float(t["diff"]))]
        o = outcome(float(t["diff"]), t["significant"], t["slower"])
        cell["n"] += 1
        cell["hits"] += o in ("hit", "fp")
        cell["wrong"] += o == "wrong"
        cell["elapsed"] += t["elapsed"]
    for cell in cells.values():
        cell["elapsed"] /= cell["n"]
    return dict(cells)


def format_table(cells: dict[tuple[str, float, float], dict]) -> str:
    """A markdown table: one row per tool and budget, a column per difference."""
    diffs = sorted({d for _, _, d in cells})
    rows = sorted({(tool, budget) for tool, budget, _ in cells}, key=lambda r: (r[1], TOOLS.index(r[0]) if r[0] in TOOLS else 9))
    head = ["tool", "budget"] + [("A/A false positives" if d == 0 else f"{d:g}% detected") for d in diffs] + ["s used"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for tool, budget in rows:
        out = [tool, f"{budget:g} s"]
        used = []
        for d in diffs:
            c = cells.get((tool, budget, d))
            if c is None:
                out.append("–")
                continue
            text = f"{c['hits']}/{c['n']}"
            if c["wrong"]:
                text += f" ({c['wrong']} wrong way)"
            out.append(text)
            used.append(c["elapsed"])
        out.append(f"{sum(used) / len(used):.1f}" if used else "–")
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines)


def load_results(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def parse_list(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", default="20,60", help="wall-clock seconds per comparison (default 20,60)")
    ap.add_argument("--diffs", default="0,1,2,5,10", help="extra work of B in percent (default 0,1,2,5,10)")
    ap.add_argument("--tools", default=",".join(TOOLS), help="tools to compare (default all)")
    ap.add_argument("--trials", default="3", help="trials per cell, one number or one per budget (e.g. 4,2)")
    ap.add_argument("--base-n", type=int, default=30_000_000, help="loop iterations of A (~30 ms)")
    ap.add_argument("--threshold", type=float, default=0.0, help="pairbench --threshold in percent (default 0)")
    ap.add_argument("--pyperf-values", type=int, default=5, help="values per pyperf worker process (default 5)")
    ap.add_argument("--pyperf-loops", type=int, default=4,
                    help="command runs per pyperf value (default 4: what its calibration picks for ~30 ms)")
    ap.add_argument("--out", type=Path, default=Path("sensitivity-results.jsonl"), help="results file (appended)")
    ap.add_argument("--quick", action="store_true", help="smoke mode: 5 s budget, 1 trial, diffs 0,10")
    ap.add_argument("--no-verify", action="store_true", help="skip the callgrind check")
    ap.add_argument("--seed", type=int, default=None, help="seed of the cell order")
    ap.add_argument("--table", type=Path, metavar="RESULTS", help="only print the table of a results file")
    args = ap.parse_args(argv)

    if args.table:
        print(format_table(aggregate(load_results(args.table))))
        return 0
    budgets, diffs = parse_list(args.budgets), parse_list(args.diffs)
    trials = [int(x) for x in args.trials.split(",")]
    if args.quick:
        budgets, diffs, trials = [5.0], [0.0, 10.0], [1]
    if len(trials) == 1:
        trials = trials * len(budgets)
    if len(trials) != len(budgets):
        sys.exit("error: --trials takes one number or one per budget")
    tools = [t for t in args.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            sys.exit(f"error: unknown tool {t!r} in --tools (choose from {', '.join(TOOLS)})")
        if t == "hyperfine" and shutil.which("hyperfine") is None:
            sys.exit("error: hyperfine not found (apt-get install hyperfine)")
    rng = random.Random(args.seed)
    random.seed(rng.randrange(2**31))

    with tempfile.TemporaryDirectory(prefix="pairbench-sens-") as tmp:
        workdir = Path(tmp)
        exe = build_busy(workdir)
        if not args.no_verify:
            print("callgrind instruction counts (the ground truth):")
            for row in verify_ratios(exe, args.base_n, diffs, workdir):
                print(f"  +{row['diff']:g}%: N = {row['n']:>11,}  instructions = {row['instructions']:>13,}"
                      f"  ratio expected {row['expected']:.4f} measured {row['measured']:.4f}")
        bench = Bench(exe, args.base_n, workdir, args.threshold, args.pyperf_values, args.pyperf_loops)
        bench.calibrate(tools)
        total = sum(k * len(diffs) * len(tools) * b for k, b in zip(trials, budgets))
        print(f"calibrated: pairbench overhead {bench.pairbench_overhead:.1f} s, seconds per unit {bench.sizer.cost}")
        print(f"grid: tools {tools}, budgets {budgets}, diffs {diffs}, trials {trials}; about {total / 60:.0f} min",
              flush=True)
        done: list[dict] = []
        for budget, k in zip(budgets, trials):
            for trial in range(k):
                cells = [(tool, d) for tool in tools for d in diffs]
                rng.shuffle(cells)
                for tool, d in cells:
                    t = bench.trial(tool, budget, d, trial)
                    row = asdict(t)
                    done.append(row)
                    with args.out.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")
                    verdict = outcome(d, t.significant, t.slower)
                    ratio = f"{t.ratio:.4f}" if t.ratio is not None else "-"
                    print(f"{tool:>9} {budget:>4g}s +{d:<3g}% trial {trial}: {verdict:<5} ratio {ratio} "
                          f"({t.units} units, {t.elapsed:.1f} s)", flush=True)
    print()
    print(format_table(aggregate(done)))
    print(f"\nresults appended to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
