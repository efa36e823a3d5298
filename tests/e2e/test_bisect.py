"""`pairbench bisect` on a git repository made here: a C program whose commits change its work.

The program counts a loop of WORK steps and prints the CPU time it took, which the bisect decides
on (`--metric`): CPU time is what a 2-core machine shared with other jobs disturbs least. Every
effect is 25% or more, so the verdicts are reliable on a noisy machine; budgets per step are small.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PROGRAM = r"""
#include <stdio.h>
#include <time.h>
#include "work.h"
int main(void) {
    struct timespec a, b;
    volatile unsigned long x = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (unsigned long i = 0; i < WORK; i++) x += i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    printf("work: %.9f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
"""

BASE_WORK = 8_000_000


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(tmp_path: Path, history: list[tuple[str, float | None]]) -> tuple[Path, list[str]]:
    """Commit after commit: (subject, work factor); a factor of None commits a program that does not compile."""
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    ids = []
    for i, (subject, factor) in enumerate(history):
        (repo / "tool.c").write_text(PROGRAM if factor is not None else PROGRAM + "\nint broken(\n")
        if factor is not None:
            (repo / "work.h").write_text(f"#define WORK {int(BASE_WORK * factor)}UL\n")
        (repo / "notes.txt").write_text(f"commit {i}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject)
        ids.append(git(repo, "rev-parse", "HEAD"))
    return repo, ids


def bisect_args(repo: Path, ids: list[str], counter: Path, cache: Path, per_step: str = "8") -> list[str]:
    return ["bisect", "--repo", str(repo), "--good", ids[0], "--bad", ids[-1],
            "--build", f"cc -O1 -o tool tool.c && echo built >> {counter}", "--cache-dir", str(cache),
            "--cmd", "{worktree}/tool", "--metric", r"work=work: ([\d.]+)",
            "--max-time-per-step", per_step, "--runs", "6", "--threshold", "5", "--seed", "7"]


def first_bad(stdout: str) -> list[str]:
    return re.findall(r"^first bad commit: ([0-9a-f]{40})", stdout, re.M)


def test_finds_the_regression_skips_the_broken_build_and_reuses_the_history(tmp_path: Path, run_cli) -> None:
    repo, ids = make_repo(tmp_path, [
        ("base", 1.0), ("neutral 1", 1.0), ("neutral 2", 1.0), ("half-done edit", None), ("fix the build", 1.0),
        ("slower: 30% more work", 1.3), ("neutral 3", 1.3), ("neutral 4", 1.3),
    ])
    counter, cache = tmp_path / "builds.txt", tmp_path / "cache"
    first = run_cli(*bisect_args(repo, ids, counter, cache, "10"), "--export-json", "bisect.json", timeout=120)
    assert first.returncode == 0, first.stderr
    assert first_bad(first.stdout) == [ids[5]], first.stdout
    doc = json.loads((tmp_path / "bisect.json").read_text())
    change = [f for f in doc["findings"] if f["kind"] == "change"]
    assert [(f["good"], f["bad"]) for f in change] == [(ids[4], ids[5])]
    assert change[0]["against_parent"]["verdict"] == "slower" and "pairbench cmd" in change[0]["reproduce"]
    assert {s["tested"]: s["outcome"] for s in doc["steps"]}[ids[3]] == "skipped"
    assert "'slower: 30% more work'" in first.stdout
    # Its ratio to its parent, with the CI, and a command that reproduces that comparison.
    ratio = re.search(r"^  (\d\.\d+)x \([\d.]+% CI (\d\.\d+)-(\d\.\d+)\) its parent (\w+): slower", first.stdout, re.M)
    assert ratio, first.stdout
    assert 1.15 < float(ratio.group(1)) < 1.5 and float(ratio.group(2)) > 1.0 and ratio.group(4) == ids[4][:12]
    assert re.search(r"^  reproduce: pairbench cmd --reference .*/tool .*/tool", first.stdout, re.M)
    assert re.search(rf"^skipped \(did not build\): {ids[3][:12]} 'half-done edit'", first.stdout, re.M)
    # The evidence table has one row per step, the skipped one included.
    rows = re.findall(r"^(\d+)\s+([0-9a-f]{12})\s", first.stdout, re.M)
    assert ids[3][:12] in [r[1] for r in rows] and len(rows) >= 3
    builds = counter.read_text().count("built")

    again = run_cli(*bisect_args(repo, ids, counter, cache, "10"), timeout=120)
    assert again.returncode == 0, again.stderr
    assert first_bad(again.stdout) == [ids[5]]
    cells = re.findall(r"^\d+\s+[0-9a-f]{12}\s.*\s(good|bad|between|undecided|skipped)\s+\S+\s+(\S+ s|reused)$",
                       again.stdout, re.M)
    assert [when for verdict, when in cells if verdict != "skipped"] == ["reused", "reused"], again.stdout
    assert counter.read_text().count("built") == builds  # every build came from the cache


def test_a_regression_in_two_steps_is_never_one_wrong_commit(tmp_path: Path, run_cli) -> None:
    repo, ids = make_repo(tmp_path, [
        ("base", 1.0), ("neutral 1", 1.0), ("first step: +25%", 1.25), ("neutral 2", 1.25),
        ("neutral 3", 1.25), ("second step: +25%", 1.5625), ("neutral 4", 1.5625),
    ])
    proc = run_cli(*bisect_args(repo, ids, tmp_path / "builds.txt", tmp_path / "cache"), "--no-history",
                   timeout=150)
    assert proc.returncode == 0, proc.stderr
    found = first_bad(proc.stdout)
    assert set(found) <= {ids[2], ids[5]}, proc.stdout
    # Each step is either named or inside a reported range.
    ranges = re.findall(r"^the change lies after (\w+) and at or before (\w+)", proc.stdout, re.M)
    short = [i[:12] for i in ids]
    covered = {ids.index(f) for f in found}
    for lo, hi in ranges:
        covered |= set(range(short.index(lo) + 1, short.index(hi) + 1))
    assert {2, 5} <= covered, proc.stdout
    assert not (found and ranges == [] and len(found) == 1), proc.stdout  # never one commit for two steps


def test_ctrl_c_keeps_the_steps_done_and_prints_the_range_so_far(tmp_path: Path) -> None:
    import os
    import select
    import signal
    import sys
    import time

    from tests.conftest import cli_env

    repo, ids = make_repo(tmp_path, [("base", 1.0)] + [(f"neutral {i}", 1.0) for i in range(1, 6)]
                          + [("slower", 1.3), ("neutral 6", 1.3)])
    args = bisect_args(repo, ids, tmp_path / "builds.txt", tmp_path / "cache")
    args[args.index("--max-time-per-step") + 1] = "30"  # the second step is still measuring when stopped
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env({"PAIRBENCH_HISTORY": str(tmp_path / "h.sqlite")}), cwd=tmp_path)
    try:
        seen, deadline = "", time.monotonic() + 90
        while "step 2:" not in seen and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                seen += os.read(proc.stderr.fileno(), 4096).decode()  # type: ignore[union-attr]
        assert "step 2:" in seen, seen
        # At once: the second step can settle within a second (a CI run saw it end before a 1 s
        # wait was over), and any moment before it ends is "after 1 step".
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "bisect interrupted after 1 step" in err
    # The first step (the middle commit behaves like the good end) is kept, and the open range shown.
    assert re.search(rf"^1\s+{ids[3][:12]}\s.*\sgood\s", out, re.M), out
    assert f"the change lies after {ids[3][:12]} and at or before {ids[-1][:12]}" in out, out
    assert "bisect was stopped before this range was narrowed" in out


SUITE = r"""
# The suite compares two refs; bisect runs its benchmarks under its baseline variant at each commit.
[variants.head]
git = { repo = "REPO", ref = "main", build = "cc -O1 -o tool tool.c" }
command = "{worktree}/tool"

[variants.older]
git = { repo = "REPO", ref = "main~1", build = "cc -O1 -o tool tool.c" }
command = "{worktree}/tool"

[benchmarks.tool]
kind = "command"
command = "{variant}"
metrics = { work = 'work: ([\d.]+)' }

[benchmarks.steady]
kind = "command"
command = "echo work: 0.010"
metrics = { work = 'work: ([\d.]+)' }

[benchmarks.other]
kind = "command"
command = "true"
"""


def test_suite_mode_decides_on_the_selected_benchmarks(tmp_path: Path, run_cli) -> None:
    repo, ids = make_repo(tmp_path, [("base", 1.0), ("neutral 1", 1.0), ("neutral 2", 1.0),
                                     ("slower: 30% more work", 1.3), ("neutral 3", 1.3), ("neutral 4", 1.3)])
    suite = tmp_path / "pairbench.toml"
    suite.write_text(SUITE.replace("REPO", str(repo)))
    args = bisect_args(repo, ids, tmp_path / "builds.txt", tmp_path / "cache")
    at = args.index("--cmd")
    del args[at:at + 4]  # no --cmd, no --metric: the suite says what runs
    args[args.index("--max-time-per-step") + 1] = "12"
    proc = run_cli(*args, "--suite", str(suite), "--only", "to*", "--decide-on", "work", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert first_bad(proc.stdout) == [ids[3]], proc.stdout
    assert re.search(r"^  reproduce: pairbench bisect .*--suite .*--only 'to\*'", proc.stdout, re.M)
    # Only `tool` was selected: the others never ran (their names are in no run recorded by the steps).
    from pairbench.store.history import open_history

    with open_history(str(tmp_path / "history.sqlite"), create=False) as history:
        assert history.benchmarks() == ["tool"]


def test_bad_input_is_one_line(tmp_path: Path, run_cli) -> None:
    repo, ids = make_repo(tmp_path, [("base", 1.0), ("next", 1.0), ("last", 1.0)])
    cases = [
        (["--good", ids[0], "--bad", ids[2], "--cmd", "tool"], "must name the commit's checkout as {worktree}"),
        (["--good", "nope", "--bad", ids[2], "--cmd", "{worktree}/tool"], "git ref 'nope' does not exist"),
        (["--good", ids[2], "--bad", ids[0], "--cmd", "{worktree}/tool"], "is not an ancestor of --bad"),
        (["--good", ids[1], "--bad", ids[1], "--cmd", "{worktree}/tool"], "are the same commit"),
        (["--good", ids[0], "--bad", ids[2], "--cmd", "{worktree}/tool", "--only", "x*"], "give --suite FILE too"),
        (["--good", ids[0], "--bad", ids[2], "--cmd", "{worktree}/tool", "--metric", "nogroup=abc"],
         "needs a group"),
    ]
    for argv, message in cases:
        proc = run_cli("bisect", "--repo", str(repo), *argv, timeout=60)
        assert proc.returncode == 1, (argv, proc.stderr)
        assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    # The good end must build: nothing to compare against otherwise.
    proc = run_cli("bisect", "--repo", str(repo), "--good", ids[0], "--bad", ids[2], "--build", "exit 3",
                   "--cmd", "{worktree}/tool", "--cache-dir", str(tmp_path / "cache"), timeout=60)
    assert proc.returncode == 1 and "(the good end) does not build" in proc.stderr, proc.stderr
