"""One command alone, hyperfine's most common use (`pairbench cmd 'sleep 0.3'`): measured and
summarised, nothing compared."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pairbench.store.runfile import load_run

FAST = ("-w", "1", "--no-history", "--no-progress", "--debug-fake=1")


def test_one_command_is_measured_with_hyperfine_figures(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.3", "-r", "7", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "Benchmark 1: sleep 0.3" in r.stdout
    assert re.search(r"Time \(mean ± σ\): +[\d.]+ \S?s ± [\d.]+ \S?s", r.stdout), r.stdout
    assert re.search(r"Time \(median\): +[\d.]+ \S?s", r.stdout), r.stdout
    assert re.search(r"Range \(min … max\): +[\d.]+ \S?s … [\d.]+ \S?s +7 runs", r.stdout), r.stdout
    assert out.count("nothing to compare") == 1, out
    run = load_run(tmp_path / "r.json")
    assert [v.name for v in run.variants] == ["sleep 0.3"] and run.comparisons == []
    measured = [s for s in run.samples if s.metric == "time" and not s.warmup]
    assert len(measured) == 7 and len({s.block for s in measured}) == 7


def test_one_command_takes_the_budget_flags(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.3", "-m", "4", "-M", "5", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    measured = [s for s in load_run(tmp_path / "r.json").samples if s.metric == "time" and not s.warmup]
    assert 4 <= len(measured) <= 5


@pytest.mark.slow
def test_one_real_command_reports_its_time_and_cpu(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.05", "-r", "3", "-w", "0", "--no-history", "--no-progress",
                "--export-json", "r.json", timeout=120)
    assert r.returncode == 0, r.stderr
    assert "[User: " in r.stdout and ", System: " in r.stdout, r.stdout
    assert "3 runs" in r.stdout and (r.stdout + r.stderr).count("nothing to compare") == 1
    run = load_run(tmp_path / "r.json")
    times = [s.value for s in run.samples if s.metric == "time" and not s.warmup]
    # sleep cannot wake early; the shell's start-up is subtracted, so allow a little below 50 ms
    assert len(times) == 3 and all(0.04 <= t < 1.0 for t in times), times
    assert {s.metric for s in run.samples} >= {"user", "sys"}
