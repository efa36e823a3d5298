"""Time to a verdict: pairbench's default `micro` run against pyperf's default, same machine, same run.

    PYTHONPATH=src python3 bench/micro_vs_pyperf.py [--base /usr/bin/python3] [--cand python3.11]
        [--only NAME] [--rounds 1] [--tiny] [--jsonl FILE] [--pairbench-args '--samples 3']

For pyperformance's unpack_sequence, nbody and chaos, across two CPython interpreters:
  pyperf     `BASE run_benchmark.py -o a.json`, `CAND run_benchmark.py -o b.json` (pyperf's
             defaults: 20 worker processes × 3 values after 1 warm-up, plus its calibration), then
             `python -m pyperf compare_to a.json b.json`; the time is the three calls together.
  pairbench  `pairbench micro bm_NAME --python BASE --python CAND` with no other flag (adaptive
             stopping within the default bound, the allocation pass on); the time is the call.
The two tools alternate in shuffled order within each round, so a slow phase of the machine does
not land on one of them only. Printed side by side per benchmark: each tool's wall time to its
answer, the time ratio pairbench / pyperf, the verdicts (pyperf: compare_to's line, "Not
significant!" or "1.05x slower"; pairbench: its verdict at the ±1% band) and the 95% interval of
the ratio with its width. pyperf gives no interval: its width here is the one its own processes
support, Welch's t on the log of the per-process means (a process is pyperf's unit of
replication, as it is pairbench's), made by pairbench's unpaired comparison.

`--pairbench-args` / `--pyperf-args` add flags to every call of one tool (shell words), to weigh
another setting against the defaults (e.g. `--samples 3`, pyperf's three values per process;
pairbench already takes pyperf's one warm-up sample per process on CPython).

Target (issue 27 §4): pairbench's time no more than pyperf's on each benchmark. `--tiny` runs
both tools at their smallest settings, to check the script itself, not to take figures.
The real pyperf comes from the interpreter running this script; an interpreter without it gets it
on PYTHONPATH (pyperf is pure Python), so both run the same pyperf.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("unpack_sequence", "nbody", "chaos")
TINY_PYPERF = ["--processes", "2", "--values", "1", "--warmups", "1", "--min-time", "0.01"]
TINY_PAIRBENCH = ["-r", "2", "--samples", "2", "--warmup-samples", "0", "--target-time", "0.01", "--no-alloc"]


def _pyperf_path(tmp: Path) -> str:
    """A directory holding only the real pyperf, for PYTHONPATH."""
    import pyperf

    link = tmp / "realpyperf"
    link.mkdir(exist_ok=True)
    target = link / "pyperf"
    if not target.exists():
        target.symlink_to(Path(pyperf.__file__).parent)
    return str(link)


def _children_cpu() -> float:
    """CPU seconds (user + system) of the ended child processes so far: the tools' own cost, which
    a loaded machine stretches far less than their wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _call(argv: list[str], env: dict[str, str]) -> None:
    """Run one tool's call; a failure ends the script with its last lines, not a traceback."""
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {proc.returncode}: {tail}")


def _interval(files: list[Path]) -> tuple[float, float] | None:
    """95% interval of the ratio of means from pyperf's per-process means (Welch's t on their logs)."""
    import pyperf

    from pairbench.stats.compare import compare_unpaired

    means = [[statistics.fmean(run.values) for run in pyperf.Benchmark.load(str(f)).get_runs() if run.values]
             for f in files]
    if min(len(m) for m in means) < 2:
        return None
    return compare_unpaired(means[0], means[1], robust=False).ci


def run_pyperf(script: Path, base: str, cand: str, tmp: Path, extra: list[str]) -> dict[str, object]:
    """pyperf's default time to an answer: one run per interpreter, then compare_to."""
    env = dict(os.environ, PYTHONPATH=_pyperf_path(tmp))
    files = [tmp / f"pyperf-{script.parent.name}-{side}.json" for side in ("base", "cand")]
    started, cpu = time.perf_counter(), _children_cpu()
    for exe, out in zip((base, cand), files):
        out.unlink(missing_ok=True)
        _call([exe, str(script), "--quiet", "-o", str(out), *extra], env)
    proc = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(files[0]), str(files[1])],
                          capture_output=True, text=True, env=env, timeout=600)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if proc.returncode not in (0, 1):  # compare_to exits 0; an old pyperf exits 1 on "not significant"
        raise SystemExit(f"pyperf compare_to failed: {proc.stderr.strip()}")
    import pyperf

    a, b = (pyperf.Benchmark.load(str(f)) for f in files)
    said = [line.rsplit(": ", 1)[-1] for line in proc.stdout.splitlines() if " -> " in line]
    verdict = said[-1] if said else "not significant" if "not significant" in proc.stdout else "?"
    processes = sum(1 for bench in (a, b) for run in bench.get_runs() if run.values)  # not the calibration's
    return {"seconds": seconds, "cpu_s": cpu, "verdict": verdict, "ratio": b.mean() / a.mean(),
            "ci": _interval(files), "processes": processes}


