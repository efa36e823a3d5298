"""`--measure counters`: poop's counter set, each with a paired verdict, from cachegrind's simulation
where the kernel hides the hardware counters (this VM), and from rusage."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")]

LOOP_C = Path(__file__).resolve().parents[1] / "data" / "exact_loop.c"
SIMULATED = {"instructions", "sim-cycles", "sim-branch-misses", "sim-cache-misses", "sim-L1-dcache-load-misses"}
RUSAGE = {"page-faults", "context-switches", "task-clock"}


def _loop(tmp_path: Path) -> Path:
    (tmp_path / "loop.c").write_text(LOOP_C.read_text())
    subprocess.run(["cc", "-O1", "-o", str(tmp_path / "loop"), str(tmp_path / "loop.c")], check=True)
    return tmp_path / "loop"


def test_counters_on_five_percent_more_exact_work_read_slower_on_instructions_and_simulated_cycles(
        run_cli, tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    r = run_cli("cmd", "-N", "--measure", "counters", f"{loop} 2000000", f"{loop} 2100000", "-n", "A", "-n", "B",
                "-r", "4", "-w", "0", "--no-progress", "--no-history", "--export-json", "r.json", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    metrics = {m["name"]: m for m in run["benchmarks"][0]["metrics"]}
    assert SIMULATED | RUSAGE | {"ipc", "branch-miss-rate"} <= set(metrics)
    for name in SIMULATED:
        assert metrics[name]["exact"], name  # simulated counts repeat exactly for a deterministic program
        assert "simulated" in metrics[name]["description"] or name == "instructions"
    for name in RUSAGE:
        assert not metrics[name]["exact"], name  # the kernel's counts vary between identical runs
    by = {c["metric"]: c for c in run["comparisons"] if c["candidate"] == "B"}
    assert set(by) >= SIMULATED | RUSAGE
    assert by["instructions"]["verdict"] == "slower" and abs(by["instructions"]["ratio"] - 1.05) < 0.01
    assert by["sim-cycles"]["verdict"] == "slower" and by["sim-cycles"]["ratio"] > 1.03
    # per block, the simulated counts are exact: every block of A reads the same
    cycles = {s["value"] for s in run["samples"] if s["metric"] == "sim-cycles" and s["variant"] == "A"}
    assert len(cycles) == 1
    ipc = [s["value"] for s in run["samples"] if s["metric"] == "ipc" and s["variant"] == "A"]
    insns = [s["value"] for s in run["samples"] if s["metric"] == "instructions" and s["variant"] == "A"]
    assert ipc and 0 < ipc[0] <= 1 and ipc[0] == pytest.approx(insns[0] / next(iter(cycles)))
    text = " ".join((r.stdout + r.stderr).split())
    assert "simulated" in text  # every output says the counts were simulated
    assert "sim-cycles" in text and "instructions" in text
    # cycles read as time does: slower, never "higher sim-cycles"
    # the counters that did not move are one line in the default output, not a row each
    calm = re.search(r"((?:[\w-]+, )+[\w-]+): no meaningful change found", " ".join(r.stdout.split())).group(1)
    assert "sim-cache-misses" in calm and "sim-branch-misses" in calm and "instructions" not in calm
    # (sim-cycles is the only exact count here that rises: it read "higher (exact)" before)
    assert "higher (exact)" not in text and text.count("slower (exact)") >= 2, text


def test_named_counters_measure_only_those_and_a_bad_name_is_one_line(run_cli, tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    r = run_cli("cmd", "-N", "--measure", "page-faults,context-switches", f"{loop} 200000", f"{loop} 200000",
                "-r", "3", "-w", "0", "--no-progress", "--no-history", "--export-json", "r.json", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    names = {m["name"] for m in run["benchmarks"][0]["metrics"]}
    assert {"page-faults", "context-switches"} <= names and "sim-cycles" not in names
    faults = [s["value"] for s in run["samples"] if s["metric"] == "page-faults"]
    assert faults and all(f > 10 for f in faults)  # a process faults in its pages: never 0
    bad = run_cli("cmd", "-N", "--measure", "cycels", "true", "true", "--no-history")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert "cycels" in bad.stderr and "cycles" in bad.stderr
