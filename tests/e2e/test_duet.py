"""`cmd --duet` with real processes: both variants at once, each on its own CPU, swapped every block."""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

AFFINITY = "python3 -c \"import os, time; t = time.time() + 0.15\nwhile time.time() < t: pass\nprint('on cpu', *os.sched_getaffinity(0))\""


def _samples(run: dict, metric: str) -> dict[int, dict[str, dict]]:
    out: dict[int, dict[str, dict]] = defaultdict(dict)
    for s in run["samples"]:
        if s["metric"] == metric and not s.get("warmup"):
            out[s["block"]][s["variant"]] = s
    return out


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs")
def test_duet_runs_both_at_once_on_swapped_cpus(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "--duet", AFFINITY, AFFINITY + " ", "-n", "A", "-n", "B", "--metric", r"on_cpu=on cpu (\d+)$",
                "-r", "6", "-w", "0", "--no-progress", "--no-history", "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    cpus = _samples(run, "on_cpu")
    assert sorted(cpus) == list(range(6))
    cpu0, cpu1 = sorted(os.sched_getaffinity(0))[:2]
    for block, pair in cpus.items():
        assert {pair["A"]["value"], pair["B"]["value"]} == {cpu0, cpu1}  # one CPU each, never both on one
    assert len({cpus[b]["A"]["value"] for b in (0, 1)}) == 2  # swapped between blocks
    walls = _samples(run, "time")
    for block, pair in walls.items():  # 150 ms busy loops that end within one run of each other: simultaneous
        assert abs(pair["A"]["time"] - pair["B"]["time"]) < min(pair["A"]["value"], pair["B"]["value"])
    metrics = {c["metric"] for c in run["comparisons"]}
    assert {"time", "cpu"} <= metrics
    assert "multi-threaded command competes with its partner" in " ".join((r.stdout + r.stderr).split())


@pytest.mark.slow
def test_duet_refuses_one_cpu_and_three_variants_in_one_line(run_cli, tmp_path: Path) -> None:
    three = run_cli("cmd", "--duet", "true", "true ", "true  ", "-r", "2", "--no-history", "--no-progress")
    assert three.returncode == 1 and "error: --duet compares exactly 2 variants" in three.stderr
    assert "Traceback" not in three.stderr
    if shutil.which("taskset"):
        import subprocess
        import sys

        from tests.conftest import cli_env

        one = subprocess.run(["taskset", "-c", "0", sys.executable, "-m", "pairbench", "cmd", "--duet", "true", "true ",
                              "--no-history", "--no-progress"], capture_output=True, text=True, cwd=tmp_path,
                             env=cli_env(), timeout=120)
        assert one.returncode == 1 and "error: --duet needs 2 CPUs" in one.stderr, one.stderr