def run_pairbench(directory: Path, base: str, cand: str, tmp: Path, extra: list[str]) -> dict[str, object]:
    """pairbench's default micro run: its time to the verdict, the verdict and its interval."""
    out = tmp / f"pairbench-{directory.name}.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    started, cpu = time.perf_counter(), _children_cpu()
    _call([sys.executable, "-m", "pairbench", "micro", str(directory), "--python", base, "--python", cand,
           "--no-history", "--no-progress", "--export-json", str(out), *extra], env)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    run = json.loads(out.read_text())
    (c,) = [c for c in run["comparisons"] if c["metric"] == "time_per_op"]
    ci = c.get("adjusted_ci") or c.get("ci")
    if c["verdict"] == "insufficient" and c.get("reached_ci"):
        ci = c["reached_ci"]  # what too few blocks can say, at the level they reach
    blocks = run.get("metadata", {}).get("blocks")
    # how the interval was made (t, bootstrap or rank: a rank interval at 10 blocks is wide) and the
    # samples per process the run planned, to read a wide interval or a long run by
    plans = [n["message"].split(": ", 1)[-1] for n in run.get("notices", []) if n.get("kind") == "sample-plan"]
    return {"seconds": seconds, "cpu_s": cpu, "verdict": c["verdict"], "ratio": c["ratio"],
            "ci": tuple(ci) if ci else None, "mode": c.get("method"), "sample_plans": plans,
            "blocks": blocks,  # the level: the adaptive looks widen the CI (97.5% for 95% over 2 looks)
            "level": c.get("reached_confidence") if c["verdict"] == "insufficient" else c.get("confidence", 0.95)}


def _ci_text(ci: object) -> tuple[str, str]:
    if not ci:
        return "–", "–"
    lo, hi = ci  # type: ignore[misc]
    return f"[{lo:.3f}, {hi:.3f}]", f"{(hi - lo) * 100:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="/usr/bin/python3")
    parser.add_argument("--cand", default=sys.executable)
    parser.add_argument("--only", action="append", default=[], choices=BENCHMARKS)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="smallest settings of both tools: checks the script")
    parser.add_argument("--jsonl", type=Path, help="append one line per measurement to this file")
    parser.add_argument("--pairbench-args", default="", help="more flags for every pairbench call")
    parser.add_argument("--pyperf-args", default="", help="more flags for every pyperf run")
    args = parser.parse_args()
    import pyperformance

    root = Path(pyperformance.__file__).parent / "data-files" / "benchmarks"
    names = args.only or list(BENCHMARKS)
    pyperf_extra = (TINY_PYPERF if args.tiny else []) + shlex.split(args.pyperf_args)
    pairbench_extra = (TINY_PAIRBENCH if args.tiny else []) + shlex.split(args.pairbench_args)
    results: dict[tuple[str, str], list[dict[str, object]]] = {}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for r in range(args.rounds):
            jobs = [(name, tool) for name in names for tool in ("pyperf", "pairbench")]
            random.Random(r).shuffle(jobs)
            for name, tool in jobs:
                d = root / f"bm_{name}"
                res = (run_pyperf(d / "run_benchmark.py", args.base, args.cand, tmp, pyperf_extra) if tool == "pyperf"
                       else run_pairbench(d, args.base, args.cand, tmp, pairbench_extra))
                results.setdefault((name, tool), []).append(res)
                print(f"round {r + 1} {name:16} {tool:9} {res['seconds']:7.1f} s  {res['verdict']}", flush=True)
                if args.jsonl:
                    with args.jsonl.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps({"round": r + 1, "benchmark": name, "tool": tool, "base": args.base,
                                             "cand": args.cand, "tiny": args.tiny,
                                             "extra": pyperf_extra if tool == "pyperf" else pairbench_extra,
                                             **res}) + "\n")
    print(f"\n{args.cand} / {args.base}{' (--tiny: not figures)' if args.tiny else ''}; time = wall seconds to the "
          "answer, cpu = the CPU seconds of its processes; width = high - low of the ratio's interval, in points of the ratio (pyperf: Welch t on its "
          "per-process means)")
    print(f"{'benchmark':16} {'tool':9} {'time':>8} {'cpu':>8} {'pb/pyperf':>9}  {'ratio':>6} {'interval':>16} "
          f"{'width':>6}  verdict")
    for name in names:
        for k, (a, b) in enumerate(zip(results[(name, "pyperf")], results[(name, "pairbench")])):
            label = name if k == 0 else ""
            for tool, res in (("pyperf", a), ("pairbench", b)):
                interval, width = _ci_text(res["ci"])
                times = f"{float(b['seconds']) / float(a['seconds']):9.2f}" if tool == "pairbench" else " " * 9
                level = res.get("level")
                if tool == "pairbench" and level and abs(float(level) - 0.95) > 1e-9:  # type: ignore[arg-type]
                    interval += f" {float(level) * 100:.3g}%"  # type: ignore[arg-type]
                more = f" ({res['blocks']} blocks, {res.get('mode')})" if tool == "pairbench" and res.get("blocks") else \
                    f" ({res['processes']} processes)" if tool == "pyperf" else ""
                print(f"{label:16} {tool:9} {float(res['seconds']):7.1f}s {float(res['cpu_s']):7.1f}s {times}  "
                      f"{float(res['ratio']):6.3f} {interval:>16} {width:>6}  {res['verdict']}{more}")
                label = ""


if __name__ == "__main__":
    main()
