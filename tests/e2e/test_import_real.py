"""Import files made by the real tools in this test run: pyperf timeit -o, hyperfine --export-json."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _pyperf(tmp_path: Path, name: str, stmt: str) -> Path:
    out = tmp_path / f"{name}.json"
    subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--processes", "4", "--values", "3", "--loops", "100",
                    "--warmups", "1", "-q", "-o", str(out), stmt], check=True, capture_output=True, timeout=240)
    return out


def test_pyperf_files_import_compare_and_enter_history(tmp_path: Path, run_cli) -> None:
    pytest.importorskip("pyperf")
    env = {"PAIRBENCH_HISTORY": str(tmp_path / "h.sqlite")}
    _pyperf(tmp_path, "base", "sum(range(50))")
    _pyperf(tmp_path, "patched", "sum(range(2000))")  # many times slower: a 20%+ effect on any machine
    proc = run_cli("import", "base.json", "patched.json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "wrote base.run.json: 1 variant, 1 benchmark, 12 samples" in proc.stdout
    doc = json.loads((tmp_path / "base.run.json").read_text())
    assert doc["schema"] == "pairbench.run" and {s["block"] for s in doc["samples"]} == {0, 1, 2, 3}
    proc = run_cli("compare", "base.run.json", "patched.run.json")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("timeit"))
    assert line.split()[-1] == "slower"
    proc = run_cli("compare", "base.json", "patched.json")  # the pyperf files directly
    assert proc.returncode == 0 and "slower" in proc.stdout
    proc = run_cli("history", env=env)
    assert "import pyperf" in proc.stdout and "2 runs from" in proc.stdout


@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine not installed (.ci/run installs it)")
def test_hyperfine_export_imports_as_variants(tmp_path: Path, run_cli) -> None:
    subprocess.run(["hyperfine", "-N", "--runs", "5", "--warmup", "1", "--export-json", str(tmp_path / "hf.json"),
                    "sleep 0.001", "sleep 0.05"], check=True, capture_output=True, timeout=120)
    proc = run_cli("import", "hf.json", "--benchmark", "sleep", "--no-history")
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("report", "hf.run.json")
    assert proc.returncode == 0, proc.stderr
    assert "| sleep | time | sleep 0.001 (baseline) |" in proc.stdout
    assert "| sleep | time | sleep 0.05 |" in proc.stdout
    assert "runs all of one command before the next" in proc.stdout
    # Two exports of different commands compare under one benchmark name
    subprocess.run(["hyperfine", "-N", "--runs", "5", "--export-json", str(tmp_path / "slow.json"), "sleep 0.06"],
                   check=True, capture_output=True, timeout=120)
    subprocess.run(["hyperfine", "-N", "--runs", "5", "--export-json", str(tmp_path / "fast.json"), "sleep 0.001"],
                   check=True, capture_output=True, timeout=120)
    proc = run_cli("compare", "slow.json", "fast.json")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("hyperfine"))
    assert line.split()[-1] == "faster"
