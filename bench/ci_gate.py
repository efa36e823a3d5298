"""How often the gate of `pairbench ci` cries wolf, and how often it catches a small regression,
side by side with github-action-benchmark's rule.

    python3 bench/ci_gate.py [--unchanged 50] [--slower 20] [--effect 0.03] [--max-time S]
                             [--threshold PCT] [--work N] [--out results.jsonl]

A git repository is made in a temporary directory: a C program that counts a loop (WORK steps), a
base commit, a head that changes only a README ("unchanged": nothing measured changes), and a head
whose loop does `--effect` more work ("slower", 3% by default). Each trial runs `pairbench ci`
as a pull request job would (`--base main --head H --build 'cc -O1 ...' --cmd '{worktree}/tool'`,
the default budget and band unless given) and records its exit code (3: the gate tripped), the
first run's verdict, the confirmation run's, and the time taken. The builds are made once, in a
cache of the script's own (a CI job would build both anew; the build is not what is measured).

github-action-benchmark's rule, on the same machine and the same heads: it compares this job's
head result with the result stored by an earlier job on the base branch and alerts when
head / stored base exceeds its `alert-threshold` (default 200%; projects lower it to 110%). Here
each trial times the head alone (`--gab-runs` runs, their mean, as a benchmark tool would report
it) and compares it with the base timed alone in the previous trial (the stored result of an
earlier job); alerts at 200% and at 110% are counted.

Reported per scenario: trials, gate trips (the false-alarm rate on unchanged heads, the power on
slower ones) with a 95% Wilson interval, first-run "slower" verdicts (what a gate without the
confirmation would have done), and github-action-benchmark's alerts at both thresholds. Each
trial is one line of JSON in `--out`, so a long measurement can be stopped and summarised later
(`--summarise FILE`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = r"""
#include "work.h"
int main(void) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < WORK; i++) x += i;
    return 0;
}
"""
BUILD = "cc -O1 -o tool tool.c"
GAB_THRESHOLDS = (2.0, 1.1)
"""github-action-benchmark's default alert-threshold (200%) and the 110% projects use."""


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(where: Path, work: int, effect: float) -> tuple[Path, dict[str, str]]:
    """main (the base), and two heads branched from it: unchanged (README only) and slower."""
    repo = where / "app"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "tool.c").write_text(PROGRAM)
    (repo / "work.h").write_text(f"#define WORK {work}UL\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    heads = {}
    for name, change in (("unchanged", None), ("slower", effect)):
        _git(repo, "checkout", "-q", "-b", name, "main")
        if change is None:
            (repo / "README").write_text("documentation only\n")
        else:
            (repo / "work.h").write_text(f"#define WORK {int(work * (1 + change))}UL\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", name)
        heads[name] = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "main")
    return repo, heads


def _mean_time(exe: str, runs: int) -> float:
    """The mean wall time of `runs` runs of `exe`, as a benchmark tool reports it to github-action-benchmark."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([exe], check=True)
        times.append(time.perf_counter() - start)
    return statistics.fmean(times)


def _worktree(cache: Path, commit: str) -> str:
    """The built checkout of `commit` in pairbench's build cache (made by the first ci trial)."""
    found = sorted((cache / "builds").glob(f"{commit[:12]}-*/src/tool"))
    if not found:
        raise SystemExit(f"no build of {commit[:12]} in {cache}")
    return str(found[0])


