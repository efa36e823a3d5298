"""`--measure instructions` with real processes under valgrind (perf's counter is not available in this VM)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")]

LOOP_C = Path(__file__).resolve().parents[1] / "data" / "exact_loop.c"


def _loop(tmp_path: Path) -> Path:
    (tmp_path / "loop.c").write_text(LOOP_C.read_text())
    subprocess.run(["cc", "-O1", "-o", str(tmp_path / "loop"), str(tmp_path / "loop.c")], check=True)
    return tmp_path / "loop"


def _per_block(run: dict, metric: str) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for s in run["samples"]:
        if s["metric"] == metric and not s.get("warmup"):
            out.setdefault(s["variant"], {})[s["block"]] = s["value"]
    return out


def test_one_percent_more_work_reads_1_0100_in_every_block_and_a_copy_reads_exactly_1(run_cli, tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    r = run_cli("cmd", "-N", "--measure", "instructions", f"{loop} 10000000", f"{loop} 10100000", f"{loop} 10000000",
                "-n", "A", "-n", "B", "-n", "A again", "-r", "3", "-w", "0", "--no-progress", "--no-history",
                "--export-json", "r.json", timeout=600)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    values = _per_block(run, "instructions")
    assert len(values["A"]) == 3
    for block, a in values["A"].items():
        assert abs(values["B"][block] / a - 1.01) < 1e-4
        assert values["A again"][block] == a
    by = {c["candidate"]: c for c in run["comparisons"] if c["metric"] == "instructions"}
    assert by["A again"]["ratio"] == 1.0 and by["A again"]["delta"] == 0
    assert by["A again"]["verdict"] == "same" and by["A again"]["exact"]
    assert abs(by["B"]["ratio"] - 1.01) < 1e-4
    assert {m["name"] for m in run["benchmarks"][0]["metrics"]} == {"instructions", "exit_code"}  # no time asked
    text = " ".join((r.stdout + r.stderr).split())
    assert "instructions counted by valgrind cachegrind" in text and "perf cannot count here" in text
    assert "PYTHONHASHSEED=0" in text


def test_an_exact_regression_beyond_the_band_fails_the_gate_and_reads_slower_exact(run_cli, tmp_path: Path) -> None:
    """Counting instructions is how a CI gate is made deterministic: a 39% longer loop must fail it
    (it printed "+17.80M count (+39.0%); exact, no test" and exited 0)."""
    # three blocks, as above: a count is exact, so more blocks change no verdict (each is a
    # Python under valgrind, ~1.7 s)
    r = run_cli("cmd", "-N", "-r", "3", "--fail-on-regression", "--measure", "instructions",
                'python3 -S -c "sum(range(100000))"', 'python3 -S -c "sum(range(200000))"', "--no-progress",
                "--no-history", "--export-json", "r.json", timeout=900)
    assert r.returncode == 3, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    assert "slower (exact)" in text
    [c] = [c for c in json.loads((tmp_path / "r.json").read_text())["comparisons"] if c["metric"] == "instructions"]
    assert c["verdict"] == "slower" and c["exact"] and c["meaningful"] and c["ci"] is None
    assert c["candidate_value"] / c["baseline_value"] == pytest.approx(c["ratio"])
    percent = f"+{(c['ratio'] - 1) * 100:.1f}%"
    assert percent in text  # beside the count difference
    # the same command on both sides is the same, and the gate passes
    r = run_cli("cmd", "-N", "-r", "3", "--fail-on-regression", "--measure", "instructions",
                'python3 -S -c "sum(range(100000))"', 'python3 -S -c "sum(range(100000))"', "--no-progress",
                "--no-history", "--export-json", "same.json", timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same (exact)" in " ".join(r.stdout.split())


def test_instructions_and_time_are_both_measured_and_a_python_benchmark_counts_alike(run_cli, tmp_path: Path) -> None:
    script = tmp_path / "bench.py"
    script.write_text("d = {str(i): i for i in range(20000)}\nsorted(d)\n")
    # -S: site's start-up (the .pth files) cost 1.3 s a process under valgrind, eight processes here
    r = run_cli("cmd", "--measure", "instructions,time", f"python3 -S {script}", f"python3 -S {script}",
                "-n", "A", "-n", "B", "-r", "3", "-w", "1", "--no-progress", "--no-history", "--export-json", "r.json",
                timeout=600)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    counts = _per_block(run, "instructions")
    seen = {v for per in counts.values() for v in per.values()}
    # Six processes, one count, up to the shell's own few instructions: the command goes through
    # /bin/sh, which executes a few dozen more when its process id has five digits rather than four
    # (227,029 and 227,067 here; pid_max is 32,768, so a busy machine's pids wrap within minutes and
    # two runs straddle 10,000). A hash seed left random moves it by hundreds to tens of thousands.
    assert max(seen) - min(seen) <= 1e-6 * min(seen), counts
    assert len(_per_block(run, "time")["A"]) == 3
    metrics = {c["metric"]: c for c in run["comparisons"]}
    assert abs(metrics["instructions"]["ratio"] - 1.0) <= 1e-6 and metrics["time"]["ci"] is not None
    notices = [n for n in run["notices"] if n["kind"] == "instructions-vary"]
    assert all("process id" in n["hint"] for n in notices), notices  # the few-in-a-million kind, if any


@pytest.mark.skipif(shutil.which("ruby") is None, reason="ruby is not installed")
def test_a_ruby_script_hashing_strings_counts_the_same_in_every_run(run_cli, tmp_path: Path) -> None:
    # Ruby seeds its string hashes from getrandom(): without the fixed-random preload each run's
    # table layout, and so its count, differs by thousands of instructions.
    script = tmp_path / "hash.rb"
    script.write_text('h = {}\n2000.times { |i| h["key#{i}"] = i }\nh.each_key { |k| k.hash }\n')
    r = run_cli("cmd", "-N", "--measure", "instructions", f"ruby --disable-gems {script}",
                f"ruby --disable-gems {script}", "-r", "2", "-w", "0", "--no-progress", "--no-history",
                "--export-json", "r.json", timeout=600)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    counts = _per_block(run, "instructions")
    seen = {v for per in counts.values() for v in per.values()}
    # The same count, or a few instructions apart when the process ids of two runs have different
    # numbers of digits (Ruby formats its pid at start-up: +2 to +4 instructions per digit here),
    # which the notice then says; unfixed hash seeds move the count by thousands.
    assert max(seen) - min(seen) <= 16, counts
    notices = [n for n in run["notices"] if n["kind"] == "instructions-vary"]
    assert len(notices) == (len(seen) > 1) and all("process id" in n["hint"] for n in notices), notices
    assert "getrandom() fixed" in " ".join((r.stdout + r.stderr).split())


def test_a_program_whose_count_changes_between_runs_is_called_out(run_cli, tmp_path: Path) -> None:
    script = tmp_path / "clock.py"
    script.write_text("import time\nfor _ in range(int(time.time() * 1e6) % 997 * 50):\n    pass\n")
    # One command, three counted runs: all three draw the same loop count from the clock once in 10^6
    r = run_cli("cmd", "-N", "--measure", "instructions", f"python3 -S {script}", "-r", "3", "-w", "0", "--no-progress",
                "--no-history", "--export-json", "r.json", timeout=600)
    assert r.returncode == 0, r.stderr
    text = " ".join((r.stdout + r.stderr).split())
    assert "instruction counts of one variant differ between runs" in text
    assert "setarch -R" in text and "not deterministic" in text