def trial(repo: Path, cache: Path, scenario: str, head: str, args: argparse.Namespace, index: int) -> dict:
    """One `pairbench ci` job on `head`; its exit code, verdicts and duration."""
    work = Path(tempfile.mkdtemp(prefix="trial-", dir=cache.parent))
    argv = [sys.executable, "-m", "pairbench", "ci", "--base", "main", "--head", head, "--build", BUILD,
            "--cmd", "{worktree}/tool", "--no-history", "--no-progress", "--style", "none",
            "--export-json", str(work / "run.json"), "--comment", str(work / "comment.md")]
    argv += ["--max-time", str(args.max_time)] if args.max_time else []
    argv += ["--threshold", str(args.threshold)] if args.threshold else []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PAIRBENCH_CACHE_DIR": str(cache)}
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode not in (0, 3):
        raise SystemExit(f"trial {index} ({scenario}): exit {proc.returncode}\n{proc.stderr[-2000:]}")
    first = json.loads((work / "run.json").read_text())
    verdict = next((c["verdict"] for c in first["comparisons"] if c["metric"] == "time"), "?")
    ratio = next((c["ratio"] for c in first["comparisons"] if c["metric"] == "time"), None)
    return {"scenario": scenario, "trial": index, "tripped": proc.returncode == 3, "first_verdict": verdict,
            "first_ratio": ratio, "blocks": first["metadata"].get("blocks"), "seconds": round(seconds, 2),
            "load": os.getloadavg()[0]}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (Wilson 1927), in [0, 1]."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarise(rows: list[dict]) -> str:
    lines = ["| scenario | trials | pairbench ci gate | first run 'slower' | gab 200% | gab 110% | median time |",
             "|---|--:|---|--:|--:|--:|--:|"]
    for scenario in ("unchanged", "slower"):
        mine = [r for r in rows if r["scenario"] == scenario]
        if not mine:
            continue
        n = len(mine)
        k = sum(r["tripped"] for r in mine)
        lo, hi = wilson(k, n)
        first = sum(r["first_verdict"] == "slower" for r in mine)
        # the very first trial has no stored base result to be judged against: github-action-benchmark's
        # rates count the trials that had one
        judged = [r for r in mine if "gab_ratio" in r]
        gab = [sum(bool(r[f"gab_{t:g}"]) for r in judged) for t in GAB_THRESHOLDS]
        lines.append(f"| {scenario} | {n} | {k}/{n} = {k / n:.1%} [{lo:.1%}, {hi:.1%}] | {first}/{n} | "
                     f"{gab[0]}/{len(judged)} | {gab[1]}/{len(judged)} | "
                     f"{statistics.median(r['seconds'] for r in mine):.0f} s |")
    lines.append("")
    lines.append("On unchanged heads every trip or alert is a false alarm; on slower heads every pass is a miss.")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--unchanged", type=int, default=50, help="trials on the unchanged head (default 50)")
    p.add_argument("--slower", type=int, default=20, help="trials on the slower head (default 20)")
    p.add_argument("--effect", type=float, default=0.03, help="extra work of the slower head (default 0.03)")
    p.add_argument("--work", type=int, default=30_000_000, help="loop steps of the base (default 3e7, ~20-40 ms)")
    p.add_argument("--max-time", type=float, help="--max-time of each ci job (default: pairbench ci's)")
    p.add_argument("--threshold", type=float, help="--threshold of each ci job (default: pairbench ci's)")
    p.add_argument("--gab-runs", type=int, default=10, help="runs whose mean github-action-benchmark gets (default 10)")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / f"ci_gate-{time.strftime('%Y-%m-%d')}.jsonl"))
    p.add_argument("--summarise", metavar="FILE", help="only print the table of an earlier --out file")
    args = p.parse_args()
    if args.summarise:
        print(summarise([json.loads(line) for line in Path(args.summarise).read_text().splitlines() if line.strip()]))
        return
    with tempfile.TemporaryDirectory(prefix="pairbench-ci-gate-") as tmp:
        repo, heads = make_repo(Path(tmp), args.work, args.effect)
        cache = Path(tmp) / "cache"
        base = _git(repo, "rev-parse", "main")
        # the scenarios spread evenly over the measurement, so the machine's state over the hours hits both alike
        counts = {"unchanged": args.unchanged, "slower": args.slower}
        schedule = [s for _, s in sorted(((i + 0.5) / n, s) for s, n in counts.items() for i in range(n))]
        rows: list[dict] = []
        stored_base: float | None = None
        with open(args.out, "a", encoding="utf-8") as out:
            for i, scenario in enumerate(schedule):
                row = trial(repo, cache, scenario, heads[scenario], args, i)
                head_mean = _mean_time(_worktree(cache, heads[scenario]), args.gab_runs)
                if stored_base is not None:
                    for t in GAB_THRESHOLDS:
                        row[f"gab_{t:g}"] = head_mean / stored_base > t
                    row["gab_ratio"] = round(head_mean / stored_base, 4)
                stored_base = _mean_time(_worktree(cache, base), args.gab_runs)  # the next job's stored result
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{i + 1}/{len(schedule)} {scenario}: exit {3 if row['tripped'] else 0}, first "
                      f"{row['first_verdict']} ({row['first_ratio']}), {row['seconds']} s", file=sys.stderr)
    print(summarise(rows))


if __name__ == "__main__":
    main()
